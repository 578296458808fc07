//! Subagents end to end: `zut agents list|show` over real profile files in
//! the project, `$HOME` (Go and Claude Code layouts) and
//! `ZUT_AGENT_PROFILES`, and (see below) the `subagent` tool through
//! `zut -p` against the scripted local LLM server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::Stdio;

use common::*;

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

// ---- the `subagent` tool through `zut -p` -------------------------------

use common::subagents::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

#[tokio::test]
async fn spawn_with_wait_returns_the_childs_result_and_links_the_sessions() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "CHILD-ONE: say hello", "wait": 60}),
    )));
    server.push(parent(call("c2", json!({"action": "status"}))));
    server.push(parent(Script::anthropic_text("parent done")));
    server.push(child(
        "CHILD-ONE",
        Script::anthropic_text("hello from child one"),
    ));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent", "-p", "delegate"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("parent done"), "{r:?}");

    let results = tool_results(&server);
    assert_eq!(results.len(), 2, "{results:?}");
    let spawn = &results[0];
    assert!(spawn.starts_with("spawned sub-agent sa-1-"), "{spawn}");
    assert!(spawn.contains("workspace: shared\n"), "{spawn}");
    assert!(spawn.contains("task: CHILD-ONE: say hello\n"), "{spawn}");
    assert!(
        spawn.contains("model: test-model\nprovider: anthropic\n"),
        "{spawn}"
    );
    assert!(spawn.contains("state: completed\n"), "{spawn}");
    assert!(spawn.contains("final: hello from child one"), "{spawn}");
    let status: Value = serde_json::from_str(&results[1]).unwrap();
    assert_eq!(status["agents"][0]["state"], "completed", "{status}");
    assert_eq!(status["agents"][0]["turns"], 1, "{status}");

    // The child's request: its own fresh context, no subagent tool.
    let child_req = server
        .requests()
        .into_iter()
        .find(|r| !r.raw_body.contains(PARENT))
        .unwrap();
    let msgs = child_req.body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 1, "fresh context: {msgs:?}");
    assert!(!offered(&child_req.body).iter().any(|t| t == "subagent"));
    assert_eq!(offered(&child_req.body), vec!["read".to_string()]);

    // Its session file names the parent; the parent's file has the spawn.
    let dirs = child_dirs(&env);
    assert_eq!(dirs.len(), 1);
    let transcript = dirs[0].join("transcript.jsonl");
    let child_rows = rows(&transcript);
    let parent_path = parent_session(&env);
    let parent_rows = rows(&parent_path);
    let parent_id = parent_rows[0]["meta"]["id"].as_str().unwrap().to_string();
    let meta = &child_rows[0]["meta"];
    assert_eq!(meta["parent"], parent_id.as_str(), "{meta}");
    assert_eq!(
        meta["subagent"]["parent_path"],
        parent_path.display().to_string()
    );
    assert_eq!(meta["subagent"]["task"], "CHILD-ONE: say hello");
    assert!(child_rows
        .iter()
        .any(|r| r.to_string().contains("hello from child one")));
    let parent_text = std::fs::read_to_string(&parent_path).unwrap();
    assert!(
        parent_text.contains(&transcript.display().to_string()),
        "{parent_text}"
    );
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dirs[0].join("result.json")).unwrap())
            .unwrap();
    assert_eq!(result["state"], "completed");
    assert_eq!(result["final"], "hello from child one");
}

#[tokio::test]
async fn headless_runs_offer_the_tool_only_when_named() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let r = run_p(&env, &server, &[], &["-p", "hi"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let req = &server.requests()[0];
    assert!(!offered(&req.body).iter().any(|t| t == "subagent"));
    assert!(offered(&req.body).iter().any(|t| t == "bash"));
    // The Go selector `subagent:spawn` turns the tool on.
    server.push(Script::anthropic_text("ok"));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent:spawn", "-p", "hi"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let req = &server.requests()[1];
    assert_eq!(
        offered(&req.body),
        vec!["read".to_string(), "subagent".to_string()]
    );
}

/// Four children spawned in the background run at once (each answer is
/// delayed 2.5 s: one after the other would take 10 s), each with its
/// session file linked to the parent; with a limit of one they queue
/// (4 × 0.7 s at least).
/// `stop` ends a child mid-tool: its `bash` command's process group is
/// killed, its state is `stopped`, and the parent goes on.
#[tokio::test]
async fn stop_kills_the_childs_running_tool() {
    let env = TestEnv::new();
    let pidfile = env.project.join("child.pid");
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "SLEEPER"}),
    )));
    server.push(parent(Script::anthropic_tool_call(
        "b1",
        "bash",
        json!({"command": "for i in $(seq 100); do [ -s child.pid ] && break; sleep 0.1; done", "timeout": 20}).to_string(),
    )));
    server.push(parent(call(
        "c2",
        json!({"action": "stop", "agent_id": "sa-1"}),
    )));
    server.push(parent(call(
        "c3",
        json!({"action": "interrupt", "agent_id": "sa-1"}),
    )));
    server.push(parent(Script::anthropic_text("stopped it")));
    server.push(child(
        "SLEEPER",
        Script::anthropic_tool_call(
            "k1",
            "bash",
            json!({"command": "sleep 60 & echo $! > child.pid; wait", "timeout": 120}).to_string(),
        ),
    ));
    let started = std::time::Instant::now();
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "bash,subagent", "-p", "go"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("stopped it"), "{r:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let results = tool_results(&server);
    let stop: Value = serde_json::from_str(&results[2]).unwrap();
    assert_eq!(stop["action"], "stop_requested", "{stop}");
    assert_eq!(stop["agent"]["state"], "stopped", "{stop}");
    assert!(
        results[3].contains("has no running turn to interrupt"),
        "{}",
        results[3]
    );
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The sleep is gone (ESRCH), not orphaned.
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "the child's sleep {pid} survived the stop");
}

