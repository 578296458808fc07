//! Any JSON value as a tool's input schema, mapped for Gemini: a request
//! body or a clear error, never a panic (recursive `$ref`s included).
#![no_main]

use libfuzzer_sys::fuzz_target;
use zut_providers::{Message, Provider, ProviderConfig, Reasoning, Request, ToolSpec};

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let Ok(provider) = ProviderConfig::new("google", "http://127.0.0.1:9", Some("k"), "gemini-2.5-pro")
        .and_then(Provider::new)
    else {
        return;
    };
    let req = Request {
        model: String::new(),
        system: String::new(),
        messages: vec![Message::user_text("x")],
        tools: vec![ToolSpec {
            name: "t".into(),
            description: String::new(),
            input_schema: schema.into(),
            activated_after: None,
        }],
        max_tokens: 16,
        reasoning: Reasoning::Off,
    };
    let _ = provider.try_request_body(&req);
});
