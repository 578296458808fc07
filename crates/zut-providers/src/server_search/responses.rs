//! The OpenAI Responses API's `web_search` tool: the request body and the
//! stream decoder of a search side request.
//!
//! The stream: `response.output_item.added`/`.done` of `web_search_call`
//! items (`status`, `action: {"type": "search", "query", "sources":
//! [{"type": "url", "url"}]}`; `status: "failed"` when the search failed),
//! `response.web_search_call.in_progress`/`searching`/`completed`, a
//! `message` item whose `output_text` deltas and
//! `response.output_text.annotation.added` events carry `url_citation`s
//! (`url`, `title`, `start_index`, `end_index` into the text), then
//! `response.completed` (or `incomplete`) with the usage; `response.failed`
//! and `error` fail the request.

use serde_json::{json, Value};

use super::{merge, no_sources, search_failed, WebSearchOutcome, WebSource};
use crate::error::{error_type_retryable, ProviderError};

/// Longest cited span kept as a snippet (characters).
const MAX_SPAN_CHARS: usize = 600;

/// The body of the side request: only the hosted `web_search` tool, the
/// sources of each search included.
pub(crate) fn body(model: &str, query: &str, instructions: &str, max_tokens: u32) -> Value {
    json!({
        "model": model,
        "stream": true,
        "store": false,
        "instructions": instructions,
        "max_output_tokens": max_tokens,
        "tools": [{"type": "web_search"}],
        "include": ["web_search_call.action.sources"],
        "input": [{
            "role": "user",
            "content": [{"type": "input_text", "text": format!("Search the web for: {query}")}],
        }],
    })
}

/// A `message` output item: its text and its annotations.
#[derive(Debug, Default)]
struct Text {
    id: String,
    text: String,
    annotations: Vec<Value>,
    done: bool,
}

/// Decodes the events of one side request.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    texts: Vec<Text>,
    sources: Vec<WebSource>,
    searches: Vec<String>,
    queries: Vec<String>,
    failed: bool,
    outcome: WebSearchOutcome,
    stopped: bool,
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

impl Decoder {
    fn text(&mut self, id: &str) -> &mut Text {
        if let Some(i) = self.texts.iter().position(|t| t.id == id) {
            return &mut self.texts[i];
        }
        self.texts.push(Text {
            id: id.to_string(),
            ..Text::default()
        });
        let last = self.texts.len() - 1;
        &mut self.texts[last]
    }

    pub(crate) fn event(&mut self, provider: &str, v: &Value) -> Result<(), ProviderError> {
        match str_of(v, "type") {
            "response.output_item.added" | "response.output_item.done" => {
                let done = str_of(v, "type") == "response.output_item.done";
                if let Some(item) = v.get("item") {
                    self.item(item, done);
                }
            }
            "response.web_search_call.in_progress"
            | "response.web_search_call.searching"
            | "response.web_search_call.completed" => {
                let id = str_of(v, "item_id");
                if !self.searches.iter().any(|s| s == id) {
                    self.searches.push(id.to_string());
                }
            }
            "response.output_text.delta" => {
                let id = str_of(v, "item_id").to_string();
                let delta = str_of(v, "delta").to_string();
                let t = self.text(&id);
                if !t.done {
                    t.text.push_str(&delta);
                }
            }
            "response.output_text.annotation.added" => {
                let id = str_of(v, "item_id").to_string();
                if let Some(a) = v.get("annotation").cloned() {
                    let t = self.text(&id);
                    if !t.done {
                        t.annotations.push(a);
                    }
                }
            }
            "response.completed" | "response.incomplete" => {
                self.stopped = true;
                if let Some(resp) = v.get("response") {
                    for item in resp
                        .get("output")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        self.item(item, true);
                    }
                    if let Some(u) = resp.get("usage") {
                        let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
                        let cached = n("/input_tokens_details/cached_tokens");
                        self.outcome.usage.input = n("/input_tokens").saturating_sub(cached);
                        self.outcome.usage.cache_read = cached;
                        self.outcome.usage.output = n("/output_tokens");
                        self.outcome.usage.reasoning = u
                            .pointer("/output_tokens_details/reasoning_tokens")
                            .and_then(Value::as_u64);
                    }
                }
            }
            "response.failed" => {
                let e = v.pointer("/response/error").unwrap_or(&Value::Null);
                return Err(api_error(provider, e, "response.failed"));
            }
            "error" => {
                let e = v.get("error").filter(|e| e.is_object()).unwrap_or(v);
                return Err(api_error(provider, e, "error"));
            }
            _ => {}
        }
        Ok(())
    }

    fn item(&mut self, item: &Value, done: bool) {
        match str_of(item, "type") {
            "web_search_call" => {
                let id = str_of(item, "id");
                if !self.searches.iter().any(|s| s == id) {
                    self.searches.push(id.to_string());
                }
                if !done {
                    return;
                }
                if str_of(item, "status") == "failed" {
                    self.failed = true;
                }
                let action = item.get("action").unwrap_or(&Value::Null);
                let query = str_of(action, "query");
                if !query.trim().is_empty() && !self.queries.iter().any(|q| q == query) {
                    self.queries.push(query.to_string());
                }
                for s in action
                    .get("sources")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    merge(
                        &mut self.sources,
                        WebSource {
                            url: str_of(s, "url").to_string(),
                            title: str_of(s, "title").to_string(),
                            snippet: String::new(),
                            page_age: None,
                        },
                    );
                }
            }
            "message" if done => {
                let id = str_of(item, "id").to_string();
                let mut text = String::new();
                let mut annotations = Vec::new();
                for part in item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if str_of(part, "type") != "output_text" {
                        continue;
                    }
                    // Annotation indices are into this part's text.
                    let offset = text.chars().count();
                    text.push_str(str_of(part, "text"));
                    for a in part
                        .get("annotations")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let mut a = a.clone();
                        for k in ["start_index", "end_index"] {
                            if let Some(n) = a.get(k).and_then(Value::as_u64) {
                                a[k] = json!(n + offset as u64);
                            }
                        }
                        annotations.push(a);
                    }
                }
                let t = self.text(&id);
                if !t.done {
                    t.text = text;
                    t.annotations = annotations;
                    t.done = true;
                }
            }
            _ => {}
        }
    }

    pub(crate) fn finish(mut self, provider: &str) -> Result<WebSearchOutcome, ProviderError> {
        if !self.stopped {
            return Err(ProviderError::Transport {
                provider: provider.to_string(),
                message: "the search stream ended before response.completed".into(),
            });
        }
        let mut sources = Vec::new();
        for t in &self.texts {
            let chars: Vec<char> = t.text.chars().collect();
            for a in &t.annotations {
                if str_of(a, "type") != "url_citation" {
                    continue;
                }
                let at = |k: &str| {
                    a.get(k)
                        .and_then(Value::as_u64)
                        .map_or(0, |n| (n as usize).min(chars.len()))
                };
                let (start, end) = (at("start_index"), at("end_index"));
                let snippet: String = if start < end {
                    chars[start..end.min(start + MAX_SPAN_CHARS)]
                        .iter()
                        .collect()
                } else {
                    String::new()
                };
                merge(
                    &mut sources,
                    WebSource {
                        url: str_of(a, "url").to_string(),
                        title: str_of(a, "title").to_string(),
                        snippet: snippet.trim().to_string(),
                        page_age: None,
                    },
                );
            }
        }
        for s in self.sources.drain(..) {
            merge(&mut sources, s);
        }
        self.outcome.answer = self
            .texts
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        if sources.is_empty() {
            if self.failed {
                return Err(search_failed(
                    provider,
                    "failed",
                    "the web_search_call failed",
                ));
            }
            return Err(no_sources(
                provider,
                !self.searches.is_empty(),
                &self.outcome.answer,
            ));
        }
        self.outcome.queries = self.queries;
        self.outcome.sources = sources;
        Ok(self.outcome)
    }
}

