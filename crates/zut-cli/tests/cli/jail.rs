//! `--jail` and `jail_by_default` end to end: the real binary, a scripted
//! model asking `bash` to write outside the project, and `write` to do the
//! same. The refusals reach the model with the rule named.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::Value;
use zut_llm_server::{LlmServer, Script};

fn supported() -> bool {
    let s = zut_sandbox::status();
    if s.enforced() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("jail tests need Landlock: {}", s.line());
    }
    eprintln!("skipped: {}", s.line());
    false
}

fn tool_results(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_result")
        .collect()
}

#[tokio::test]
async fn jailed_tools_refuse_outside_writes_and_tell_the_model_why() {
    if !supported() {
        return;
    }
    // Outside: not under /tmp (the jail lets commands write temp files).
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("pwned.txt");
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let cmd = format!(
        r#"{{"command":"echo x > {} ; echo inside > ok.txt","timeout":10}}"#,
        target.display()
    );
    let write = format!(r#"{{"path":"{}","content":"x"}}"#, target.display());
    for flags in [vec!["--jail"], vec![]] {
        server.push(Script::anthropic_tool_call("t1", "bash", &cmd));
        server.push(Script::anthropic_tool_call("t2", "write", &write));
        server.push(Script::anthropic_text("done"));
        if flags.is_empty() {
            // The second run is jailed by config.json instead of the flag.
            std::fs::write(env.home.join("config.json"), r#"{"jail_by_default": true}"#).unwrap();
        }
        let mut args = flags.clone();
        args.extend(["--json", "go"]);
        let r = output_blocking(llm_cmd(&env, &server.url(), &args)).await;
        assert_eq!(r.code, 0, "{r:?}");
        let results = tool_results(&r.stdout);
        assert_eq!(results.len(), 2, "{}", r.stdout);
        let bash = results[0]["content"].to_string();
        assert!(bash.contains("Permission denied"), "{bash}");
        assert!(
            bash.contains(&format!(
                "write to {} denied by the jail (writable: {}",
                target.display(),
                env.project.display()
            )),
            "{bash}"
        );
        let write = results[1]["content"].to_string();
        assert_eq!(results[1]["is_error"], true);
        assert!(write.contains("denied by the jail"), "{write}");
        assert!(!target.exists(), "the jail let a write through");
        assert_eq!(
            std::fs::read_to_string(env.project.join("ok.txt")).unwrap(),
            "inside\n"
        );
    }
}
