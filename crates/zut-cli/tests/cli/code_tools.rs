//! The code tools (`glob`, `ast`, `python`, `worktree`) through real
//! `zut --json -p` turns: a scripted local LLM server calls them and the
//! tool results are read from the JSON event stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;
use zut_llm_server::{Block, Format, LlmServer, Script};

/// Runs one prompt in which the model calls `calls` (name, JSON args) in
/// one message, then answers "done"; returns the `tool_result` events in
/// order and the server (for the requests).
async fn run_calls(
    env: &TestEnv,
    calls: &[(&str, String)],
    extra: &[&str],
) -> (Vec<Value>, Run, LlmServer) {
    let server = LlmServer::start().await.unwrap();
    let blocks = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| Block::tool_call(format!("t{i}"), *name, args.clone()))
        .collect();
    server.push(Script::reply(Format::Anthropic, blocks));
    server.push(Script::anthropic_text("done"));
    let mut args = vec!["--no-ext", "--json"];
    args.extend_from_slice(extra);
    args.push("go");
    let r = output_blocking(llm_cmd(env, &server.url(), &args)).await;
    assert_eq!(r.code, 0, "{r:?}");
    let results = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "tool_result")
        .collect();
    (results, r, server)
}

fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn ok(result: &Value) -> String {
    assert_eq!(result["is_error"], false, "{result}");
    text_of(result)
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn which(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(std::env::var_os("CI").is_none(), "{name} is required in CI");
        eprintln!("{name} not found: skipping");
    }
    found
}

#[tokio::test]
async fn the_code_tools_are_advertised_with_the_go_schemas() {
    let env = TestEnv::new();
    let (_, _, server) = run_calls(&env, &[], &[]).await;
    let body: Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let tools = body["tools"].as_array().unwrap();
    let schema = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not advertised"))["input_schema"]
            .clone()
    };
    assert_eq!(schema("glob")["required"], serde_json::json!(["pattern"]));
    assert_eq!(schema("glob")["additionalProperties"], false);
    assert_eq!(
        schema("ast")["required"],
        serde_json::json!(["pattern", "path"])
    );
    assert_eq!(
        schema("python")["required"],
        serde_json::json!(["code", "timeout"])
    );
    assert_eq!(
        schema("python")["properties"]["timeout"]["maximum"],
        9_223_372_036u64
    );
    assert_eq!(
        schema("worktree")["properties"]["action"]["enum"],
        serde_json::json!(["create", "list", "cleanup"])
    );
}

