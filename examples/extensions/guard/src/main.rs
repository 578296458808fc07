//! `guard`: refuses dangerous `bash` tool calls before they run.
//!
//! - intercepts `tool_call` and blocks `bash` commands matching a danger
//!   pattern (`rm -rf`, `mkfs`, `dd of=/dev/…`, a fork bomb,
//!   `> /dev/sd…`, `chmod -R 777 /`);
//! - rewrites `git push --force` into `git push --force-with-lease` via
//!   `modified_args`, keeping every other argument (including the
//!   required `timeout`);
//! - subscribes to `tool_call` events to keep an audit line per call in
//!   its stderr log, and shows how many calls it refused as a status.

mod patterns;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;
use zut_ext_sdk::{Extension, SdkError, ToolCallDecision};

fn main() -> Result<(), SdkError> {
    let mut ext = Extension::new("guard", "1.0.0");
    let handle = ext.handle();
    let refused = Arc::new(AtomicUsize::new(0));

    let audit = handle.clone();
    ext.on_event("tool_call", move |event| {
        audit.log(format_args!(
            "tool_call {} {}",
            event.tool_name,
            event
                .tool_args
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default()
        ));
    });

    ext.intercept_tool_call_x(move |tool, args| {
        if tool != "bash" {
            return ToolCallDecision::allow();
        }
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if let Some(label) = patterns::danger(command) {
            let count = refused.fetch_add(1, Ordering::Relaxed) + 1;
            let plural = if count == 1 { "" } else { "s" };
            let _ = handle.set_status(
                "refused",
                format!("refused {count} dangerous command{plural}"),
            );
            return ToolCallDecision::block(format!("refused: matches danger pattern {label:?}"));
        }
        match force_with_lease(command) {
            Some(safer) => {
                let mut rewritten = args.clone();
                rewritten["command"] = Value::String(safer);
                ToolCallDecision::rewrite(rewritten)
            }
            None => ToolCallDecision::allow(),
        }
    });

    ext.run()
}

/// `git push --force …` → `git push --force-with-lease …`.
fn force_with_lease(command: &str) -> Option<String> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let is_push = words.starts_with(&["git", "push"]);
    if !is_push || !words.iter().any(|w| *w == "--force" || *w == "-f") {
        return None;
    }
    let rewritten: Vec<&str> = words
        .into_iter()
        .map(|w| {
            if w == "--force" || w == "-f" {
                "--force-with-lease"
            } else {
                w
            }
        })
        .collect();
    Some(rewritten.join(" "))
}

#[cfg(test)]
mod tests {
    use super::force_with_lease;

    #[test]
    fn force_push_is_softened() {
        assert_eq!(
            force_with_lease("git push --force origin main").as_deref(),
            Some("git push --force-with-lease origin main")
        );
        assert_eq!(force_with_lease("git push origin main"), None);
        assert_eq!(force_with_lease("echo git push --force"), None);
    }
}
