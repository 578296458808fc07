//! A jailed parent's children work under the same jail, at their own
//! directory: a worktree child writes in its worktree (outside the
//! parent's directory) and nowhere else; `/jail` state is shared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

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

/// A project outside the temporary directories (which every jail lets
/// write) with a profile of `sandbox: <mode>`, and a place outside it.
fn project_with_profile(mode: &str) -> (tempfile::TempDir, tempfile::TempDir) {
    let project = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let profiles = project.path().join(".agents/agents");
    std::fs::create_dir_all(&profiles).unwrap();
    std::fs::write(
        profiles.join("narrow.md"),
        format!("---\nname: narrow\nsandbox: {mode}\n---\nYou work carefully.\n"),
    )
    .unwrap();
    std::fs::write(project.path().join("README"), "readable\n").unwrap();
    (project, outside)
}

/// The parent is not jailed; the child's profile says `sandbox:
/// read-only`: it reads, but neither the write tool nor a command can
/// write in the project (or anywhere but the temporary directories).
#[tokio::test]
async fn a_read_only_profile_narrows_an_unjailed_parent() {
    if !supported() {
        return;
    }
    let env = TestEnv::new();
    let (project, outside) = project_with_profile("read-only");
    let server = LlmServer::start().await.unwrap();
    server.push(parent(Script::anthropic_tool_call(
        "c1",
        "subagent",
        json!({"action": "spawn", "task": "RO-CHILD work", "agent": "narrow", "wait": 60})
            .to_string(),
    )));
    server.push(parent(Script::anthropic_text("read-only done")));
    server.push(child(
        "RO-CHILD",
        Script::anthropic_tool_call(
            "w1",
            "write",
            json!({"path": "w.txt", "content": "written\n"}).to_string(),
        ),
    ));
    let cmd = format!(
        "cat README; echo in > b.txt; echo x > {}/pwned.txt",
        outside.path().display()
    );
    server.push(child(
        "RO-CHILD",
        Script::anthropic_tool_call(
            "b1",
            "bash",
            json!({"command": cmd, "timeout": 10}).to_string(),
        ),
    ));
    server.push(child("RO-CHILD", Script::anthropic_text("child finished")));
    let mut c = llm_cmd(
        &env,
        &server.url(),
        &["--tools", "write,bash,subagent", "-p", "go"],
    );
    c.current_dir(project.path())
        .env("HOME", user_home(&env))
        .env_remove("ZUT_AGENT_PROFILES");
    let r = output_blocking(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("read-only done"), "{r:?}");
    let results = child_tool_results(&server);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].contains("read-only jail"), "{results:?}");
    assert!(results[1].contains("readable"), "{results:?}");
    assert!(results[1].contains("Permission denied"), "{results:?}");
    assert!(!project.path().join("w.txt").exists());
    assert!(!project.path().join("b.txt").exists());
    assert!(!outside.path().join("pwned.txt").exists());
}

/// The parent is jailed; the child's profile asks for `sandbox: off`: it
/// gets the parent's jail, and the spawn's answer says so.
#[tokio::test]
async fn a_profile_asking_for_more_gets_the_parents_jail() {
    if !supported() {
        return;
    }
    let env = TestEnv::new();
    let (project, outside) = project_with_profile("off");
    let server = LlmServer::start().await.unwrap();
    server.push(parent(Script::anthropic_tool_call(
        "c1",
        "subagent",
        json!({"action": "spawn", "task": "OFF-CHILD work", "agent": "narrow", "wait": 60})
            .to_string(),
    )));
    server.push(parent(Script::anthropic_text("off done")));
    let cmd = format!(
        "echo in > b.txt; echo x > {}/pwned.txt",
        outside.path().display()
    );
    server.push(child(
        "OFF-CHILD",
        Script::anthropic_tool_call(
            "b1",
            "bash",
            json!({"command": cmd, "timeout": 10}).to_string(),
        ),
    ));
    server.push(child("OFF-CHILD", Script::anthropic_text("child finished")));
    let mut c = llm_cmd(
        &env,
        &server.url(),
        &["--jail", "--tools", "bash,subagent", "-p", "go"],
    );
    c.current_dir(project.path())
        .env("HOME", user_home(&env))
        .env_remove("ZUT_AGENT_PROFILES");
    let r = output_blocking(c).await;
    assert_eq!(r.code, 0, "{r:?}");
    let parent_results = tool_results(&server);
    assert!(
        parent_results[0].contains("never gets more than its parent"),
        "{parent_results:?}"
    );
    let results = child_tool_results(&server);
    assert!(results[0].contains("Permission denied"), "{results:?}");
    assert_eq!(
        std::fs::read_to_string(project.path().join("b.txt")).unwrap_or_default(),
        "in\n",
        "the parent's jail lets the child write in the project"
    );
    assert!(!outside.path().join("pwned.txt").exists());
}