/// `isolation: worktree`: the child writes in a git worktree of its own
/// under its state directory; the project is untouched and the change is
/// kept as `patch.diff`.
#[tokio::test]
async fn worktree_isolation_keeps_the_project_untouched() {
    let env = TestEnv::new();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
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
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "ISOLATED: add a file", "isolation": "worktree", "wait": 60}),
    )));
    server.push(parent(Script::anthropic_text("isolated done")));
    server.push(child(
        "ISOLATED",
        Script::anthropic_tool_call(
            "w1",
            "write",
            json!({"path": "new.txt", "content": "from the child\n"}).to_string(),
        ),
    ));
    server.push(child("ISOLATED", Script::anthropic_text("wrote new.txt")));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "write,subagent", "-p", "isolate"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let results = tool_results(&server);
    assert!(
        results[0].contains("workspace: worktree\n"),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains("final: wrote new.txt"),
        "{}",
        results[0]
    );
    assert!(
        !env.project.join("new.txt").exists(),
        "the project was touched"
    );
    let dir = &child_dirs(&env)[0];
    assert_eq!(
        std::fs::read_to_string(dir.join("worktree/new.txt")).unwrap(),
        "from the child\n"
    );
    let patch = std::fs::read_to_string(dir.join("patch.diff")).unwrap();
    assert!(
        patch.contains("new.txt") && patch.contains("+from the child"),
        "{patch}"
    );
}

