//! RPC `set_model` with `<provider>/<id>` (issue 20 item 4): switches to
//! another provider with a key mid-conversation, the conversation kept;
//! a provider without a key is refused and nothing changes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::rpc_support;

use common::*;
use rpc_support::*;
use serde_json::json;
use zut_llm_server::{LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_model_switches_provider_and_keeps_the_conversation() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"openai": {"baseUrl": server.openai_base_url()}}}).to_string(),
    )
    .unwrap();
    let auth = env.home.join("auth.json");
    std::fs::write(&auth, json!({"openai": {"api_key": "sk-oa"}}).to_string()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&auth, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut rpc = Rpc::start(&env, &server, &["--no-session"], &[]);
    server.push(Script::anthropic_text("from claude"));
    let r = rpc.request(json!({"id":"p1","type":"prompt","message":"remember fig"}));
    assert_eq!(r["success"], true, "{r}");
    rpc.until(is_done);

    let r = rpc.request(json!({"id":"sm","type":"set_model","model":"openai/gpt-5-mini"}));
    assert_eq!(r["data"], json!({"model":"openai/gpt-5-mini"}), "{r}");
    let r = rpc.request(json!({"id":"st","type":"get_state"}));
    assert_eq!(r["data"]["provider"], "openai");
    assert_eq!(r["data"]["model"], "gpt-5-mini");

    server.push(Script::openai_text("from gpt"));
    let r = rpc.request(json!({"id":"p2","type":"prompt","message":"which fruit?"}));
    assert_eq!(r["success"], true, "{r}");
    rpc.until(is_done);
    let req = server.requests().into_iter().last().unwrap();
    assert!(req.path.ends_with("/chat/completions"), "{}", req.path);
    assert_eq!(req.header("authorization"), Some("Bearer sk-oa"));
    assert_eq!(req.body["model"], "gpt-5-mini");
    assert!(req.body.to_string().contains("remember fig"));

    // No key for groq: refused, nothing changed.
    let r =
        rpc.request(json!({"id":"sm2","type":"set_model","model":"groq/llama-3.3-70b-versatile"}));
    assert_eq!(r["success"], false);
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("no API key for provider groq"),
        "{r}"
    );
    let r = rpc.request(json!({"id":"st2","type":"get_state"}));
    assert_eq!(r["data"]["provider"], "openai");
    // An OpenRouter-style id of the provider in use is not a switch.
    let r = rpc.request(json!({"id":"sm3","type":"set_model","model":"gpt-4.1"}));
    assert_eq!(r["data"], json!({"model":"gpt-4.1"}), "{r}");
    assert_eq!(rpc.finish().0, 0);
}