fn api_error(provider: &str, e: &Value, fallback: &str) -> ProviderError {
    let kind = [str_of(e, "code"), str_of(e, "type")]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or(fallback)
        .to_string();
    let message = str_of(e, "message").to_string();
    let retryable = error_type_retryable(&kind, &message);
    ProviderError::api(provider, kind, message, retryable)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn run(events: &[Value]) -> Result<WebSearchOutcome, ProviderError> {
        super::super::decode_events(super::super::ServerSearchKind::Responses, "openai", events)
    }

    #[test]
    fn sources_and_citations() {
        let text = "Tokio 1.40 is out. See the changelog.";
        let out = run(&[
            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}}),
            json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_1"}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "web_search_call", "id": "ws_1", "status": "completed",
                "action": {"type": "search", "query": "tokio release", "sources": [{"type": "url", "url": "https://tokio.rs/blog"}, {"type": "url", "url": "https://docs.rs/tokio"}]}}}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 1, "content_index": 0, "delta": text}),
            json!({"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 1, "content_index": 0, "annotation_index": 0,
                "annotation": {"type": "url_citation", "start_index": 0, "end_index": 18, "url": "https://docs.rs/tokio", "title": "tokio - Rust"}}),
            json!({"type": "response.completed", "response": {"status": "completed", "usage": {"input_tokens": 30, "input_tokens_details": {"cached_tokens": 10}, "output_tokens": 20}}}),
        ])
        .unwrap();
        assert_eq!(out.queries, ["tokio release"]);
        assert_eq!(out.sources[0].url, "https://docs.rs/tokio");
        assert_eq!(out.sources[0].title, "tokio - Rust");
        assert_eq!(out.sources[0].snippet, "Tokio 1.40 is out.");
        assert_eq!(out.sources[1].url, "https://tokio.rs/blog");
        assert_eq!(
            (out.usage.input, out.usage.cache_read, out.usage.output),
            (20, 10, 20)
        );
        assert_eq!(out.answer, text);
    }

    #[test]
    fn the_done_message_wins_over_deltas() {
        let out = run(&[
            json!({"type": "response.output_text.delta", "item_id": "m", "delta": "abc"}),
            json!({"type": "response.output_item.done", "item": {"type": "message", "id": "m", "content": [
                {"type": "output_text", "text": "one. ", "annotations": []},
                {"type": "output_text", "text": "two.", "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 4, "url": "https://x.example/", "title": "X"}]}]}}),
            json!({"type": "response.completed", "response": {}}),
        ])
        .unwrap();
        assert_eq!(out.sources.len(), 1);
        assert_eq!(out.sources[0].snippet, "two.");
        assert_eq!(out.answer, "one. two.");
    }

    #[test]
    fn failures() {
        let e = run(&[
            json!({"type": "response.output_item.done", "item": {"type": "web_search_call", "id": "ws", "status": "failed"}}),
            json!({"type": "response.completed", "response": {}}),
        ])
        .unwrap_err();
        assert!(e.to_string().contains("search failed"), "{e}");
        let e = run(&[json!({"type": "response.failed", "response": {"error": {"code": "server_error", "message": "boom"}}})]).unwrap_err();
        assert!(e.to_string().contains("boom"));
        let e = run(&[json!({"type": "response.completed", "response": {"output": [{"type": "message", "id": "m", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}]}})]).unwrap_err();
        assert!(e.to_string().contains("did not run"), "{e}");
        let e = run(&[json!({"type": "response.created"})]).unwrap_err();
        assert!(e.to_string().contains("before response.completed"));
    }
}