/// Go-format and Claude Code-format profiles shape the child (system
/// prompt, tools); unknown profiles, unknown tools and a profile that would
/// spawn children are refused with the reason.
#[tokio::test]
async fn profiles_shape_children_and_bad_ones_are_refused() {
    let env = TestEnv::new();
    let home = user_home(&env);
    write(
        &env.project.join(".agents/agents/go.md"),
        "---\nname: go-reader\ndescription: reads\ntools: [read]\nmaxTurns: 3\n---\nPROFILE-GO-BODY\n",
    );
    write(
        &home.join(".claude/agents/claude.md"),
        "---\nname: claude-reviewer\ndescription: reviews\ntools: Read, Grep\nmodel: sonnet\ncolor: red\n---\nPROFILE-CLAUDE-BODY\n",
    );
    write(
        &env.project.join(".agents/agents/loop.md"),
        "---\nname: looper\ntools: [read, subagent]\n---\nI spawn.\n",
    );
    write(
        &env.project.join(".agents/agents/odd.md"),
        "---\nname: odd\ntools: [read, frobnicate]\n---\nOdd.\n",
    );
    write(
        &env.project.join(".agents/agents/future.md"),
        "---\nname: future\nmodel: gpt-9\n---\nFuture.\n",
    );
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "T-GO", "agent": "go-reader", "wait": 60}),
    )));
    server.push(parent(call(
        "c2",
        json!({"action": "spawn", "task": "T-CLAUDE", "agent": "claude-reviewer", "wait": 60}),
    )));
    server.push(parent(call(
        "c3",
        json!({"action": "spawn", "task": "x", "agent": "nope"}),
    )));
    server.push(parent(call(
        "c4",
        json!({"action": "spawn", "task": "x", "agent": "looper"}),
    )));
    server.push(parent(call(
        "c5",
        json!({"action": "spawn", "task": "x", "agent": "odd"}),
    )));
    server.push(parent(call("c6", json!({"action": "status", "task": "x"}))));
    server.push(parent(call(
        "c7",
        json!({"action": "spawn", "task": "x", "model": "m"}),
    )));
    server.push(parent(call(
        "c8",
        json!({"action": "spawn", "task": "x", "agent": "future"}),
    )));
    server.push(parent(Script::anthropic_text("profiles done")));
    server.push(child(
        "PROFILE-GO-BODY",
        Script::anthropic_text("go child ok"),
    ));
    server.push(child(
        "PROFILE-CLAUDE-BODY",
        Script::anthropic_text("claude child ok"),
    ));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,grep,bash,subagent", "-p", "profiles"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let results = tool_results(&server);
    assert_eq!(results.len(), 8, "{results:?}");
    assert!(results[0].contains("agent: go-reader\n"), "{}", results[0]);
    assert!(results[0].contains("final: go child ok"), "{}", results[0]);
    assert!(
        results[1].contains("agent: claude-reviewer\n"),
        "{}",
        results[1]
    );
    assert!(
        results[1].contains("final: claude child ok"),
        "{}",
        results[1]
    );
    assert_eq!(results[2], "subagent: unknown subagent profile nope");
    assert!(
        results[3].contains("children cannot spawn (depth limit 1)"),
        "{}",
        results[3]
    );
    assert!(
        results[4].contains("names unknown tool \"frobnicate\""),
        "{}",
        results[4]
    );
    assert_eq!(
        results[5],
        "subagent: task is not valid for action status; it belongs to action spawn"
    );
    assert!(
        results[6].contains("omit both model/provider"),
        "{}",
        results[6]
    );
    assert!(
        results[7].starts_with("subagent: unknown model \"gpt-9\" for provider anthropic"),
        "{}",
        results[7]
    );

    let reqs = server.requests();
    let go = reqs
        .iter()
        .find(|r| r.raw_body.contains("PROFILE-GO-BODY") && !r.raw_body.contains(PARENT))
        .unwrap();
    assert_eq!(offered(&go.body), vec!["read".to_string()]);
    let claude = reqs
        .iter()
        .find(|r| r.raw_body.contains("PROFILE-CLAUDE-BODY") && !r.raw_body.contains(PARENT))
        .unwrap();
    assert_eq!(
        offered(&claude.body),
        vec!["read".to_string(), "grep".to_string()]
    );
    // The parent's tool description lists the usable profiles.
    let first = &reqs[0].body;
    let desc = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "subagent")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(desc.contains("- go-reader [tools=read]: reads"), "{desc}");
    assert!(
        desc.contains("- claude-reviewer [tools=read,grep]: reviews"),
        "{desc}"
    );
}

/// `resume` continues a child with its history; a child whose stream fails
/// is `failed` with the provider's error; a child past its time budget is
/// cancelled and `failed`; the parent goes on in every case.
#[tokio::test]
async fn resume_failures_and_time_budget() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "CHILD-R first", "wait": 60}),
    )));
    server.push(parent(call(
        "c2",
        json!({"action": "message", "agent_id": "sa-1", "prompt": "FOLLOW-UP now", "wait": 60}),
    )));
    server.push(parent(call(
        "c3",
        json!({"action": "spawn", "task": "CHILD-CRASH", "wait": 60}),
    )));
    server.push(parent(call(
        "c4",
        json!({"action": "spawn", "task": "CHILD-SLOW", "wait": 60, "timeout": 1}),
    )));
    server.push(parent(Script::anthropic_text("parent still fine")));
    server.push(child("CHILD-R", Script::anthropic_text("first answer")));
    server.push(child("FOLLOW-UP", Script::anthropic_text("second answer")));
    server.push(child(
        "CHILD-CRASH",
        Script::anthropic_error_event("invalid_request_error", "the stream broke"),
    ));
    server.push(child("CHILD-SLOW", Script::hang()));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent", "-p", "go"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("parent still fine"), "{r:?}");
    let results = tool_results(&server);
    assert_eq!(results.len(), 4, "{results:?}");
    let resumed: Value = serde_json::from_str(&results[1]).unwrap();
    assert_eq!(resumed["action"], "resumed", "{resumed}");
    assert_eq!(resumed["mode"], "steer", "{resumed}");
    assert_eq!(resumed["wait"], "settled", "{resumed}");
    assert_eq!(resumed["agent"]["result"], "second answer", "{resumed}");
    assert_eq!(resumed["agent"]["turns"], 2, "{resumed}");
    // The follow-up request carries the first turn.
    let follow = server
        .requests()
        .into_iter()
        .find(|r| r.raw_body.contains("FOLLOW-UP") && !r.raw_body.contains(PARENT))
        .unwrap();
    assert!(follow.raw_body.contains("first answer"));
    assert!(results[2].contains("state: failed\n"), "{}", results[2]);
    assert!(results[2].contains("the stream broke"), "{}", results[2]);
    assert!(results[3].contains("state: failed\n"), "{}", results[3]);
    assert!(
        results[3].contains("error: time budget of 1 s exceeded"),
        "{}",
        results[3]
    );
}

