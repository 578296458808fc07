//! Repair of the effective transcript (sessions-themes-skills.md §1.5) so a
//! resumed conversation is valid for both provider wires.

use std::collections::HashSet;

use crate::message::{Block, Role, SessionMessage};

/// The text of the synthetic result given to a call without one.
pub const ABORTED_RESULT: &str = "tool call was aborted; no result recorded.";

/// The repaired transcript and, for every raw prefix length `n`
/// (`0..=raw.len()`), the length of the repaired prefix it maps to.
#[derive(Debug, Default)]
pub struct Repaired {
    /// Provider-valid messages.
    pub messages: Vec<SessionMessage>,
    /// `prefix[n]` = repaired messages produced by the first `n` raw ones.
    pub prefix: Vec<usize>,
}

impl Repaired {
    /// Repaired prefix length for a raw prefix length (clamped).
    pub fn prefix_count(&self, raw: usize) -> usize {
        match self.prefix.get(raw) {
            Some(n) => *n,
            None => self.prefix.last().copied().unwrap_or(0),
        }
    }
}

fn aborted(call_id: &str) -> Block {
    Block::ToolResult {
        call_id: call_id.to_string(),
        content: vec![Block::text(ABORTED_RESULT)],
        is_error: true,
        timing: None,
    }
}

/// Repairs `raw`: every assistant message with tool calls is followed by a
/// tool message with exactly one result per call id (duplicates and
/// foreign ids dropped, missing ones synthesised as errors); a tool message
/// that does not follow such an assistant message loses its result blocks
/// (dropped if nothing remains) unless it carries `added_tool_names`.
pub fn repair(raw: Vec<SessionMessage>) -> Repaired {
    let n = raw.len();
    let mut out: Vec<(SessionMessage, usize)> = Vec::with_capacity(n + 2);
    let mut iter = raw.into_iter().enumerate().peekable();
    while let Some((i, m)) = iter.next() {
        if m.role == Role::Assistant && m.has_tool_calls() {
            let ids: Vec<String> = m
                .content
                .iter()
                .filter_map(|b| match b {
                    Block::ToolCall { id, .. } => Some(id.clone()),
                    _ => None,
                })
                .collect();
            let time = m.time.clone();
            out.push((m, i));
            let id_set: HashSet<&str> = ids.iter().map(String::as_str).collect();
            if iter.peek().is_some_and(|(_, next)| next.role == Role::Tool) {
                let Some((j, mut tool)) = iter.next() else {
                    continue;
                };
                let mut seen: HashSet<String> = HashSet::new();
                let mut kept = Vec::with_capacity(tool.content.len() + ids.len());
                for b in tool.content {
                    match &b {
                        Block::ToolResult { call_id, .. } => {
                            if id_set.contains(call_id.as_str()) && seen.insert(call_id.clone()) {
                                kept.push(b);
                            }
                        }
                        _ => kept.push(b),
                    }
                }
                for id in &ids {
                    if !seen.contains(id) {
                        seen.insert(id.clone());
                        kept.push(aborted(id));
                    }
                }
                if !kept.is_empty() {
                    tool.content = kept;
                    out.push((tool, j));
                }
                continue;
            }
            let mut seen = HashSet::new();
            let stubs: Vec<Block> = ids
                .iter()
                .filter(|id| seen.insert(id.as_str()))
                .map(|id| aborted(id))
                .collect();
            out.push((
                SessionMessage {
                    role: Role::Tool,
                    content: stubs,
                    time,
                    meta: None,
                    added_tool_names: Vec::new(),
                },
                i,
            ));
            continue;
        }
        if m.role == Role::Tool {
            if !m.added_tool_names.is_empty() {
                out.push((m, i));
                continue;
            }
            let mut m = m;
            m.content.retain(|b| !matches!(b, Block::ToolResult { .. }));
            if !m.content.is_empty() {
                out.push((m, i));
            }
            continue;
        }
        out.push((m, i));
    }
    let mut prefix = Vec::with_capacity(n + 1);
    let mut k = 0;
    for raw_count in 0..=n {
        while k < out.len() && out[k].1 < raw_count {
            k += 1;
        }
        prefix.push(k);
    }
    Repaired {
        messages: out.into_iter().map(|(m, _)| m).collect(),
        prefix,
    }
}

/// Removes tool results whose call is not in `messages` (and messages left
/// empty), keeping tool messages that carry `added_tool_names`. Used for
/// the preserved tail of a compaction.
pub fn drop_orphan_results(messages: Vec<SessionMessage>) -> Vec<SessionMessage> {
    let calls: HashSet<String> = messages
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            Block::ToolCall { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    messages
        .into_iter()
        .filter_map(|mut m| {
            m.content.retain(|b| match b {
                Block::ToolResult { call_id, .. } => calls.contains(call_id),
                _ => true,
            });
            (!m.content.is_empty()).then_some(m)
        })
        .collect()
}
