//! The tool-result budget of a request (issue 24; the Go original's
//! `context_budget.go` numbers, tools.md §13.2):
//!
//! - each result keeps at most [`RESULT_BYTES`] (32 KiB) of text, cut at a
//!   UTF-8 boundary, followed by the text block
//!   `[tool result content omitted]` when cut (images stay, in order);
//! - all results together keep at most [`RESULTS_TOTAL_BYTES`] (128 KiB),
//!   newest first: older results are *summarised* — replaced by a one-line
//!   summary (their size and first line).
//!
//! Prompt caching: the Go original dropped the aggregate from requests
//! because a cut that moves with every new result changes an older block
//! each time, so every request missed the cache. zut keeps the aggregate
//! but moves the cut in steps: when the results after the cut pass the
//! total, the cut advances until they fit in three quarters of it, and it
//! stays there until they pass the total again (at least 32 KiB of new
//! results later). The results of the newest tool message are never
//! summarised: the model sees every result once. The request only is
//! changed; the transcript and the session keep every result whole.

use std::sync::Mutex;

use zut_providers::Part;

/// Text bytes kept of one tool result in a request (Go: 32 KiB).
pub const RESULT_BYTES: usize = 32 * 1024;

/// Text bytes of all tool results in one request (Go: 128 KiB).
pub const RESULTS_TOTAL_BYTES: usize = 128 * 1024;

/// The block appended to a cut result (the Go original's text).
pub const OMITTED_MARKER: &str = "[tool result content omitted]";

/// Characters of a summarised result's first line kept in its summary.
const SUMMARY_HEAD_CHARS: usize = 160;

/// Where the summarised results end, kept between requests so the cut only
/// moves in steps (see the module docs).
#[derive(Debug, Default)]
pub struct BudgetState {
    /// The call id of the newest summarised result.
    cut: Mutex<Option<String>>,
}

impl BudgetState {
    /// How many of the oldest `results` (call id, text bytes) to summarise
    /// so the rest fits `total`; never one at or after `protected`.
    pub(crate) fn plan(&self, results: &[(&str, usize)], total: usize, protected: usize) -> usize {
        let Ok(mut cut) = self.cut.lock() else {
            return 0;
        };
        let mut k = cut
            .as_deref()
            .and_then(|id| results.iter().position(|(r, _)| *r == id))
            .map_or(0, |i| i + 1)
            .min(protected);
        let mut remaining: usize = results[k..].iter().map(|(_, n)| n).sum();
        if remaining > total {
            let low_water = total / 4 * 3;
            while remaining > low_water && k < protected {
                remaining -= results[k].1;
                k += 1;
            }
        }
        *cut = k.checked_sub(1).map(|i| results[i].0.to_string());
        k
    }

    /// Forgets the cut (a new conversation).
    pub fn reset(&self) {
        if let Ok(mut cut) = self.cut.lock() {
            *cut = None;
        }
    }
}

/// Text bytes of a result's content.
pub fn text_bytes(content: &[Part]) -> usize {
    content
        .iter()
        .map(|p| match p {
            Part::Text { text } => text.len(),
            _ => 0,
        })
        .sum()
}

/// The longest prefix of `text` of at most `max` bytes ending on a char
/// boundary.
fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `content` with at most `max` text bytes; [`OMITTED_MARKER`] appended
/// when text was cut.
pub fn capped(content: &[Part], max: usize) -> Vec<Part> {
    if text_bytes(content) <= max {
        return content.to_vec();
    }
    let mut left = max;
    let mut out = Vec::with_capacity(content.len() + 1);
    for p in content {
        match p {
            Part::Text { text } => {
                if left == 0 {
                    continue;
                }
                let kept = prefix(text, left);
                // Once a block is cut, no later text is kept.
                left = if kept.len() < text.len() {
                    0
                } else {
                    left - kept.len()
                };
                if !kept.is_empty() {
                    out.push(Part::Text {
                        text: kept.to_string(),
                    });
                }
            }
            other => out.push(other.clone()),
        }
    }
    out.push(Part::Text {
        text: OMITTED_MARKER.to_string(),
    });
    out
}

/// The one-block summary of an older result beyond the budget.
pub fn summary(content: &[Part]) -> Vec<Part> {
    let bytes = text_bytes(content);
    let first = content
        .iter()
        .find_map(|p| match p {
            Part::Text { text } => text.lines().find(|l| !l.trim().is_empty()),
            _ => None,
        })
        .unwrap_or("")
        .trim();
    let head: String = first.chars().take(SUMMARY_HEAD_CHARS).collect();
    let more = if head.len() < first.len() { "…" } else { "" };
    let images = content
        .iter()
        .filter(|p| matches!(p, Part::Image { .. }))
        .count();
    let images = match images {
        0 => String::new(),
        n => format!(", {n} image(s)"),
    };
    vec![Part::Text {
        text: format!(
            "[older tool result summarised to fit the context budget: {bytes} bytes{images}; \
             first line: {head}{more}; call the tool again if you need it]"
        ),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Part {
        Part::Text { text: s.into() }
    }

    #[test]
    fn capping_keeps_a_prefix_on_a_char_boundary_and_marks_it() {
        let out = capped(&[text("héllo"), text("world")], 2);
        assert_eq!(out, vec![text("h"), text(OMITTED_MARKER)]);
        let whole = [text("abc")];
        assert_eq!(capped(&whole, 3), whole.to_vec());
    }

    #[test]
    fn the_cut_moves_in_steps_and_spares_the_newest_message() {
        let b = BudgetState::default();
        let names: Vec<String> = (0..20).map(|i| format!("c{i}")).collect();
        let mut results: Vec<(&str, usize)> = Vec::new();
        let mut cuts = Vec::new();
        for n in &names {
            results.push((n.as_str(), 10));
            cuts.push(b.plan(&results, 40, results.len() - 1));
        }
        // Summarise down to 30 bytes when passing 40, then hold.
        assert_eq!(
            cuts,
            [0, 0, 0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14, 16, 16]
        );
        // A single huge newest result is never summarised.
        let huge = [("a", 10), ("b", 1000)];
        assert_eq!(BudgetState::default().plan(&huge, 40, 1), 1);
    }

    #[test]
    fn summaries_name_size_and_first_line() {
        let s = summary(&[text("\nfirst line\nsecond")]);
        let Part::Text { text } = &s[0] else { panic!() };
        assert!(text.contains("18 bytes"), "{text}");
        assert!(text.contains("first line: first line;"), "{text}");
    }
}