#[tokio::test]
async fn tools_accepts_every_go_tool_name() {
    let env = TestEnv::new();
    let (_, r, server) = run_calls(
        &env,
        &[],
        &["--tools", "glob,ast,lsp,schedule,skill,read,update_plan"],
    )
    .await;
    assert!(
        r.stderr.contains("\"schedule\"") && r.stderr.contains("ignored"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("update_plan"), "{}", r.stderr);
    let body: Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(names.contains(&"glob") && names.contains(&"ast") && names.contains(&"read"));
    // `update_plan` selects `plan` (its seed-era name).
    assert!(names.contains(&"plan"), "{names:?}");
    assert!(
        !names.contains(&"bash") && !names.contains(&"python"),
        "{names:?}"
    );
    let server = LlmServer::start().await.unwrap();
    let r = output_blocking(llm_cmd(
        &env,
        &server.url(),
        &["--no-ext", "--tools", "nonsense", "-p", "x"],
    ))
    .await;
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("unknown built-in tool \"nonsense\""),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn glob_and_ast_search_and_rewrite() {
    let env = TestEnv::new();
    let p = &env.project;
    write(
        p,
        "app/main.py",
        "def main():\n    print(\"hi\")\n    legacy_call(1, 2)\n",
    );
    write(
        p,
        "app/util.ts",
        "export function f() { console.log(1); }\n",
    );
    write(p, "target/skip.py", "legacy_call(9, 9)\n");
    write(p, ".gitignore", "target/\n");
    let calls = [
        ("glob", r#"{"pattern":"**/*.py"}"#.to_string()),
        (
            "ast",
            r#"{"pattern":"legacy_call($A, $B)","path":"."}"#.to_string(),
        ),
        (
            "ast",
            r#"{"pattern":"console.log($$$X)","language":"typescript","path":"app"}"#.to_string(),
        ),
        (
            "ast",
            r#"{"pattern":"legacy_call($A, $B)","rewrite":"modern_call(b=$B, a=$A)","path":"app"}"#
                .to_string(),
        ),
        (
            "ast",
            r#"{"pattern":"def (","language":"python","path":"."}"#.to_string(),
        ),
    ];
    let (results, _, server) = run_calls(&env, &calls, &[]).await;
    assert_eq!(results.len(), 5);
    assert_eq!(ok(&results[0]), "app/main.py");
    assert_eq!(ok(&results[1]), "app/main.py:3: legacy_call(1, 2)");
    assert_eq!(
        ok(&results[2]),
        "app/util.ts:1: export function f() { console.log(1); }"
    );
    let diff = ok(&results[3]);
    assert!(
        diff.contains("-    legacy_call(1, 2)\n+    modern_call(b=2, a=1)"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("app/main.py")).unwrap(),
        "def main():\n    print(\"hi\")\n    modern_call(b=2, a=1)\n"
    );
    assert_eq!(results[4]["is_error"], true);
    assert!(
        text_of(&results[4]).starts_with("ast: the pattern does not parse as python"),
        "{}",
        text_of(&results[4])
    );
    // The model saw the results.
    assert!(server.requests()[1].raw_body.contains("modern_call"));
}

#[tokio::test]
async fn python_uses_the_project_venv_then_the_configured_interpreter() {
    let Some(py3) = which("python3") else { return };
    if std::env::var_os("VIRTUAL_ENV").is_some() {
        eprintln!("VIRTUAL_ENV is set: it would win over ./.venv; skipping");
        return;
    }
    let env = TestEnv::new();
    let ok_venv = Command::new(&py3)
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(&env.project)
        .status()
        .unwrap()
        .success();
    assert!(
        ok_venv || std::env::var_os("CI").is_none(),
        "python3 -m venv failed in CI"
    );
    if !ok_venv {
        eprintln!("python3 -m venv unavailable: skipping");
        return;
    }
    let code =
        r#"{"code":"import sys\nprint(sys.prefix)\nprint(repr(sys.stdin.read()))","timeout":30}"#;
    let (results, _, _) = run_calls(&env, &[("python", code.to_string())], &[]).await;
    let text = ok(&results[0]);
    let venv = env.project.join(".venv");
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(&venv.join("bin/python").display().to_string()),
        "{text}"
    );
    assert!(
        text.contains(&format!("\n{}\n''\n", venv.display())),
        "{text}"
    );
    assert!(text.ends_with("[exit 0]"), "{text}");

    // config.json python_interpreter wins over ./.venv.
    std::fs::write(
        env.home.join("config.json"),
        serde_json::json!({"python_interpreter": py3}).to_string(),
    )
    .unwrap();
    let (results, _, _) = run_calls(&env, &[("python", code.to_string())], &[]).await;
    let text = ok(&results[0]);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(&py3.display().to_string()),
        "{text}"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn worktree_create_list_and_cleanup() {
    if which("git").is_none() {
        return;
    }
    let env = TestEnv::new();
    let p = &env.project;
    git(p, &["init", "-q", "-b", "main"]);
    write(p, "README", "hi\n");
    git(p, &["add", "README"]);
    git(p, &["commit", "-q", "-m", "first"]);
    let (results, _, _) = run_calls(
        &env,
        &[
            (
                "worktree",
                r#"{"action":"create","branch":"feature"}"#.to_string(),
            ),
            ("worktree", r#"{"action":"list"}"#.to_string()),
        ],
        &[],
    )
    .await;
    let created = ok(&results[0]);
    let path = created
        .lines()
        .find_map(|l| l.strip_prefix("path: "))
        .unwrap()
        .to_string();
    assert!(
        Path::new(&path).starts_with(env.home.join("worktrees")),
        "{created}"
    );
    assert!(Path::new(&path).join("README").is_file());
    let listed = ok(&results[1]);
    assert!(
        listed.contains(&format!(
            "- {path} [feature]: clean and merged; cleanup eligible"
        )),
        "{listed}"
    );

    // Dirty: refused and untouched; clean: removed.
    write(Path::new(&path), "wip.txt", "x\n");
    let cleanup = format!(r#"{{"action":"cleanup","paths":["{path}"]}}"#);
    let (results, _, _) = run_calls(&env, &[("worktree", cleanup.clone())], &[]).await;
    assert_eq!(results[0]["is_error"], true);
    assert!(text_of(&results[0]).ends_with("cannot be removed: uncommitted changes"));
    assert!(Path::new(&path).join("wip.txt").is_file());
    std::fs::remove_file(Path::new(&path).join("wip.txt")).unwrap();
    let (results, _, _) = run_calls(&env, &[("worktree", cleanup)], &[]).await;
    assert!(ok(&results[0]).contains("removed 1 worktree"));
    assert!(!Path::new(&path).exists());
}
