//! Shared helpers: a provider pointed at a local `zut-llm-server`, short
//! retry delays, event collection.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_llm_server::LlmServer;
use zut_providers::{
    Completion, Message, Part, Provider, ProviderConfig, ProviderError, Reasoning, Request,
    RetryPolicy, Role, StreamEvent, ToolSpec,
};

/// The API key used by the tests (asserted never to leak into errors).
pub const KEY: &str = "sk-test-SECRET-0123456789";

/// Retries with millisecond backoff (a `retry-after` of up to 2 s is honoured).
pub fn fast_retry(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        base_delay: Duration::from_millis(5),
        max_delay: Duration::from_secs(2),
    }
}

/// A provider for `preset` talking to `server` (Anthropic wire: `url()`,
/// OpenAI wire: `openai_base_url()`).
pub fn provider(server: &LlmServer, preset: &str) -> Provider {
    provider_with(server, preset, Some(KEY), fast_retry(4))
}

pub fn provider_with(
    server: &LlmServer,
    preset: &str,
    key: Option<&str>,
    retry: RetryPolicy,
) -> Provider {
    let base = if preset == "anthropic" {
        server.url()
    } else {
        server.openai_base_url()
    };
    let config = ProviderConfig::new(preset, &base, key, "test-model")
        .expect("config")
        .with_retry(retry);
    Provider::new(config).expect("provider")
}

pub fn request(text: &str) -> Request {
    Request {
        model: String::new(),
        system: "You are a test.".into(),
        messages: vec![Message::user_text(text)],
        tools: Vec::new(),
        max_tokens: 1024,
        reasoning: Reasoning::Off,
    }
}

pub fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "read".into(),
        description: "Read a file".into(),
        input_schema: json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        })
        .into(),
        activated_after: None,
    }
}

/// A conversation with every part kind: user text, an assistant turn with
/// signed thinking, text and a tool call, then the tool result with a text.
pub fn conversation() -> Request {
    Request {
        model: "override-model".into(),
        system: "Be brief.".into(),
        messages: vec![
            Message::user_text("read a.txt"),
            Message {
                role: Role::Assistant,
                content: vec![
                    Part::Thinking {
                        text: "I should read it".into(),
                        signature: Some("sig-1".into()),
                    },
                    Part::Text {
                        text: "Reading.".into(),
                    },
                    Part::ToolCall {
                        id: "call_1".into(),
                        name: "read".into(),
                        args: json!({"path": "a.txt"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    Part::ToolResult {
                        call_id: "call_1".into(),
                        is_error: false,
                        content: vec![Part::Text {
                            text: "hello from a.txt".into(),
                        }],
                    },
                    Part::Text {
                        text: "and now?".into(),
                    },
                ],
            },
        ],
        tools: vec![read_tool()],
        max_tokens: 2000,
        reasoning: Reasoning::Off,
    }
}

/// Run one request, collecting its events.
pub async fn run(
    provider: &Provider,
    req: &Request,
) -> (Result<Completion, ProviderError>, Vec<StreamEvent>) {
    let cancel = CancellationToken::new();
    run_with(provider, req, &cancel).await
}

pub async fn run_with(
    provider: &Provider,
    req: &Request,
    cancel: &CancellationToken,
) -> (Result<Completion, ProviderError>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let result = provider.stream(req, cancel, &mut |e| events.push(e)).await;
    (result, events)
}

/// The concatenated text deltas.
pub fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The concatenated thinking deltas.
pub fn thinking_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ThinkingDelta(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The concatenated argument deltas of call `id`.
pub fn args_of(events: &[StreamEvent], id: &str) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseArgs { id: i, delta } if i == id => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

/// The events with deltas collapsed (one `TextDelta`/`ThinkingDelta`/
/// `ToolUseArgs` per run), for order checks.
pub fn shape(events: &[StreamEvent]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        let s = match e {
            StreamEvent::RequestStarted { attempt, .. } => format!("start#{attempt}"),
            StreamEvent::RetryScheduled { attempt, .. } => format!("retry#{attempt}"),
            StreamEvent::RateLimited { .. } => "rate_limited".into(),
            StreamEvent::AssistantStart => "assistant".into(),
            StreamEvent::TextDelta(_) => "text".into(),
            StreamEvent::ThinkingDelta(_) => "thinking".into(),
            StreamEvent::ToolUseStart { id, name } => format!("tool_start:{id}:{name}"),
            StreamEvent::ToolUseArgs { id, .. } => format!("args:{id}"),
            StreamEvent::ToolUseEnd { id } => format!("tool_end:{id}"),
        };
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}

/// A port nothing listens on.
pub fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}
