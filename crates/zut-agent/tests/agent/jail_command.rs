//! `/jail` and `/unjail` through the controller (every front end runs
//! them): the session's jail switch flips, the next `bash` call is
//! confined by the kernel (a write outside the project is refused and the
//! model told why), and `/unjail` lets the same call through.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::*;
use zut_agent::controller::CommandOutcome;
use zut_agent::{AgentConfig, AgentEvent, Controller, ControllerEvent, EventStream};
use zut_llm_server::{LlmServer, Script};
use zut_providers::Part;
use zut_test_support::TestEnv;

/// The tool results of the next finished job.
async fn tool_results(stream: &mut EventStream) -> Vec<String> {
    let mut out = Vec::new();
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(20), stream.next())
            .await
            .expect("stream stalled")
            .expect("stream ended");
        match ev {
            ControllerEvent::Agent(AgentEvent::ToolResult { content, .. }) => {
                out.push(serde_json::to_string(&content).unwrap());
            }
            ControllerEvent::JobFinished { .. } => return out,
            _ => {}
        }
    }
}

fn done(r: Result<CommandOutcome, String>) -> String {
    match r {
        Ok(CommandOutcome::Done(text)) => text,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn jail_and_unjail_switch_the_next_tool_calls() {
    let status = zut_sandbox::status();
    if !status.enforced() {
        assert!(
            std::env::var_os("CI").is_none(),
            "jail tests need Landlock: {}",
            status.line()
        );
        eprintln!("skipped: {}", status.line());
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // Outside the project and not under /tmp (the jail lets commands
    // write temp files).
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("pwned.txt");
    let cmd =
        serde_json::json!({"command": format!("echo x > {}", target.display()), "timeout": 10})
            .to_string();
    for _ in 0..2 {
        server.push(Script::anthropic_tool_call("t1", "bash", &cmd));
        server.push(Script::anthropic_text("done"));
    }
    let mut cfg = AgentConfig::new(&env.project, &env.home);
    let spec = zut_sandbox::JailSpec {
        cwd: env.project.clone(),
        home: Some(env.home.clone()),
        zut_home: Some(env.home.clone()),
        ..Default::default()
    };
    cfg.jail = zut_tools::JailSwitch::new(spec, false);
    let switch = cfg.jail.clone();
    let agent = zut_agent::Agent::new(provider(&server, "anthropic", &env.home), None, cfg);
    let (c, mut stream) = Controller::new(agent, None);
    assert!(!c.jail().on);
    assert_eq!(c.jail().describe, "unjailed");

    // A bad argument changes nothing.
    let e = c.command("jail", "now", None).await.unwrap_err();
    assert!(e.contains("/jail takes no argument"), "{e}");
    assert!(!switch.is_jailed());

    let text = done(c.command("JAIL", "", None).await);
    assert!(
        text.starts_with(&format!("jailed to {}", env.project.display())),
        "{text}"
    );
    assert!(switch.is_jailed() && c.jail().on);
    c.prompt(vec![Part::Text { text: "go".into() }], None);
    let results = tool_results(&mut stream).await;
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].contains(&format!("write to {} denied by the jail", target.display())),
        "{}",
        results[0]
    );
    assert!(!target.exists(), "the jail let a write through");

    let text = done(c.command("/unjail", "", None).await);
    assert_eq!(text, "unjailed: tools run with your privileges");
    assert!(!switch.is_jailed());
    c.prompt(
        vec![Part::Text {
            text: "again".into(),
        }],
        None,
    );
    let results = tool_results(&mut stream).await;
    assert_eq!(results.len(), 1);
    assert!(!results[0].contains("denied"), "{}", results[0]);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x\n");
    // Both are listed for front ends (ACP's available commands, RPC).
    let names: Vec<String> = c.command_list().into_iter().map(|e| e.name).collect();
    assert!(names.contains(&"jail".to_string()) && names.contains(&"unjail".to_string()));
    c.shutdown().await;
}
