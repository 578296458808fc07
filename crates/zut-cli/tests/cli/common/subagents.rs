//! Helpers of the subagent tests: the scripted server answers the parent
//! (whose requests offer the `subagent` tool) and the children (whose
//! requests never do) differently.
#![allow(dead_code, unused_imports, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use zut_llm_server::{LlmServer, Script};

use super::{llm_cmd, output_blocking, Run, TestEnv};

/// A `$HOME` for the run next to its `ZUT_HOME` (profiles in `~/.agents`,
/// `~/.claude`).
pub fn user_home(env: &TestEnv) -> PathBuf {
    let h = env.home.parent().unwrap().join("user");
    std::fs::create_dir_all(&h).unwrap();
    h
}

/// In a request body: the parent offers the `subagent` tool, children never do.
pub const PARENT: &str = r#""name":"subagent""#;

pub fn parent(s: Script) -> Script {
    s.when(PARENT)
}

/// A child's script: a request without the subagent tool that mentions `marker`.
pub fn child(marker: &str, s: Script) -> Script {
    s.unless(PARENT).when(marker)
}

pub fn call(id: &str, args: Value) -> Script {
    Script::anthropic_tool_call(id, "subagent", args.to_string())
}

pub async fn run_p(
    env: &TestEnv,
    server: &LlmServer,
    extra_env: &[(&str, &str)],
    args: &[&str],
) -> Run {
    let mut c = llm_cmd(env, &server.url(), args);
    c.env("HOME", user_home(env))
        .env_remove("ZUT_AGENT_PROFILES");
    for (k, v) in extra_env {
        c.env(k, v);
    }
    output_blocking(c).await
}

/// The state directories of the children, sorted by id number.
pub fn child_dirs(env: &TestEnv) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(env.home.join("subagents"))
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    dirs.sort_by_key(|d| {
        d.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.split('-').nth(1))
            .and_then(|n| n.parse::<u32>().ok())
            .unwrap_or(0)
    });
    dirs
}

pub fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub fn parent_session(env: &TestEnv) -> PathBuf {
    let dir = zut_session::sessions_dir(&env.home, &env.project.display().to_string());
    let files = zut_session::list_files(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The tool-result texts the parent's requests carried, in order.
pub fn tool_results(server: &LlmServer) -> Vec<String> {
    let mut out = Vec::new();
    for r in server.requests() {
        if !r.raw_body.contains(PARENT) {
            continue;
        }
        let Some(last) = r.body["messages"].as_array().and_then(|m| m.last()) else {
            continue;
        };
        for block in last["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                let text = block["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("");
                let text = if text.is_empty() {
                    block["content"].as_str().unwrap_or_default().to_string()
                } else {
                    text
                };
                out.push(text);
            }
        }
    }
    out
}

pub fn offered(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["name"].as_str().unwrap_or_default().to_string())
                .filter(|n| n != "skill")
                .collect()
        })
        .unwrap_or_default()
}
