//! Anthropic's `web_search` server tool: the request body and the stream
//! decoder of a search side request.
//!
//! The stream (Messages API, server tools): `content_block_start` of a
//! `server_tool_use` block (`name: "web_search"`, `input: {}`) whose query
//! arrives as `input_json_delta`s; a `web_search_tool_result` block whose
//! `content` is the list of `web_search_result`s (`url`, `title`,
//! `encrypted_content`, `page_age`) or a `web_search_tool_result_error`
//! (`error_code`); text blocks whose `citations_delta`s carry
//! `web_search_result_location`s (`url`, `title`, `cited_text`);
//! `message_delta` with usage (`server_tool_use.web_search_requests`),
//! `message_stop`; an `error` event fails the request.

use serde_json::{json, Value};

use super::{merge, no_sources, search_failed, WebSearchOutcome, WebSource};
use crate::error::{error_type_retryable, ProviderError};

/// The tool version sent (the web search tool's documented type).
pub(crate) const TOOL_TYPE: &str = "web_search_20250305";

/// The body of the side request: only the server tool, one use.
pub(crate) fn body(model: &str, query: &str, instructions: &str, max_tokens: u32) -> Value {
    json!({
        "model": model,
        "max_tokens": max_tokens,
        "stream": true,
        "system": instructions,
        "tools": [{"type": TOOL_TYPE, "name": "web_search", "max_uses": 1}],
        "messages": [{
            "role": "user",
            "content": [{"type": "text", "text": format!("Search the web for: {query}")}],
        }],
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Block {
    ToolUse { input: String },
    Text,
    Other,
}

/// Decodes the events of one side request.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    blocks: Vec<(u64, Block)>,
    outcome: WebSearchOutcome,
    /// Sources of result blocks (in order), then cited URLs new to them.
    results: Vec<WebSource>,
    cited: Vec<WebSource>,
    searched: bool,
    error: Option<(String, String)>,
    stopped: bool,
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

impl Decoder {
    fn block(&mut self, index: u64) -> Option<&mut Block> {
        self.blocks
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
    }

    pub(crate) fn event(&mut self, provider: &str, v: &Value) -> Result<(), ProviderError> {
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match str_of(v, "type") {
            "message_start" => {
                if let Some(u) = v.pointer("/message/usage") {
                    self.usage(u);
                }
            }
            "content_block_start" => {
                let block = v.get("content_block").unwrap_or(&Value::Null);
                let kind = match str_of(block, "type") {
                    "server_tool_use" => {
                        self.searched = true;
                        let input = block
                            .get("input")
                            .filter(|i| i.as_object().is_some_and(|o| !o.is_empty()))
                            .map(Value::to_string)
                            .unwrap_or_default();
                        Block::ToolUse { input }
                    }
                    "web_search_tool_result" => {
                        self.searched = true;
                        self.results_block(block.get("content").unwrap_or(&Value::Null));
                        Block::Other
                    }
                    "text" => {
                        for c in block
                            .get("citations")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            self.citation(c);
                        }
                        let text = str_of(block, "text");
                        self.outcome.answer.push_str(text);
                        Block::Text
                    }
                    _ => Block::Other,
                };
                self.blocks.push((index, kind));
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                match str_of(delta, "type") {
                    "input_json_delta" => {
                        if let Some(Block::ToolUse { input }) = self.block(index) {
                            input.push_str(str_of(delta, "partial_json"));
                        }
                    }
                    "text_delta" => {
                        if matches!(self.block(index), Some(Block::Text)) {
                            self.outcome.answer.push_str(str_of(delta, "text"));
                        }
                    }
                    "citations_delta" => {
                        if let Some(c) = delta.get("citation") {
                            self.citation(c);
                        }
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(Block::ToolUse { input }) = self.block(index) {
                    let input = std::mem::take(input);
                    let query = serde_json::from_str::<Value>(&input)
                        .ok()
                        .and_then(|i| i.get("query").and_then(Value::as_str).map(str::to_string));
                    if let Some(q) = query.filter(|q| !q.trim().is_empty()) {
                        self.outcome.queries.push(q);
                    }
                }
            }
            "message_delta" => {
                if let Some(u) = v.get("usage") {
                    self.usage(u);
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                let e = v.get("error").unwrap_or(&Value::Null);
                let kind = str_of(e, "type").to_string();
                let message = str_of(e, "message").to_string();
                let retryable = error_type_retryable(&kind, &message);
                return Err(ProviderError::api(provider, kind, message, retryable));
            }
            _ => {}
        }
        Ok(())
    }

    fn usage(&mut self, u: &Value) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        let usage = &mut self.outcome.usage;
        if let Some(x) = n("input_tokens") {
            usage.input = x;
        }
        if let Some(x) = n("output_tokens") {
            usage.output = x;
        }
        if let Some(x) = n("cache_read_input_tokens") {
            usage.cache_read = x;
        }
        if let Some(x) = n("cache_creation_input_tokens") {
            usage.cache_write = x;
        }
    }

    fn results_block(&mut self, content: &Value) {
        match content {
            Value::Array(items) => {
                for r in items {
                    if str_of(r, "type") != "web_search_result" {
                        continue;
                    }
                    let source = WebSource {
                        url: str_of(r, "url").to_string(),
                        title: str_of(r, "title").to_string(),
                        snippet: String::new(),
                        page_age: r
                            .get("page_age")
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty())
                            .map(str::to_string),
                    };
                    merge(&mut self.results, source);
                }
            }
            Value::Object(_) => {
                // `web_search_tool_result_error`
                let code = str_of(content, "error_code");
                let code = if code.is_empty() { "unknown" } else { code };
                self.error = Some((code.to_string(), String::new()));
            }
            _ => {}
        }
    }

    fn citation(&mut self, c: &Value) {
        if str_of(c, "type") != "web_search_result_location" {
            return;
        }
        merge(
            &mut self.cited,
            WebSource {
                url: str_of(c, "url").to_string(),
                title: str_of(c, "title").to_string(),
                snippet: str_of(c, "cited_text").to_string(),
                page_age: None,
            },
        );
    }

    pub(crate) fn finish(mut self, provider: &str) -> Result<WebSearchOutcome, ProviderError> {
        if !self.stopped {
            return Err(ProviderError::Transport {
                provider: provider.to_string(),
                message: "the search stream ended before message_stop".into(),
            });
        }
        // Cited results first (they carry text), then the others in the
        // provider's order.
        let mut sources = Vec::new();
        for c in &self.cited {
            if let Some(r) = self.results.iter().find(|r| r.url == c.url) {
                let mut s = r.clone();
                s.snippet = c.snippet.clone();
                if s.title.is_empty() {
                    s.title = c.title.clone();
                }
                merge(&mut sources, s);
            } else {
                merge(&mut sources, c.clone());
            }
        }
        for r in self.results.drain(..) {
            merge(&mut sources, r);
        }
        if sources.is_empty() {
            if let Some((code, detail)) = &self.error {
                return Err(search_failed(provider, code, detail));
            }
            return Err(no_sources(provider, self.searched, &self.outcome.answer));
        }
        self.outcome.sources = sources;
        Ok(self.outcome)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn run(events: &[Value]) -> Result<WebSearchOutcome, ProviderError> {
        super::super::decode_events(
            super::super::ServerSearchKind::Anthropic,
            "anthropic",
            events,
        )
    }

    #[test]
    fn results_citations_and_query() {
        let out = run(&[
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 12, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"ru"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "st\"}"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "url": "https://a.example/", "title": "A", "encrypted_content": "x", "page_age": "2 days ago"},
                {"type": "web_search_result", "url": "https://b.example/", "title": "B", "encrypted_content": "y"}]}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "citations_delta", "citation": {"type": "web_search_result_location", "url": "https://b.example/", "title": "B", "cited_text": "B says so", "encrypted_index": "z"}}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "B is best."}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 40, "server_tool_use": {"web_search_requests": 1}}}),
            json!({"type": "message_stop"}),
        ])
        .unwrap();
        assert_eq!(out.queries, ["rust"]);
        assert_eq!(out.answer, "B is best.");
        assert_eq!((out.usage.input, out.usage.output), (12, 40));
        let urls: Vec<_> = out.sources.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(urls, ["https://b.example/", "https://a.example/"]);
        assert_eq!(out.sources[0].snippet, "B says so");
        assert_eq!(out.sources[1].page_age.as_deref(), Some("2 days ago"));
    }

    #[test]
    fn errors_and_no_search() {
        let e = run(&[
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"query": "q"}}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "web_search_tool_result", "tool_use_id": "s", "content": {"type": "web_search_tool_result_error", "error_code": "too_many_requests"}}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_stop"}),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("rate-limiting"), "{e}");
        assert!(e.is_retryable());
        let e = run(&[
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "I know this."}}),
            json!({"type": "message_stop"}),
        ])
        .unwrap_err();
        assert!(
            e.to_string().contains("did not run the server-side search"),
            "{e}"
        );
        let e = run(&[
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("busy"));
        let e = run(&[json!({"type": "message_start", "message": {}})]).unwrap_err();
        assert!(e.to_string().contains("before message_stop"), "{e}");
    }
}
