//! Scripted server-side web searches, rendered from the providers' public
//! documentation:
//!
//! - Anthropic Messages with the `web_search` server tool: a
//!   `server_tool_use` block (`input: {}` then the query as
//!   `input_json_delta`), a `web_search_tool_result` block (the results,
//!   each `web_search_result` with `url`, `title`, `encrypted_content`,
//!   `page_age`; or a `web_search_tool_result_error` with `error_code`),
//!   then text blocks whose `citations_delta`s carry
//!   `web_search_result_location` citations, `message_delta` with
//!   `usage.server_tool_use.web_search_requests`, `message_stop`.
//! - OpenAI Responses with the `web_search` tool: a `web_search_call`
//!   output item (`in_progress`, `searching`, `completed` events; done with
//!   `action: {"type": "search", "query", "sources"}` or `status: "failed"`),
//!   a `message` item whose text deltas are followed by
//!   `response.output_text.annotation.added` `url_citation`s (character
//!   offsets into the text), `response.completed` with the usage.
//!
//! Both are explicit frames ([`crate::Body::Events`]), so they serialise in
//! the binary's JSON script form like any hand-written stream.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::script::{Script, SseFrame};

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebResult {
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// Anthropic `page_age`.
    #[serde(default)]
    pub page_age: Option<String>,
}

/// A citation of a result in the model's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Citation {
    /// Cited URL.
    pub url: String,
    /// Its title.
    pub title: String,
    /// The cited text (Anthropic `cited_text`; on Responses the text the
    /// `url_citation` spans, added to the reply text when absent).
    pub cited_text: String,
}

/// A scripted server-side web search and the model's reply around it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WebSearchReply {
    /// The query the model searched for.
    pub query: String,
    /// What the search found.
    #[serde(default)]
    pub results: Vec<WebResult>,
    /// The model's text after the search.
    #[serde(default)]
    pub text: String,
    /// Citations in that text.
    #[serde(default)]
    pub citations: Vec<Citation>,
    /// A failed search: the Anthropic `error_code` (`too_many_requests`,
    /// `max_uses_exceeded`, `query_too_long`, `invalid_input`,
    /// `unavailable`); on Responses the call ends with `status: "failed"`.
    #[serde(default)]
    pub error_code: Option<String>,
}

impl WebSearchReply {
    /// A search for `query` that found `results` (`(url, title)`).
    pub fn new(query: impl Into<String>, results: &[(&str, &str)]) -> Self {
        Self {
            query: query.into(),
            results: results
                .iter()
                .map(|(url, title)| WebResult {
                    url: url.to_string(),
                    title: title.to_string(),
                    page_age: None,
                })
                .collect(),
            ..Self::default()
        }
    }

    /// Adds the model's text.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self
    }

    /// Adds a citation.
    pub fn cite(mut self, url: &str, title: &str, cited_text: &str) -> Self {
        self.citations.push(Citation {
            url: url.into(),
            title: title.into(),
            cited_text: cited_text.into(),
        });
        self
    }

    /// Makes the search fail with `code`.
    pub fn failed(mut self, code: impl Into<String>) -> Self {
        self.error_code = Some(code.into());
        self
    }
}

fn named(data: Value) -> SseFrame {
    let kind = data["type"].as_str().unwrap_or("").to_string();
    SseFrame::named(kind, data.to_string())
}

