//! The provider-side projection of the transcript (issue 24): what a
//! request carries, built from the transcript without changing it (the
//! session file is never rewritten).
//!
//! - **Stale reads**: a successful `read` result is replaced by
//!   `[superseded: a newer view of <path> appears later in this conversation]`
//!   when a later successful `read` of the same file covers the same lines
//!   (a read without `offset`/`limit` covers the whole file; a line range
//!   covers every range inside it). An `edit` or `write` alone does not
//!   supersede a read: the model may need the old text to reason about its
//!   own edit, and the edit's result does not show the whole new file. A
//!   re-read after the edit supersedes the old view as usual.
//! - **Tool-result budget** ([`crate::result_budget`]): each result capped,
//!   and the oldest results summarised once all of them pass the total.
//!
//! Built in one pass over the transcript plus one over the `read` calls;
//! only what is kept is cloned (a summarised or superseded result's text
//! never is), so a 500-turn session builds in well under a millisecond
//! (see docs/benchmarks.md, "Session 11: long sessions").

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use zut_providers::{Message, Part};

use crate::long_session::LongSessionConfig;
use crate::result_budget::{self, BudgetState};

/// The marker that replaces a superseded `read` result.
pub fn superseded_marker(path: &str) -> String {
    format!("[superseded: a newer view of {path} appears later in this conversation]")
}

/// One `read` call: which file, which lines.
struct ReadCall<'a> {
    call_id: &'a str,
    path: String,
    shown: &'a str,
    start: u64,
    end: u64,
}

/// The lines a `read` call asked for, as a half-open range of line numbers
/// (1-based; `u64::MAX` for "to the end").
fn read_range(args: &serde_json::Value) -> (u64, u64) {
    let start = args
        .get("offset")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1)
        .max(1);
    let end = match args.get("limit").and_then(serde_json::Value::as_u64) {
        Some(limit) => start.saturating_add(limit),
        None => u64::MAX,
    };
    (start, end)
}

/// `path` relative to `cwd`, lexically normalised (`./a/../b` → `cwd/b`),
/// so `src/x.rs`, `./src/x.rs` and the absolute path are the same file.
fn canonical(cwd: &Path, path: &str) -> String {
    let joined = if Path::new(path).is_absolute() {
        PathBuf::from(path)
    } else {
        cwd.join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.to_string_lossy().into_owned()
}

/// The call ids of `read` results that a later read supersedes, with the
/// path as the model wrote it.
pub fn superseded_reads<'a>(transcript: &'a [Message], cwd: &Path) -> HashMap<&'a str, &'a str> {
    let mut reads: Vec<ReadCall<'a>> = Vec::new();
    let mut failed: HashSet<&'a str> = HashSet::new();
    for m in transcript {
        for p in &m.content {
            match p {
                Part::ToolCall { id, name, args } if name == "read" => {
                    let Some(shown) = args.get("path").and_then(serde_json::Value::as_str) else {
                        continue;
                    };
                    let (start, end) = read_range(args);
                    reads.push(ReadCall {
                        call_id: id,
                        path: canonical(cwd, shown),
                        shown,
                        start,
                        end,
                    });
                }
                Part::ToolResult {
                    call_id,
                    is_error: true,
                    ..
                } => {
                    failed.insert(call_id);
                }
                _ => {}
            }
        }
    }
    let mut out = HashMap::new();
    if reads.len() < 2 {
        return out;
    }
    // Newest first: what each file's later reads cover.
    let mut later: HashMap<&str, Vec<(u64, u64)>> = HashMap::new();
    for r in reads.iter().rev() {
        if failed.contains(r.call_id) {
            continue;
        }
        let seen = later.entry(r.path.as_str()).or_default();
        if seen.iter().any(|&(s, e)| s <= r.start && e >= r.end) {
            out.insert(r.call_id, r.shown);
        } else {
            seen.push((r.start, r.end));
        }
    }
    out
}

