//! The repetition guard (issue 24; the Go original's `repetition.go`,
//! tools.md §14.2): a model that calls the same tool with the same
//! arguments and gets the same result, or writes the same message, again
//! and again is told so, and the prompt stops if it goes on.
//!
//! - Observations: each tool call with its result (tool name, arguments
//!   with keys sorted, error flag, result content; call ids excluded;
//!   identical call+result pairs within one tool message count once), and
//!   each assistant message's non-blank text.
//! - The last [`WINDOW`] observations are kept. An observation seen
//!   [`WARN_AT`] times in the window gets a **warning** (once; re-armed when
//!   it falls below again): the model is told in the next request (a text
//!   block after the tool results, or a user message after a final
//!   answer, which continues the prompt one more call). Seen [`STOP_AT`]
//!   times after a warning, the prompt **stops** with a clear message.
//! - Reset with every prompt; off with `--no-repetition-guard`
//!   ([`crate::long_session::LongSessionConfig::repetition_guard`]).
//!   Legitimate polling (the same status command five times) can trip it:
//!   that is what the flag is for.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::time::Instant;

use serde_json::Value;
use zut_providers::Part;

use crate::event::AgentEvent;

/// Observations kept.
pub const WINDOW: usize = 64;
/// Occurrences in the window that earn a warning.
pub const WARN_AT: usize = 5;
/// Occurrences, after a warning, that stop the prompt.
pub const STOP_AT: usize = 8;

/// What the guard decided about one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Nothing to say.
    Fine,
    /// Tell the model this text.
    Warn(String),
    /// Stop the prompt with this message.
    Stop(String),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Tool,
    Message,
}

/// The guard of one prompt.
pub struct Guard {
    on: bool,
    window: VecDeque<(u64, Instant)>,
    warned: HashSet<u64>,
    names: HashMap<u64, String>,
}

fn hash_value(v: &Value, h: &mut DefaultHasher) {
    match v {
        Value::Null => 0u8.hash(h),
        Value::Bool(b) => (1u8, b).hash(h),
        Value::Number(n) => (2u8, n.to_string()).hash(h),
        Value::String(s) => (3u8, s).hash(h),
        Value::Array(a) => {
            (4u8, a.len()).hash(h);
            for x in a {
                hash_value(x, h);
            }
        }
        Value::Object(m) => {
            (5u8, m.len()).hash(h);
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            for k in keys {
                k.hash(h);
                hash_value(&m[k], h);
            }
        }
    }
}

fn hash_parts(parts: &[Part], h: &mut DefaultHasher) {
    parts.len().hash(h);
    for p in parts {
        match p {
            Part::Text { text } => (0u8, text).hash(h),
            Part::Image { mime_type, data } => (1u8, mime_type, data).hash(h),
            Part::Thinking { .. } => {}
            Part::ToolCall { name, args, .. } => {
                (2u8, name).hash(h);
                hash_value(args, h);
            }
            Part::ToolResult {
                is_error, content, ..
            } => {
                (3u8, is_error).hash(h);
                hash_parts(content, h);
            }
        }
    }
}

/// The fingerprint of one call (name, arguments) with its result.
pub fn call_fingerprint(name: &str, args: &Value, result: &Part) -> u64 {
    let mut h = DefaultHasher::new();
    ("tool", name).hash(&mut h);
    hash_value(args, &mut h);
    hash_parts(std::slice::from_ref(result), &mut h);
    h.finish()
}

impl Guard {
    /// A fresh guard (`on: false`: never says anything).
    pub fn new(on: bool) -> Self {
        Self {
            on,
            window: VecDeque::with_capacity(WINDOW + 1),
            warned: HashSet::new(),
            names: HashMap::new(),
        }
    }