/// The Anthropic frames of `reply`.
pub fn anthropic_frames(reply: &WebSearchReply) -> Vec<SseFrame> {
    let mut f = vec![
        named(json!({"type": "message_start", "message": {
            "id": "msg_web_search", "type": "message", "role": "assistant", "model": "scripted",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 20, "output_tokens": 1}}})),
        named(json!({"type": "ping"})),
        named(
            json!({"type": "content_block_start", "index": 0, "content_block": {
            "type": "server_tool_use", "id": "srvtoolu_scripted", "name": "web_search", "input": {}}}),
        ),
        named(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}}),
        ),
    ];
    let input = json!({"query": reply.query}).to_string();
    let mid = input.len() / 2;
    let mid = (mid..input.len())
        .find(|&i| input.is_char_boundary(i))
        .unwrap_or(input.len());
    for piece in [&input[..mid], &input[mid..]] {
        f.push(named(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}})));
    }
    f.push(named(json!({"type": "content_block_stop", "index": 0})));
    let content = match &reply.error_code {
        Some(code) => json!({"type": "web_search_tool_result_error", "error_code": code}),
        None => Value::Array(
            reply
                .results
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let mut v = json!({"type": "web_search_result", "url": r.url, "title": r.title,
                        "encrypted_content": format!("enc-{i}")});
                    if let Some(age) = &r.page_age {
                        v["page_age"] = json!(age);
                    }
                    v
                })
                .collect(),
        ),
    };
    f.push(named(
        json!({"type": "content_block_start", "index": 1, "content_block": {
        "type": "web_search_tool_result", "tool_use_id": "srvtoolu_scripted", "content": content}}),
    ));
    f.push(named(json!({"type": "content_block_stop", "index": 1})));
    let mut index = 2;
    if !reply.text.is_empty() {
        f.push(named(json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
        f.push(named(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": reply.text}})));
        f.push(named(json!({"type": "content_block_stop", "index": index})));
        index += 1;
    }
    for (i, c) in reply.citations.iter().enumerate() {
        f.push(named(json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": "", "citations": []}})));
        f.push(named(json!({"type": "content_block_delta", "index": index, "delta": {"type": "citations_delta", "citation": {
            "type": "web_search_result_location", "url": c.url, "title": c.title,
            "cited_text": c.cited_text, "encrypted_index": format!("idx-{i}")}}})));
        f.push(named(json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": c.cited_text}})));
        f.push(named(json!({"type": "content_block_stop", "index": index})));
        index += 1;
    }
    f.push(named(
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 30, "server_tool_use": {"web_search_requests": 1}}}),
    ));
    f.push(named(json!({"type": "message_stop"})));
    f
}

/// The Responses frames of `reply`.
pub fn responses_frames(reply: &WebSearchReply) -> Vec<SseFrame> {
    let mut out: Vec<Value> = Vec::new();
    let response = |status: &str, output: Value, usage: Value| {
        json!({"id": "resp_web_search", "object": "response", "status": status, "model": "scripted",
            "output": output, "usage": usage})
    };
    out.push(json!({"type": "response.created", "response": response("in_progress", json!([]), Value::Null)}));
    out.push(json!({"type": "response.in_progress", "response": response("in_progress", json!([]), Value::Null)}));
    out.push(
        json!({"type": "response.output_item.added", "output_index": 0,
        "item": {"type": "web_search_call", "id": "ws_scripted", "status": "in_progress"}}),
    );
    out.push(json!({"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_scripted"}));
    out.push(json!({"type": "response.web_search_call.searching", "output_index": 0, "item_id": "ws_scripted"}));
    let call = if reply.error_code.is_some() {
        json!({"type": "web_search_call", "id": "ws_scripted", "status": "failed",
            "action": {"type": "search", "query": reply.query}})
    } else {
        out.push(json!({"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_scripted"}));
        let sources: Vec<Value> = reply
            .results
            .iter()
            .map(|r| json!({"type": "url", "url": r.url}))
            .collect();
        json!({"type": "web_search_call", "id": "ws_scripted", "status": "completed",
            "action": {"type": "search", "query": reply.query, "sources": sources}})
    };
    out.push(json!({"type": "response.output_item.done", "output_index": 0, "item": call}));
    let mut output = vec![call];
    // The text, with every cited span present.
    let mut text = reply.text.clone();
    let mut annotations = Vec::new();
    for c in &reply.citations {
        if !text.contains(&c.cited_text) {
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&c.cited_text);
        }
        let Some(byte) = text.find(&c.cited_text) else {
            continue;
        };
        let start = text[..byte].chars().count();
        let end = start + c.cited_text.chars().count();
        annotations.push(
            json!({"type": "url_citation", "start_index": start, "end_index": end,
            "url": c.url, "title": c.title}),
        );
    }
    if !text.is_empty() {
        let item = "msg_web_search";
        out.push(json!({"type": "response.output_item.added", "output_index": 1,
            "item": {"type": "message", "id": item, "status": "in_progress", "role": "assistant", "content": []}}));
        out.push(json!({"type": "response.content_part.added", "item_id": item, "output_index": 1, "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}));
        out.push(json!({"type": "response.output_text.delta", "item_id": item, "output_index": 1, "content_index": 0, "delta": text}));
        for (i, a) in annotations.iter().enumerate() {
            out.push(json!({"type": "response.output_text.annotation.added", "item_id": item, "output_index": 1,
                "content_index": 0, "annotation_index": i, "annotation": a}));
        }
        let part = json!({"type": "output_text", "text": text, "annotations": annotations});
        out.push(json!({"type": "response.output_text.done", "item_id": item, "output_index": 1, "content_index": 0, "text": text}));
        out.push(json!({"type": "response.content_part.done", "item_id": item, "output_index": 1, "content_index": 0, "part": part}));
        let message = json!({"type": "message", "id": item, "status": "completed", "role": "assistant", "content": [part]});
        out.push(json!({"type": "response.output_item.done", "output_index": 1, "item": message}));
        output.push(message);
    }
    let usage = json!({"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 30, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 50});
    out.push(json!({"type": "response.completed", "response": response("completed", Value::Array(output), usage)}));
    out.into_iter()
        .enumerate()
        .map(|(i, mut v)| {
            v["sequence_number"] = json!(i);
            named(v)
        })
        .collect()
}

impl Script {
    /// An Anthropic Messages stream of a `web_search` server-tool search.
    pub fn anthropic_web_search(reply: WebSearchReply) -> Self {
        Self::events(anthropic_frames(&reply))
    }

    /// An OpenAI Responses stream of a `web_search` tool search.
    pub fn responses_web_search(reply: WebSearchReply) -> Self {
        Self::events(responses_frames(&reply))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn data(f: &[SseFrame]) -> Vec<Value> {
        f.iter()
            .map(|f| serde_json::from_str(&f.data).unwrap())
            .collect()
    }

    #[test]
    fn frames_follow_the_documented_shapes() {
        let reply = WebSearchReply::new("rust async", &[("https://a.example/", "A")])
            .text("Found it.")
            .cite("https://a.example/", "A", "A is é fast");
        let a = data(&anthropic_frames(&reply));
        assert_eq!(a[2]["content_block"]["type"], "server_tool_use");
        let query: String = a[3..6]
            .iter()
            .map(|v| v["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(query, r#"{"query":"rust async"}"#);
        assert_eq!(
            a[7]["content_block"]["content"][0]["url"],
            "https://a.example/"
        );
        assert!(a.iter().any(|v| v["delta"]["type"] == "citations_delta"));
        assert_eq!(a.last().unwrap()["type"], "message_stop");

        let r = data(&responses_frames(&reply));
        let ann = r
            .iter()
            .find(|v| v["type"] == "response.output_text.annotation.added")
            .unwrap();
        assert_eq!(ann["annotation"]["start_index"], 10);
        assert_eq!(ann["annotation"]["end_index"], 21);
        for (i, v) in r.iter().enumerate() {
            assert_eq!(v["sequence_number"], i);
        }
        let failed = data(&responses_frames(&reply.clone().failed("x")));
        assert!(failed.iter().any(|v| v["item"]["status"] == "failed"));
    }
}