/// The messages of a request: the transcript with superseded reads
/// replaced and the tool-result budget applied (as `config` says).
pub(crate) fn project(
    transcript: &[Message],
    cwd: &Path,
    config: &LongSessionConfig,
    budget: &BudgetState,
) -> Vec<Message> {
    if !config.stale_read_projection && !config.result_budget {
        return transcript.to_vec();
    }
    let superseded = if config.stale_read_projection {
        superseded_reads(transcript, cwd)
    } else {
        HashMap::new()
    };
    // The results in order, with the text bytes each would take.
    let mut sizes: Vec<(&str, usize)> = Vec::new();
    let mut last_results_start = 0;
    for m in transcript {
        let mut first = true;
        for p in &m.content {
            if let Part::ToolResult {
                call_id, content, ..
            } = p
            {
                if first {
                    last_results_start = sizes.len();
                    first = false;
                }
                let size = if superseded.contains_key(call_id.as_str()) {
                    0
                } else {
                    result_budget::text_bytes(content).min(config.result_bytes)
                };
                sizes.push((call_id, size));
            }
        }
    }
    let summarised = if config.result_budget {
        budget.plan(&sizes, config.results_total_bytes, last_results_start)
    } else {
        0
    };
    let summarised: HashSet<&str> = sizes[..summarised].iter().map(|(id, _)| *id).collect();
    let mut out = Vec::with_capacity(transcript.len());
    for m in transcript {
        if !m
            .content
            .iter()
            .any(|p| matches!(p, Part::ToolResult { .. }))
        {
            out.push(m.clone());
            continue;
        }
        let content = m
            .content
            .iter()
            .map(|p| match p {
                Part::ToolResult {
                    call_id,
                    is_error,
                    content,
                } => {
                    let content = if let Some(path) = superseded.get(call_id.as_str()) {
                        vec![Part::Text {
                            text: superseded_marker(path),
                        }]
                    } else if summarised.contains(call_id.as_str()) {
                        result_budget::summary(content)
                    } else if config.result_budget {
                        result_budget::capped(content, config.result_bytes)
                    } else {
                        content.clone()
                    };
                    Part::ToolResult {
                        call_id: call_id.clone(),
                        is_error: *is_error,
                        content,
                    }
                }
                other => other.clone(),
            })
            .collect();
        out.push(Message {
            role: m.role,
            content,
        });
    }
    out
}

impl crate::Agent {
    /// The request the next model call would send now (system prompt, the
    /// projected transcript, tools; the hidden context without extension
    /// context). For diagnostics and benchmarks: the loop builds the same.
    pub fn next_request(&self) -> zut_providers::Request {
        let mut tools = crate::toolset::Toolset::snapshot_with_skill_tool(
            &self.config.builtin_tools,
            self.host.as_deref(),
            self.config.skills,
        );
        self.add_mcp_tools(&mut tools);
        self.request(&tools, None)
    }

    /// Replaces the conversation with `messages` (a conversation restored
    /// from elsewhere; the attached session, if any, is not written).
    pub fn replace_transcript(&mut self, messages: Vec<Message>) {
        self.clear();
        self.transcript = messages;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use zut_providers::Role;

    fn call(id: &str, args: serde_json::Value) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![Part::ToolCall {
                id: id.into(),
                name: "read".into(),
                args,
            }],
        }
    }

    fn result(id: &str, text: &str, is_error: bool) -> Message {
        Message {
            role: Role::User,
            content: vec![Part::ToolResult {
                call_id: id.into(),
                is_error,
                content: vec![Part::Text { text: text.into() }],
            }],
        }
    }

    fn ids(t: &[Message]) -> Vec<&str> {
        let mut v: Vec<&str> = superseded_reads(t, Path::new("/p")).into_keys().collect();
        v.sort();
        v
    }

    #[test]
    fn a_later_covering_read_supersedes() {
        let t = vec![
            call("a", json!({"path": "src/x.rs"})),
            result("a", "old", false),
            call("b", json!({"path": "src/x.rs", "offset": 10, "limit": 5})),
            result("b", "range", false),
            call(
                "c",
                json!({"path": "./src/../src/x.rs", "offset": 8, "limit": 20}),
            ),
            result("c", "wider range", false),
            call("d", json!({"path": "/p/src/x.rs"})),
            result("d", "new", false),
        ];
        assert_eq!(ids(&t), ["a", "b", "c"]);
    }

    #[test]
    fn narrower_other_file_or_failed_reads_do_not_supersede() {
        let t = vec![
            call("a", json!({"path": "x.rs", "offset": 1, "limit": 50})),
            result("a", "first 50", false),
            call("b", json!({"path": "x.rs", "offset": 10, "limit": 5})),
            result("b", "10-14", false),
            call("c", json!({"path": "y.rs"})),
            result("c", "other file", false),
            call("d", json!({"path": "x.rs"})),
            result("d", "no such file", true),
        ];
        assert!(ids(&t).is_empty());
    }

    #[test]
    fn markers_replace_only_superseded_results() {
        let t = vec![
            call("a", json!({"path": "x.rs"})),
            result("a", "old", false),
            call("b", json!({"path": "x.rs"})),
            result("b", "new", false),
        ];
        let out = project(
            &t,
            Path::new("/p"),
            &LongSessionConfig::default(),
            &BudgetState::default(),
        );
        let texts: Vec<String> = out.iter().map(|m| format!("{:?}", m.content)).collect();
        assert!(
            texts[1].contains(&superseded_marker("x.rs")),
            "{}",
            texts[1]
        );
        assert!(texts[3].contains("new"));
        assert_eq!(out[0], t[0]);
    }
}
