//! `/btw <question>`: a side question answered from the conversation and
//! not added to it (issue 24). The TUI shows the question and, when it
//! comes back ([`crate::TuiEvent::SideAnswer`]), the answer in a block
//! marked as such; nothing reaches the transcript the model sees.

use ratatui::text::Line;

use crate::app::{App, Effect};

/// The note shown while the answer is awaited.
pub const ASKING: &str = "btw: asking…";

/// The line under an answer.
pub const NOT_KEPT: &str = "(side question: not added to the conversation)";

/// `/btw args`.
pub fn command(app: &mut App, args: &str) -> Vec<Effect> {
    let question = args.trim();
    if question.is_empty() {
        app.push_note(
            "warn",
            "usage: /btw <question> (answered from the conversation, not added to it)",
        );
        return Vec::new();
    }
    app.push_note("info", ASKING);
    vec![Effect::SideQuestion(question.to_string())]
}

/// Shows the answer to `question`.
pub fn show(
    app: &mut App,
    question: &str,
    answer: Result<String, String>,
    usage: Option<&zut_types::UsageEvent>,
) {
    app.notes.retain(|n| n.text != ASKING);
    if let Some(u) = usage {
        app.status.usage(u);
    }
    let width = app.size.0 as usize;
    let theme = &app.theme;
    let mut rows: Vec<Line<'static>> =
        crate::transcript::plain_rows(&format!("btw › {}", question.trim()), width, theme.accent);
    match answer {
        Ok(text) => {
            rows.push(Line::default());
            rows.extend(crate::stream::indent(crate::markdown::render(
                &text,
                width.saturating_sub(crate::stream::INDENT),
                theme,
            )));
        }
        Err(e) => rows.extend(crate::transcript::plain_rows(
            &format!("btw failed: {e}"),
            width,
            theme.error,
        )),
    }
    rows.extend(crate::transcript::plain_rows(NOT_KEPT, width, theme.dim));
    app.transcript.push_block(rows);
}
