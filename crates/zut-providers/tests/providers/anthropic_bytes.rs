//! The Anthropic body written straight to bytes (`Provider::request_bytes`,
//! what `stream` sends) is byte for byte the JSON of the body tree
//! (`Provider::try_request_body`): same keys, same order, same cache
//! breakpoints, so prompt caches see the same prefix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use zut_providers::{
    resolve, Message, Part, Provider, ProviderOptions, Reasoning, Request, Role, ToolSpec,
    REDACTED_THINKING_PREFIX,
};

fn provider(model: &str, temperature: Option<f32>) -> Provider {
    let home = tempfile::tempdir().unwrap();
    let opts = ProviderOptions {
        provider: Some("anthropic".into()),
        model: Some(model.into()),
        base_url: Some("http://127.0.0.1:9".into()),
        api_key: Some("sk-test".into()),
        ..Default::default()
    };
    let mut cfg = resolve(&opts, &|_| None, home.path()).unwrap();
    cfg.temperature = temperature;
    Provider::new(cfg).unwrap()
}

fn text(t: &str) -> Part {
    Part::Text { text: t.into() }
}

fn msg(role: Role, content: Vec<Part>) -> Message {
    Message { role, content }
}

fn history() -> Vec<Message> {
    vec![
        msg(
            Role::User,
            vec![text("hello \"quoted\" \u{1F600} \n\t\u{1}"), text("")],
        ),
        msg(
            Role::Assistant,
            vec![
                Part::Thinking {
                    text: "hmm".into(),
                    signature: Some("sig==".into()),
                },
                Part::Thinking {
                    text: String::new(),
                    signature: Some(format!("{REDACTED_THINKING_PREFIX}opaque")),
                },
                Part::Thinking {
                    text: "unsigned".into(),
                    signature: None,
                },
                Part::Thinking {
                    text: "other wire".into(),
                    signature: Some(zut_providers::responses_reasoning("rs_1", "enc")),
                },
                text("Let me look."),
                Part::ToolCall {
                    id: "c1".into(),
                    name: "read".into(),
                    args: json!({"path": "src/x.rs", "limit": 10, "a": [1, {"z": 1, "b": null}]}),
                },
                Part::ToolCall {
                    id: "c2".into(),
                    name: "bash".into(),
                    args: json!("not an object"),
                },
                Part::ToolCall {
                    id: "c3".into(),
                    name: "grep".into(),
                    args: json!({}),
                },
            ],
        ),
        msg(
            Role::User,
            vec![
                text("a note before the results"),
                Part::ToolResult {
                    call_id: "c1".into(),
                    is_error: false,
                    content: vec![
                        text("fn x() {}"),
                        text(""),
                        Part::Image {
                            mime_type: "image/png".into(),
                            data: "iVBORw0K".into(),
                        },
                    ],
                },
                Part::ToolResult {
                    call_id: "c2".into(),
                    is_error: true,
                    content: vec![text("boom")],
                },
                Part::ToolResult {
                    call_id: "c3".into(),
                    is_error: false,
                    content: vec![],
                },
                Part::Thinking {
                    text: "a user's thinking is never sent".into(),
                    signature: Some("s".into()),
                },
            ],
        ),
        msg(Role::Assistant, vec![text("")]),
        msg(
            Role::User,
            vec![Part::Image {
                mime_type: "image/jpeg".into(),
                data: "/9j/".into(),
            }],
        ),
    ]
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}).into(),
            activated_after: None,
        },
        ToolSpec {
            name: "bash".into(),
            description: "Run a command".into(),
            input_schema: json!({"type": "object"}).into(),
            activated_after: None,
        },
    ]
}

/// Whether serde_json keeps insertion order (its `preserve_order`
/// feature). It is on in a workspace build (agent-client-protocol enables
/// it) and off in `cargo test -p zut-providers`.
fn preserve_order() -> bool {
    let mut m = serde_json::Map::new();
    m.insert("b".into(), json!(1));
    m.insert("a".into(), json!(1));
    m.keys().next().map(String::as_str) == Some("b")
}

/// The bytes path writes the tree's JSON: the same value always; without
/// `preserve_order` (objects sorted) the very same bytes. With it the tree
/// keeps the order it was built in while the bytes keep sorted keys for
/// zut's own objects (the model's tool arguments keep theirs either way),
/// so only the values are compared.
fn same(p: &Provider, req: &Request, what: &str) {
    let tree = p.try_request_body(req).unwrap();
    let bytes = p.request_bytes(req).unwrap();
    let parsed: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(parsed, tree, "{what}");
    if !preserve_order() {
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            String::from_utf8(serde_json::to_vec(&tree).unwrap()).unwrap(),
            "{what}"
        );
    }
}

#[test]
fn the_bytes_are_the_trees_json() {
    let cases: Vec<(&str, Vec<Message>)> = vec![
        ("history", history()),
        ("empty", vec![]),
        ("nothing sendable", vec![msg(Role::User, vec![text("")])]),
        (
            "ends with thinking",
            vec![
                msg(Role::User, vec![text("q")]),
                msg(
                    Role::Assistant,
                    vec![Part::Thinking {
                        text: "t".into(),
                        signature: Some("s".into()),
                    }],
                ),
            ],
        ),
        (
            "last message has nothing to send",
            vec![
                msg(Role::User, vec![text("q")]),
                msg(Role::Assistant, vec![text("")]),
            ],
        ),
    ];
    for model in ["claude-sonnet-4-5", "test-model"] {
        for temperature in [None, Some(0.7)] {
            let p = provider(model, temperature);
            for reasoning in [Reasoning::Off, Reasoning::Low, Reasoning::Max] {
                for (name, messages) in &cases {
                    for (system, tools) in [("", vec![]), ("You are zut.", tools())] {
                        for max_tokens in [0, 1000, 64_000] {
                            let req = Request {
                                model: String::new(),
                                system: system.into(),
                                messages: messages.clone(),
                                tools: tools.clone(),
                                max_tokens,
                                reasoning,
                            };
                            same(
                                &p,
                                &req,
                                &format!("{model} {temperature:?} {reasoning:?} {name} {system:?} {max_tokens}"),
                            );
                        }
                    }
                }
            }
        }
    }
}
