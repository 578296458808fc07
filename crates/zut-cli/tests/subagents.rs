//! Subagents end to end: `zut agents list|show` over real profile files in
//! the project, `$HOME` (Go and Claude Code layouts) and
//! `ZUT_AGENT_PROFILES`, and (see below) the `subagent` tool through
//! `zut -p` against the scripted local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::*;

fn user_home(env: &TestEnv) -> PathBuf {
    let h = env.home.parent().unwrap().join("user");
    std::fs::create_dir_all(&h).unwrap();
    h
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn agents(env: &TestEnv, args: &[&str]) -> Run {
    let mut c = zut_cmd(env, &["agents"]);
    c.args(args)
        .env("HOME", user_home(env))
        .env_remove("ZUT_AGENT_PROFILES")
        .stdin(Stdio::null());
    c.output().unwrap().into()
}

#[test]
fn agents_list_and_show_read_go_and_claude_profiles_and_name_bad_files() {
    let env = TestEnv::new();
    let home = user_home(&env);
    write(
        &env.project.join(".agents/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a diff\ntools: [read, grep]\nmodel: anthropic/claude-x\nthinking: high\nsystemPromptMode: replace\n---\nYou review code.\n",
    );
    write(
        &home.join(".claude/agents/explorer.md"),
        "---\nname: explorer\ndescription: Finds things\ntools: Read, Glob, Grep, NotebookRead, Task\nmodel: haiku\ncolor: green\n---\nYou explore.\n",
    );
    write(
        &home.join(".agents/agents/broken.md"),
        "---\nname: broken\ndescription: never closed\n",
    );
    write(
        &home.join(".agents/agents/loud.md"),
        "---\nthinking: loud\n---\nbody\n",
    );
    let r = agents(&env, &["list"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("reviewer [zut]"), "{}", r.stdout);
    assert!(r.stdout.contains("  Reviews a diff"), "{}", r.stdout);
    assert!(r.stdout.contains("explorer [claude]"), "{}", r.stdout);
    assert!(
        r.stdout.contains("note: unknown key \"color\" ignored"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("note: Claude tool \"Task\" has no zut equivalent"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("skipped:"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("broken.md: frontmatter has no closing `---` line"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("loud.md: frontmatter line 2: thinking: invalid reasoning level"),
        "{}",
        r.stdout
    );

    let r = agents(&env, &["show", "reviewer"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("tools: read, grep"), "{}", r.stdout);
    assert!(
        r.stdout.contains("model: anthropic/claude-x"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("reasoning: high"), "{}", r.stdout);
    assert!(
        r.stdout.contains("system prompt mode: replace"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.ends_with("---\nYou review code.\n"),
        "{}",
        r.stdout
    );

    let r = agents(&env, &["show", "explorer"]);
    assert!(
        r.stdout.contains("tools: read, glob, grep\n"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("model:"), "{}", r.stdout);

    let r = agents(&env, &["show", "broken"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("no subagent profile named \"broken\""),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("no closing"), "{}", r.stderr);

    // ZUT_AGENT_PROFILES comes first and wins a name.
    let extra = env.project.join("extra");
    write(
        &extra.join("r.md"),
        "---\nname: reviewer\n---\nFrom the env list.\n",
    );
    let mut c = zut_cmd(&env, &["agents", "show", "reviewer"]);
    c.env("HOME", &home)
        .env("ZUT_AGENT_PROFILES", "extra")
        .stdin(Stdio::null());
    let r: Run = c.output().unwrap().into();
    assert!(r.stdout.contains("From the env list."), "{r:?}");
    let r = agents(&env, &["frobnicate"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("usage: zut agents"), "{}", r.stderr);
}

#[test]
fn agents_list_says_where_it_looked_when_empty() {
    let env = TestEnv::new();
    let r = agents(&env, &[]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("no subagent profiles found; searched:"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(".claude/agents (claude)"), "{}", r.stdout);
}