    /// Observes a step's tool calls (name, arguments) with their results,
    /// in the same order.
    pub fn observe_tools(
        &mut self,
        calls: &[(String, Value)],
        results: &[Part],
        sink: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Verdict {
        if !self.on {
            return Verdict::Fine;
        }
        let mut seen = HashSet::new();
        let mut verdict = Verdict::Fine;
        for ((name, args), result) in calls.iter().zip(results) {
            let fp = call_fingerprint(name, args, result);
            if !seen.insert(fp) {
                continue;
            }
            self.names.entry(fp).or_insert_with(|| name.clone());
            verdict = worst(verdict, self.observe(fp, Kind::Tool, sink));
        }
        verdict
    }

    /// Observes an assistant message's text (blank text is ignored).
    pub fn observe_text(
        &mut self,
        text: &str,
        sink: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Verdict {
        if !self.on || text.trim().is_empty() {
            return Verdict::Fine;
        }
        let mut h = DefaultHasher::new();
        ("message", text.trim()).hash(&mut h);
        self.observe(h.finish(), Kind::Message, sink)
    }

    fn observe(
        &mut self,
        fp: u64,
        kind: Kind,
        sink: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Verdict {
        let now = Instant::now();
        self.window.push_back((fp, now));
        if self.window.len() > WINDOW {
            self.window.pop_front();
        }
        let mut count = 0;
        let mut first = now;
        for (f, t) in &self.window {
            if *f == fp {
                if count == 0 {
                    first = *t;
                }
                count += 1;
            }
        }
        let elapsed = now.duration_since(first);
        let event = |stage: &'static str| AgentEvent::RepetitionGuard {
            kind: match kind {
                Kind::Tool => "tool_call_result",
                Kind::Message => "assistant_message",
            },
            stage,
            count: count as u64,
            elapsed_ms: elapsed.as_millis() as u64,
        };
        if count < WARN_AT {
            self.warned.remove(&fp);
            return Verdict::Fine;
        }
        if self.warned.contains(&fp) {
            if count < STOP_AT {
                return Verdict::Fine;
            }
            sink(event("stopped"));
            let secs = elapsed.as_secs();
            let what = match kind {
                Kind::Tool => format!(
                    "tool \"{}\" repeated {count} times with identical results",
                    self.names.get(&fp).map_or("?", String::as_str)
                ),
                Kind::Message => format!("identical assistant message repeated {count} times"),
            };
            return Verdict::Stop(format!(
                "agent stopped after detecting a repetitive loop: {what} over {secs}s \
                 (--no-repetition-guard turns this check off)"
            ));
        }
        self.warned.insert(fp);
        sink(event("warning"));
        Verdict::Warn(match kind {
            Kind::Tool => format!(
                "You appear to be stuck repeating tool \"{}\" with identical arguments and results \
                 ({count} repetitions). Try a different action or workaround; if blocked, ask the \
                 user for help instead of repeating the tool.",
                self.names.get(&fp).map_or("?", String::as_str)
            ),
            Kind::Message => "You appear to be stuck in a loop: the same assistant message has \
                 repeated. Try a substantively different action or workaround. If you are \
                 blocked, explain the blocker and ask the user for help instead of repeating \
                 the same work."
                .to_string(),
        })
    }
}

/// Applies a step's verdict to its tool-results message: a warning is
/// added after the results (the model reads it with them); a stop is
/// returned as the prompt's failure message (the results are still kept,
/// so the conversation stays valid).
pub fn apply(verdict: Verdict, results: &mut zut_providers::Message) -> Option<String> {
    match verdict {
        Verdict::Fine => None,
        Verdict::Warn(text) => {
            results.content.push(Part::Text { text });
            None
        }
        Verdict::Stop(message) => Some(message),
    }
}

/// The stronger of two verdicts (stop > warn > fine; the first warning wins).
pub fn worst(a: Verdict, b: Verdict) -> Verdict {
    match (a, b) {
        (s @ Verdict::Stop(_), _) | (_, s @ Verdict::Stop(_)) => s,
        (w @ Verdict::Warn(_), _) | (_, w @ Verdict::Warn(_)) => w,
        _ => Verdict::Fine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(text: &str) -> Part {
        Part::ToolResult {
            call_id: "x".into(),
            is_error: false,
            content: vec![Part::Text { text: text.into() }],
        }
    }

    #[test]
    fn warns_at_five_and_stops_at_eight() {
        let mut g = Guard::new(true);
        let mut events = 0;
        let mut sink = |_: AgentEvent| events += 1;
        let calls = vec![("bash".to_string(), json!({"b": 1, "a": "ls"}))];
        let mut verdicts = Vec::new();
        for _ in 0..8 {
            verdicts.push(g.observe_tools(&calls, &[result("same")], &mut sink));
        }
        assert!(verdicts[..4].iter().all(|v| *v == Verdict::Fine));
        assert!(matches!(&verdicts[4], Verdict::Warn(t) if t.contains("\"bash\"")));
        assert!(verdicts[5..7].iter().all(|v| *v == Verdict::Fine));
        assert!(
            matches!(&verdicts[7], Verdict::Stop(t) if t.contains("tool \"bash\" repeated 8 times"))
        );
        assert_eq!(events, 2);
    }

    #[test]
    fn key_order_is_ignored_but_results_and_args_matter() {
        let a = call_fingerprint("t", &json!({"a": 1, "b": 2}), &result("r"));
        let b = call_fingerprint("t", &json!({"b": 2, "a": 1}), &result("r"));
        let c = call_fingerprint("t", &json!({"a": 1, "b": 3}), &result("r"));
        let d = call_fingerprint("t", &json!({"a": 1, "b": 2}), &result("s"));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn off_and_varied_never_fire() {
        let mut sink = |_e: AgentEvent| {};
        let mut off = Guard::new(false);
        let mut on = Guard::new(true);
        for i in 0..20 {
            assert_eq!(off.observe_text("same", &mut sink), Verdict::Fine);
            assert_eq!(on.observe_text(&format!("t{i}"), &mut sink), Verdict::Fine);
            assert_eq!(on.observe_text("  ", &mut sink), Verdict::Fine);
        }
    }
}
