//! `/web [on|off]` through the controller (every front end): the four web
//! tools leave and rejoin the requests from the next prompt on, and the
//! choice is saved as `web_search_enabled` in `$ZUT_HOME/config.json`
//! (other keys kept); bad arguments and an unreadable config.json are
//! clear errors that lose nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::{json, Value};
use zut_agent::controller::CommandOutcome;
use zut_agent::{Agent, AgentConfig, Controller};
use zut_llm_server::{LlmServer, Script};
use zut_providers::Part;
use zut_test_support::TestEnv;

fn done(r: Result<CommandOutcome, String>) -> String {
    match r {
        Ok(CommandOutcome::Done(text)) => text,
        other => panic!("{other:?}"),
    }
}

async fn offered_after_prompt(c: &Controller, server: &LlmServer) -> Vec<String> {
    server.push(Script::anthropic_text("ok"));
    c.prompt(vec![Part::Text { text: "hi".into() }], None)
        .outcome()
        .await;
    offered_tools(&server.requests().last().unwrap().body)
}

#[tokio::test]
async fn web_command_switches_the_tools_and_saves_the_setting() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let config = env.home.join("config.json");
    std::fs::write(&config, r#"{"theme": "dark"}"#).unwrap();
    let mut cfg = AgentConfig::new(&env.project, &env.home);
    cfg.builtin_tools
        .extend(zut_agent::web::TOOL_NAMES.iter().map(|s| s.to_string()));
    let agent = Agent::new(provider(&server, "anthropic", &env.home), None, cfg);
    let (c, _stream) = Controller::new(agent, None);
    let web = |names: &[String]| {
        zut_agent::web::TOOL_NAMES
            .iter()
            .filter(|t| names.contains(&t.to_string()))
            .count()
    };

    assert!(c.web_tools());
    assert!(done(c.command("web", "", None).await).starts_with("web tools on"));
    assert_eq!(web(&offered_after_prompt(&c, &server).await), 4);

    let text = done(c.command("web", "off", None).await);
    assert!(
        text.starts_with("web tools off") && text.contains("config.json"),
        "{text}"
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(saved, json!({"theme": "dark", "web_search_enabled": false}));
    assert!(!c.web_tools());
    let names = offered_after_prompt(&c, &server).await;
    assert_eq!(web(&names), 0, "{names:?}");
    assert!(names.contains(&"read".to_string()));

    let text = done(c.command("WEB", "On", None).await);
    assert!(text.starts_with("web tools on"), "{text}");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(saved["web_search_enabled"], true);
    assert_eq!(web(&offered_after_prompt(&c, &server).await), 4);

    let e = c.command("web", "maybe", None).await.unwrap_err();
    assert_eq!(e, "/web takes on or off (got \"maybe\")");

    // A config.json that is not JSON is left alone; the switch still applies.
    std::fs::write(&config, "{ not json").unwrap();
    let e = c.command("web", "off", None).await.unwrap_err();
    assert!(
        e.starts_with("web tools off for this conversation, but not saved: "),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "{ not json");
    assert_eq!(web(&offered_after_prompt(&c, &server).await), 0);
    let names: Vec<String> = c.command_list().into_iter().map(|c| c.name).collect();
    assert!(names.contains(&"web".to_string()));
}
