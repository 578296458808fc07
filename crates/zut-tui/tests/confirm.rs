//! The `--no-yolo` confirmation dialog and the thinking indicator as insta
//! snapshots of the live area, and the focus rules: a note takes the focus
//! until Esc dismisses it (that Esc answers nothing), a panel takes it and
//! gives it back unanswered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use serde_json::json;
use zut_protocol::PanelContent;
use zut_tui::app::{App, Effect};
use zut_tui::history::History;
use zut_tui::theme::{ColorDepth, Theme};
use zut_tui::{view, Status};
use zut_types::AgentEvent;
use zut_types::ApprovalDecision;

fn app() -> App {
    let status = Status {
        provider: "anthropic".into(),
        model: "test-model".into(),
        cwd: "~/project".into(),
        ..Default::default()
    };
    App::new(
        Theme::new(ColorDepth::None),
        (90, 24),
        status,
        History::default(),
    )
}

fn screen(a: &mut App) -> String {
    let (w, h) = a.size;
    let rows: Vec<String> = a
        .transcript
        .take_rows()
        .iter()
        .map(|l| l.to_string().trim_end().to_string())
        .collect();
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        let area = f.area();
        view::render(a, area, f.buffer_mut());
    })
    .unwrap();
    format!(
        "--- scrollback ---\n{}\n--- live ---\n{}",
        rows.join("\n"),
        term.backend()
    )
}

fn key(a: &mut App, code: KeyCode) -> Vec<Effect> {
    a.key(&KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

/// A turn whose bash call waits for approval.
fn waiting(a: &mut App, request_id: u64, id: &str) {
    a.agent(&AgentEvent::ToolCall {
        id: id.into(),
        name: "bash".into(),
        args: json!({"command": "ls /"}),
    });
    a.agent(&AgentEvent::ToolApprovalRequested {
        request_id,
        id: id.into(),
        name: "bash".into(),
        preview: "ls /".into(),
        args: json!({"command": "ls /"}),
        detail: None,
    });
}

fn busy(a: &mut App) {
    for c in "list the root".chars() {
        key(a, KeyCode::Char(c));
    }
    assert_eq!(
        key(a, KeyCode::Enter),
        [Effect::Prompt("list the root".into())]
    );
}

#[test]
fn the_dialog_asks_and_each_answer_is_sent() {
    let mut a = app();
    busy(&mut a);
    waiting(&mut a, 7, "c1");
    insta::assert_snapshot!(screen(&mut a));
    // Enter: once.
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Approve {
            request_id: 7,
            decision: ApprovalDecision::Once
        }]
    );
    assert!(a.confirms.queue.is_empty());
    // Digits pick directly.
    waiting(&mut a, 8, "c2");
    assert_eq!(
        key(&mut a, KeyCode::Char('2')),
        [Effect::Approve {
            request_id: 8,
            decision: ApprovalDecision::AlwaysTool
        }]
    );
    waiting(&mut a, 9, "c3");
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Approve {
            request_id: 9,
            decision: ApprovalDecision::AlwaysAll
        }]
    );
    // Esc refuses with the default reason.
    waiting(&mut a, 10, "c4");
    assert_eq!(
        key(&mut a, KeyCode::Esc),
        [Effect::Approve {
            request_id: 10,
            decision: ApprovalDecision::Refuse { reason: None }
        }]
    );
    // The editor got none of these keys.
    assert_eq!(a.editor.text(), "");
}

#[test]
fn typing_writes_a_refusal_reason() {
    let mut a = app();
    busy(&mut a);
    waiting(&mut a, 3, "c1");
    for c in "use ls -la".chars() {
        key(&mut a, KeyCode::Char(c));
    }
    a.paste(" instead\u{1b}[31m");
    insta::assert_snapshot!(screen(&mut a));
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Approve {
            request_id: 3,
            decision: ApprovalDecision::Refuse {
                reason: Some("use ls -la instead".into())
            }
        }]
    );
}

#[test]
fn ctrl_c_refuses_and_stops_the_turn() {
    let mut a = app();
    busy(&mut a);
    waiting(&mut a, 4, "c1");
    let fx = a.key(
        &KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
        Instant::now(),
    );
    assert_eq!(
        fx,
        [
            Effect::Approve {
                request_id: 4,
                decision: ApprovalDecision::refuse()
            },
            Effect::Abort
        ]
    );
}

#[test]
fn a_note_takes_the_focus_until_esc_dismisses_it() {
    let mut a = app();
    busy(&mut a);
    waiting(&mut a, 5, "c1");
    a.agent(&AgentEvent::ExtNotify {
        extension: "guard".into(),
        level: "warn".into(),
        message: "bash wants to list /".into(),
    });
    insta::assert_snapshot!(screen(&mut a));
    // Keys go to the editor meanwhile.
    key(&mut a, KeyCode::Char('1'));
    assert_eq!(a.editor.text(), "1");
    key(&mut a, KeyCode::Backspace);
    // Esc only dismisses the note: no answer, no abort.
    assert!(key(&mut a, KeyCode::Esc).is_empty());
    assert!(a.notes.is_empty());
    assert_eq!(a.confirms.queue.len(), 1);
    assert_eq!(
        key(&mut a, KeyCode::Char('1')),
        [Effect::Approve {
            request_id: 5,
            decision: ApprovalDecision::Once
        }]
    );
}