fn edit(id: &str, old: &str, new: &str) -> Script {
    Script::anthropic_tool_call(
        id,
        "edit",
        json!({"path": "shared.txt", "edits": [{"oldText": old, "newText": new}]}).to_string(),
    )
}

/// Three children edit one file in the shared workspace at once: the two
/// disjoint edits both land, and the one whose text the first already
/// changed fails with the edit tool's "changed since you read it" message —
/// never a silent overwrite.
#[tokio::test]
async fn children_editing_one_file_never_overwrite_each_other() {
    let env = TestEnv::new();
    std::fs::write(env.project.join("shared.txt"), "alpha\nbeta\ngamma\n").unwrap();
    let server = LlmServer::start().await.unwrap();
    let spawns: Vec<zut_llm_server::Block> = ["EDIT-A", "EDIT-B", "EDIT-C"]
        .iter()
        .map(|t| {
            zut_llm_server::Block::tool_call(
                format!("s-{t}"),
                "subagent",
                json!({"action": "spawn", "task": t}).to_string(),
            )
        })
        .collect();
    server.push(parent(Script::reply(
        zut_llm_server::Format::Anthropic,
        spawns,
    )));
    server.push(parent(call("w", json!({"action": "wait", "wait": 60}))));
    server.push(parent(Script::anthropic_text("edits done")));
    server.push(child("EDIT-A", edit("a1", "alpha", "ALPHA")));
    server.push(child("EDIT-B", edit("b1", "gamma", "GAMMA")));
    // C runs after A's change (it waits for a slot): "alpha\nbeta" is gone.
    server.push(child("EDIT-C", edit("c1", "alpha\nbeta", "x")).delay_ms(1500));
    for t in ["EDIT-A", "EDIT-B", "EDIT-C"] {
        server.push(child(t, Script::anthropic_text(format!("{t} finished"))).when("tool_result"));
    }
    let r = run_p(
        &env,
        &server,
        &[("ZUT_SUBAGENTS_MAX_CONCURRENT", "3")],
        &["--tools", "edit,subagent", "-p", "edit together"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let text = std::fs::read_to_string(env.project.join("shared.txt")).unwrap();
    assert_eq!(text, "ALPHA\nbeta\nGAMMA\n");
    let c = server
        .requests()
        .into_iter()
        .find(|r| {
            !r.raw_body.contains(PARENT)
                && r.raw_body.contains("EDIT-C")
                && r.raw_body.contains("tool_result")
        })
        .unwrap();
    assert!(
        c.raw_body.contains("may have changed since you read it"),
        "{}",
        c.raw_body
    );
}

/// The parent exits while its child is mid-request; the next run of the
/// same session (`-c`) lists the child as interrupted and resumable, and
/// `resume` brings it back with its history.
#[tokio::test]
async fn a_resumed_parent_sees_interrupted_children_and_resumes_them() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(parent(call(
        "c1",
        json!({"action": "spawn", "task": "LONG-CHILD task"}),
    )));
    server.push(parent(Script::anthropic_text("leaving now")));
    server.push(child("LONG-CHILD", Script::hang()));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent", "-p", "start"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    let dir = child_dirs(&env)[0].clone();
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
    assert_eq!(result["state"], "running", "{result}");

    let before = server.requests().len();
    server.push(parent(call("c2", json!({"action": "status"}))));
    server.push(parent(call(
        "c3",
        json!({"action": "resume", "agent_id": "sa-1", "prompt": "AGAIN please", "wait": 60}),
    )));
    server.push(parent(Script::anthropic_text("resumed it")));
    server.push(child("AGAIN please", Script::anthropic_text("back again")));
    let r = run_p(
        &env,
        &server,
        &[],
        &["--tools", "read,subagent", "-c", "-p", "continue"],
    )
    .await;
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("resumed it"), "{r:?}");
    let results: Vec<String> = tool_results(&server);
    let n = results.len();
    let status: Value = serde_json::from_str(&results[n - 2]).unwrap();
    let prev = &status["previous_run"][0];
    assert_eq!(prev["state"], "interrupted", "{status}");
    assert_eq!(prev["resumable"], true, "{status}");
    assert_eq!(prev["task"], "LONG-CHILD task", "{status}");
    let resumed: Value = serde_json::from_str(&results[n - 1]).unwrap();
    assert_eq!(resumed["wait"], "settled", "{resumed}");
    assert_eq!(resumed["agent"]["result"], "back again", "{resumed}");
    // The child's new request carries its first task (history restored).
    let again = server.requests()[before..]
        .iter()
        .find(|r| !r.raw_body.contains(PARENT))
        .unwrap()
        .raw_body
        .clone();
    assert!(
        again.contains("LONG-CHILD task") && again.contains("AGAIN please"),
        "{again}"
    );
}
