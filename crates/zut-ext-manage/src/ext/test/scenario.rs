//! Scenario files (`--scenario FILE`): a scripted model calls the
//! extension's tools inside real `zut --json` turns, served offline by the
//! local LLM server (`zut-llm-server`), and each tool result is checked
//! against what the file expects.
//!
//! ```json
//! {"prompt": "remember milk",
//!  "steps": [{"tool": "note_add", "args": {"text": "milk"},
//!             "expect": {"is_error": false, "contains": "noted"}}],
//!  "final": "Done."}
//! ```
//! A file may also hold an array of such objects (one turn each).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use zut_llm_server::{LlmServer, Script};

use super::report::Report;

const RULE: &str = "scenario (docs/cli.md ext test)";
/// Longest a scenario turn may take.
const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// One scripted turn.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The user prompt (default "scenario").
    #[serde(default)]
    pub prompt: Option<String>,
    /// The tool calls the scripted model makes, in order (one per model reply).
    pub steps: Vec<Step>,
    /// The model's final text (default "done").
    #[serde(default)]
    pub r#final: Option<String>,
}

/// One tool call and what must come back.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Tool name.
    pub tool: String,
    /// Arguments (default `{}`).
    #[serde(default)]
    pub args: Option<Value>,
    /// Expectations on the result.
    #[serde(default)]
    pub expect: Expect,
}

/// Expectations on one tool result (all optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `is_error` must equal this.
    pub is_error: Option<bool>,
    /// The result's text must contain this.
    pub contains: Option<String>,
    /// The result's text must equal this.
    pub equals: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FileShape {
    One(Scenario),
    Many(Vec<Scenario>),
}

/// Reads a scenario file; the error names the file (and line/column for JSON errors).
pub fn load(path: &Path) -> Result<Vec<Scenario>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let shape: FileShape = serde_json::from_value(value.clone()).map_err(|_| {
        // Re-parse the likely shape for a precise message.
        let err = if value.is_array() {
            serde_json::from_value::<Vec<Scenario>>(value).err()
        } else {
            serde_json::from_value::<Scenario>(value).err()
        };
        format!(
            "{}: not a scenario: {}",
            path.display(),
            err.map_or_else(|| "unexpected shape".into(), |e| e.to_string())
        )
    })?;
    let all = match shape {
        FileShape::One(s) => vec![s],
        FileShape::Many(v) => v,
    };
    for (i, s) in all.iter().enumerate() {
        if s.steps.is_empty() {
            return Err(format!(
                "{}: scenario {} has no steps",
                path.display(),
                i + 1
            ));
        }
        for st in &s.steps {
            if st.args.as_ref().is_some_and(|a| !a.is_object()) {
                return Err(format!(
                    "{}: step {:?}: args must be a JSON object",
                    path.display(),
                    st.tool
                ));
            }
        }
    }
    Ok(all)
}

/// Runs every scenario of `file` against the extension in `dir`.
pub async fn run(file: &Path, scenarios: &[Scenario], dir: &Path, report: &mut Report) {
    let label = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    for (n, scenario) in scenarios.iter().enumerate() {
        let name = if scenarios.len() == 1 {
            format!("scenario {label}")
        } else {
            format!("scenario {label}#{}", n + 1)
        };
        if let Err(e) = turn(&name, scenario, dir, report).await {
            report.fail(name, RULE, e);
        }
    }
}

async fn turn(
    name: &str,
    scenario: &Scenario,
    dir: &Path,
    report: &mut Report,
) -> Result<(), String> {
    let server = LlmServer::start()
        .await
        .map_err(|e| format!("start the local LLM server: {e}"))?;
    for (i, step) in scenario.steps.iter().enumerate() {
        let args = step
            .args
            .clone()
            .unwrap_or_else(|| Value::Object(Default::default()));
        server.push(Script::anthropic_tool_call(
            format!("call_{}", i + 1),
            step.tool.clone(),
            args.to_string(),
        ));
    }
    server.push(Script::anthropic_text(
        scenario.r#final.clone().unwrap_or_else(|| "done".into()),
    ));
    let home = tempfile::tempdir().map_err(|e| format!("temporary ZUT_HOME: {e}"))?;
    let exe = std::env::current_exe().map_err(|e| format!("locate zut: {e}"))?;
    let url = server.url();
    let prompt = scenario.prompt.clone().unwrap_or_else(|| "scenario".into());
    let mut cmd = tokio::process::Command::new(exe);
    cmd.args([
        "--json",
        "--no-session",
        "--provider",
        "anthropic",
        "--base-url",
        &url,
        "--api-key",
        "scenario",
    ])
    .args(["--model", "scenario", "--no-ext", "-e"])
    .arg(dir)
    .arg(&prompt)
    .env("ZUT_HOME", home.path())
    .env_remove("ANTHROPIC_API_KEY")
    .env_remove("OPENAI_API_KEY")
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .kill_on_drop(true);
    let child = cmd.spawn().map_err(|e| format!("start zut: {e}"))?;
    let out = tokio::time::timeout(TURN_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| {
            format!(
                "the turn did not finish within {} s",
                TURN_TIMEOUT.as_secs()
            )
        })?
        .map_err(|e| format!("run zut: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(line) = stderr.lines().find(|l| l.starts_with("extension load")) {
        return Err(line.to_string());
    }
    if !out.status.success() {
        return Err(format!("zut exited with {}: {}", out.status, stderr.trim()));
    }
    let events: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let results: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    for (i, step) in scenario.steps.iter().enumerate() {
        let label = format!("{name} step {} {}", i + 1, step.tool);
        let Some(result) = results
            .iter()
            .find(|r| r["id"] == format!("call_{}", i + 1))
        else {
            report.fail(
                label,
                RULE,
                "no tool result (the turn ended before this call)",
            );
            continue;
        };
        let is_error = result["is_error"].as_bool().unwrap_or(false);
        let text: String = result["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        let mut problems = Vec::new();
        if let Some(want) = step.expect.is_error {
            if want != is_error {
                problems.push(format!("is_error is {is_error}, expected {want}"));
            }
        }
        if let Some(want) = &step.expect.contains {
            if !text.contains(want.as_str()) {
                problems.push(format!("text does not contain {want:?}"));
            }
        }
        if let Some(want) = &step.expect.equals {
            if &text != want {
                problems.push(format!("text is not {want:?}"));
            }
        }
        let shown: String = text.chars().take(100).collect();
        if problems.is_empty() {
            report.pass(
                label,
                RULE,
                format!(
                    "result {shown:?}{}",
                    if is_error { " (is_error)" } else { "" }
                ),
            );
        } else {
            report.fail(
                label,
                RULE,
                format!(
                    "{}; got {shown:?}{}",
                    problems.join("; "),
                    if is_error { " (is_error)" } else { "" }
                ),
            );
        }
    }
    Ok(())
}