#[test]
fn a_panel_takes_the_focus_and_gives_it_back_unanswered() {
    let mut a = app();
    busy(&mut a);
    waiting(&mut a, 6, "c1");
    a.agent(&AgentEvent::ExtPanelOpen {
        extension: "todo".into(),
        panel: PanelContent {
            id: "p".into(),
            title: "todo".into(),
            lines: vec!["▸ write tests".into()],
            footer: "esc close".into(),
        },
    });
    let s = screen(&mut a);
    assert!(
        s.contains("write tests") && !s.contains("confirm tool call"),
        "{s}"
    );
    // Keys go to the panel.
    assert!(matches!(
        key(&mut a, KeyCode::Char('1')).as_slice(),
        [Effect::PanelKey { .. }]
    ));
    // Esc closes the panel, not the dialog.
    assert!(matches!(
        key(&mut a, KeyCode::Esc).as_slice(),
        [Effect::PanelClose { .. }]
    ));
    assert_eq!(a.confirms.queue.len(), 1);
    assert!(screen(&mut a).contains("confirm tool call"));
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Approve {
            request_id: 6,
            decision: ApprovalDecision::Once
        }]
    );
}

#[test]
fn an_aborted_or_finished_turn_closes_the_dialog() {
    let mut a = app();
    busy(&mut a);
    waiting(&mut a, 1, "c1");
    waiting(&mut a, 2, "c2");
    assert!(screen(&mut a).contains("(1 of 2)"));
    a.agent(&AgentEvent::ToolResult {
        id: "c1".into(),
        is_error: true,
        content: vec![],
    });
    assert_eq!(a.confirms.current().unwrap().request_id, 2);
    a.job_finished();
    assert!(a.confirms.queue.is_empty());
    assert!(!screen(&mut a).contains("confirm tool call"));
}

#[test]
fn thinking_is_a_live_row_then_one_collapsed_line() {
    let mut a = app();
    busy(&mut a);
    a.agent(&AgentEvent::AssistantStart);
    for _ in 0..300 {
        a.agent(&AgentEvent::ReasoningDelta {
            delta: "hmm, let me see. ".into(),
        });
    }
    let live = screen(&mut a);
    assert!(live.contains("✻ thinking… 0s · 5.1k characters"), "{live}");
    assert!(!live.contains("hmm, let me see"), "{live}");
    a.agent(&AgentEvent::TextDelta {
        delta: "The answer.".into(),
    });
    insta::assert_snapshot!(screen(&mut a));
    // Ctrl+T prints that reasoning in full, under a heading.
    a.key(
        &KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL),
        std::time::Instant::now(),
    );
    let rows: String = a
        .transcript
        .take_rows()
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(rows.contains("✻ reasoning"), "{rows}");
    assert!(rows.contains("hmm, let me see. hmm, let me see."), "{rows}");
}

#[test]
fn ctrl_t_without_reasoning_says_so() {
    let mut a = app();
    a.key(
        &KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL),
        std::time::Instant::now(),
    );
    assert!(
        a.notes
            .iter()
            .any(|n| n.text.contains("no reasoning to show")),
        "{:?}",
        a.notes.iter().map(|n| &n.text).collect::<Vec<_>>()
    );
}

#[test]
fn an_edit_waiting_for_approval_shows_the_diff_it_would_make() {
    let mut a = app();
    a.size = (90, 40);
    busy(&mut a);
    let args = json!({"path": "src/lib.rs", "edits": [{"oldText": "old_fn", "newText": "new_fn"}]});
    a.agent(&AgentEvent::ToolCall {
        id: "e1".into(),
        name: "edit".into(),
        args: args.clone(),
    });
    let mut diff = String::from("--- src/lib.rs\n+++ src/lib.rs\n@@ -10,3 +10,3 @@\n fn a() {}\n-old_fn();\n+new_fn();\n fn b() {}\n");
    for i in 0..40 {
        diff.push_str(&format!(" line {i}\n"));
    }
    a.agent(&AgentEvent::ToolApprovalRequested {
        request_id: 3,
        id: "e1".into(),
        name: "edit".into(),
        preview: "src/lib.rs".into(),
        args,
        detail: Some(diff),
    });
    let s = screen(&mut a);
    assert!(s.contains("-   11 old_fn();"), "{s}");
    assert!(s.contains("+   11 new_fn();"), "{s}");
    assert!(s.contains(" more lines"), "a long diff is cut: {s}");
    assert!(s.contains("1. "), "the choices stay visible: {s}");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        [Effect::Approve {
            request_id: 3,
            decision: ApprovalDecision::Once
        }]
    );
}
