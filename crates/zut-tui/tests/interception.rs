//! Interception made visible (issue 12 §7): an `assistant_message`
//! interceptor's `replace_text` is what reaches the scrollback, its block
//! hides the reply and shows the reason, a `turn_start` block shows its
//! reason instead of an error line. Insta snapshots of the scrollback rows
//! and the live area on ratatui's `TestBackend`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::live;
use ratatui::text::Line;
use zut_tui::app::App;
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::Status;
use zut_types::AgentEvent;
use zut_types::JsonBlock;

fn app(guards: &[&str]) -> App {
    let status = Status {
        provider: "anthropic".into(),
        model: "test-model".into(),
        cwd: "~/project".into(),
        ..Default::default()
    };
    let mut a = App::new(
        Theme::new(ColorDepth::None),
        (60, 12),
        status,
        History::default(),
    );
    a.transcript.message_guards = guards.iter().map(|s| s.to_string()).collect();
    a
}

/// The rows queued for the scrollback, as text.
fn scrollback(app: &mut App) -> String {
    let rows: Vec<Line> = app.transcript.take_rows();
    rows.iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn stream(a: &mut App, text: &str) {
    a.agent(&AgentEvent::TurnStart { step: 1 });
    a.agent(&AgentEvent::AssistantStart);
    for chunk in text.split_inclusive(' ') {
        a.agent(&AgentEvent::TextDelta {
            delta: chunk.into(),
        });
    }
}

fn message(text: &str) -> AgentEvent {
    AgentEvent::AssistantMessage {
        content: vec![JsonBlock::Text { text: text.into() }],
        time: "2026-01-01T00:00:00Z".into(),
    }
}

fn end(a: &mut App, stop: &'static str, error: Option<&str>) {
    a.agent(&AgentEvent::TurnEnd {
        stop,
        error: error.map(String::from),
    });
    a.agent(&AgentEvent::Done);
}

#[test]
fn replace_text_is_what_reaches_the_scrollback() {
    let mut a = app(&["redact"]);
    stream(&mut a, "the key is sk-123\n\nand more text\n");
    // Held: nothing reaches the scrollback while the interceptor decides,
    // and the live area says a reply is being written without showing it.
    assert_eq!(scrollback(&mut a), "");
    let streaming = live(&mut a);
    assert!(!streaming.contains("sk-123"), "{streaming}");
    assert!(
        streaming.contains("reply held for redact: 33 characters"),
        "{streaming}"
    );
    a.agent(&message("the key is [redacted]\n\nand more text"));
    end(&mut a, "end_turn", None);
    let rows = scrollback(&mut a);
    assert!(!rows.contains("sk-123"), "{rows}");
    insta::assert_snapshot!(format!("{rows}\n=== live ===\n{}", live(&mut a)));
    assert_eq!(
        a.transcript.last_reply,
        "the key is [redacted]\n\nand more text"
    );
}

#[test]
fn an_unchanged_reply_is_committed_as_it_streamed() {
    let mut a = app(&["redact"]);
    stream(&mut a, "nothing to hide");
    a.agent(&message("nothing to hide"));
    end(&mut a, "end_turn", None);
    let rows = scrollback(&mut a);
    assert!(rows.contains("nothing to hide"), "{rows}");
    assert!(!rows.contains("rewritten"), "{rows}");
}

#[test]
fn a_blocked_reply_is_hidden_and_its_reason_shown() {
    let mut a = app(&["hush"]);
    stream(&mut a, "a secret reply");
    a.agent(&AgentEvent::InterceptBlocked {
        event: "assistant_message",
        extension: "hush".into(),
        reason: "policy: no secrets".into(),
    });
    end(&mut a, "end_turn", None);
    let rows = scrollback(&mut a);
    assert!(!rows.contains("a secret reply"), "{rows}");
    let live = live(&mut a);
    assert!(!live.contains("a secret reply"), "{live}");
    insta::assert_snapshot!(format!("{rows}\n=== live ===\n{live}"));
}

#[test]
fn a_turn_start_block_shows_its_reason_once() {
    let mut a = app(&[]);
    a.agent(&AgentEvent::TurnStart { step: 1 });
    a.agent(&AgentEvent::InterceptBlocked {
        event: "turn_start",
        extension: "gate".into(),
        reason: "outside working hours".into(),
    });
    end(&mut a, "error", Some("outside working hours"));
    let rows = scrollback(&mut a);
    assert_eq!(rows.matches("outside working hours").count(), 1, "{rows}");
    assert!(!rows.contains('✗'), "{rows}");
    insta::assert_snapshot!(rows);
}

#[test]
fn a_failed_request_commits_the_held_text() {
    let mut a = app(&["redact"]);
    stream(&mut a, "half a reply");
    end(&mut a, "error", Some("connection reset"));
    let rows = scrollback(&mut a);
    assert!(rows.contains("half a reply"), "{rows}");
    assert!(rows.contains("connection reset"), "{rows}");
}

#[test]
fn without_guards_replies_stream_into_the_scrollback() {
    let mut a = app(&[]);
    stream(&mut a, "first paragraph\n\nsecond ");
    assert!(scrollback(&mut a).contains("first paragraph"));
}
