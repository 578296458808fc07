//! A jailed parent's children work under the same jail, at their own
//! directory: a worktree child writes in its worktree (outside the
//! parent's directory) and nowhere else; `/jail` state is shared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::subagents::*;
use common::*;
use serde_json::json;
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

#[tokio::test]
async fn a_jailed_parents_worktree_child_writes_in_its_worktree_only() {
    if !supported() {
        return;
    }
    let env = TestEnv::new();
    // $ZUT_HOME (where worktrees live) and the forbidden place both
    // outside the temp directories, which the jail lets anyone write.
    let zut_home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("pwned.txt");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&env.project)
            .output()
            .unwrap();
        assert!(ok.status.success(), "{ok:?}");
    };
    git(&["init", "-q"]);
    std::fs::write(env.project.join("README"), "base\n").unwrap();
    git(&["add", "README"]);
    git(&["commit", "-qm", "base"]);
    let server = LlmServer::start().await.unwrap();
    server.push(parent(Script::anthropic_tool_call(
        "c1",
        "subagent",
        json!({"action": "spawn", "task": "JAILED-WT work", "isolation": "worktree", "wait": 60})
            .to_string(),
    )));
    server.push(parent(Script::anthropic_text("jailed done")));
    let cmd = format!("echo in > b.txt; echo x > {}", target.display());
    server.push(child(
        "JAILED-WT",
        Script::anthropic_tool_call(
            "w1",
            "write",
            json!({"path": "w.txt", "content": "written\n"}).to_string(),
        ),
    ));
    server.push(child(
        "JAILED-WT",
        Script::anthropic_tool_call(
            "b1",
            "bash",
            json!({"command": cmd, "timeout": 10}).to_string(),
        ),
    ));
    server.push(child("JAILED-WT", Script::anthropic_text("child finished")));
    let mut c = llm_cmd(
        &env,
        &server.url(),
        &["--jail", "--tools", "write,bash,subagent", "-p", "go"],
    );
    c.env("ZUT_HOME", zut_home.path())
        .env("HOME", user_home(&env))
        .env_remove("ZUT_AGENT_PROFILES");
    let r = output_blocking(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("jailed done"), "{r:?}");
    let dir = std::fs::read_dir(zut_home.path().join("subagents"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let wt = dir.join("worktree");
    assert_eq!(
        std::fs::read_to_string(wt.join("w.txt")).unwrap_or_default(),
        "written\n",
        "the child's write tool was refused in its worktree: {}",
        child_tool_results(&server).join("\n---\n")
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("b.txt")).unwrap_or_default(),
        "in\n",
        "{}",
        child_tool_results(&server).join("\n---\n")
    );
    assert!(!target.exists(), "the jail let a write through");
    let results = child_tool_results(&server);
    assert!(
        results.iter().any(|r| r.contains("Permission denied")),
        "{results:?}"
    );
    assert!(!env.project.join("w.txt").exists());
}

/// The tool results the children's requests carried.
fn child_tool_results(server: &LlmServer) -> Vec<String> {
    let mut out = Vec::new();
    for r in server.requests() {
        if r.raw_body.contains(PARENT) {
            continue;
        }
        let Some(last) = r.body["messages"].as_array().and_then(|m| m.last()) else {
            continue;
        };
        for block in last["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                out.push(block["content"].to_string());
            }
        }
    }
    out
}
