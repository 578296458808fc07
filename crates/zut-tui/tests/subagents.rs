//! `/subagents` in the TUI: the dashboard built from the children's tagged
//! events (state, task, elapsed, tokens, cost), a child's live transcript
//! on Enter, Ctrl+E (a message typed in the editor) and Ctrl+X (stop, run
//! by the conversation side); children's usage in the status bar;
//! `/orchestrator` asks the conversation side to toggle.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Instant;

use common::{app, live};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use zut_tui::app::{App, Effect};
use zut_tui::pickers::PickerKind;
use zut_tui::subagents_view::event;
use zut_types::{AgentEvent, JsonBlock, UsageCounts, UsageEvent};

fn key(a: &mut App, code: KeyCode) -> Vec<Effect> {
    a.key(&KeyEvent::new(code, KeyModifiers::NONE), Instant::now())
}

fn ctrl(a: &mut App, c: char) -> Vec<Effect> {
    a.key(
        &KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
        Instant::now(),
    )
}

fn typ(a: &mut App, text: &str) {
    for c in text.chars() {
        key(a, KeyCode::Char(c));
    }
}

fn text(t: &str) -> Vec<JsonBlock> {
    vec![JsonBlock::Text { text: t.into() }]
}

fn usage(input: u64, output: u64, cost: f64) -> AgentEvent {
    let this = UsageCounts {
        input,
        output,
        cost_usd: cost,
        cost_known: true,
        ..Default::default()
    };
    AgentEvent::Usage(UsageEvent {
        this,
        cumulative: this,
    })
}

fn start(a: &mut App, id: &str, task: &str) {
    event(
        a,
        id,
        AgentEvent::SubagentStart {
            task: task.into(),
            profile: None,
            model: "test-model".into(),
            workspace: "shared".into(),
            transcript: format!("/home/me/.zut/subagents/{id}/transcript.jsonl"),
        },
    );
}

/// Child one runs `cargo test`; child two finished.
fn two_children(a: &mut App) {
    start(a, "sa-1-ab12", "run the tests and report failures");
    start(a, "sa-2-cd34", "summarise the README");
    let one = "sa-1-ab12";
    event(
        a,
        one,
        AgentEvent::UserMessage {
            content: text("run the tests and report failures"),
            time: "2026-12-06T05:00:00Z".into(),
        },
    );
    event(a, one, AgentEvent::TurnStart { step: 1 });
    event(
        a,
        one,
        AgentEvent::TextDelta {
            delta: "Running the tests.\n".into(),
        },
    );
    event(
        a,
        one,
        AgentEvent::ToolCall {
            id: "t1".into(),
            name: "bash".into(),
            args: json!({"command": "cargo test"}),
        },
    );
    event(a, one, usage(12_000, 800, 0.048));
    event(
        a,
        one,
        AgentEvent::ToolExecutionStarted {
            id: "t1".into(),
            name: "bash".into(),
        },
    );
    let two = "sa-2-cd34";
    event(
        a,
        two,
        AgentEvent::UserMessage {
            content: text("summarise the README"),
            time: "2026-12-06T05:00:00Z".into(),
        },
    );
    event(a, two, AgentEvent::TurnStart { step: 1 });
    event(a, two, usage(3_000, 150, 0.011));
    event(
        a,
        two,
        AgentEvent::AssistantMessage {
            content: text("zut is a terminal coding agent."),
            time: "2026-12-06T05:00:01Z".into(),
        },
    );
    event(
        a,
        two,
        AgentEvent::SubagentEnd {
            state: "completed".into(),
            final_text: "zut is a terminal coding agent.".into(),
            error: None,
            turns: 1,
            usage: UsageCounts::default(),
            transcript: String::new(),
        },
    );
}

#[test]
fn the_dashboard_and_a_live_transcript() {
    let mut a = app(100, 22);
    two_children(&mut a);
    // Their usage is in the status bar.
    assert_eq!(a.status.tokens_in, 15_000);
    assert_eq!(a.status.tokens_out, 950);
    assert!((a.status.cost.unwrap() - 0.059).abs() < 1e-9);
    typ(&mut a, "/subagents");
    assert!(key(&mut a, KeyCode::Enter).is_empty());
    assert_eq!(a.picker.as_ref().unwrap().kind, PickerKind::Subagents);
    let dashboard = live(&mut a);
    assert!(
        dashboard.contains("subagents · 1 of 2 working"),
        "{dashboard}"
    );
    assert!(dashboard.contains("running bash"), "{dashboard}");
    assert!(dashboard.contains("↑12.0k ↓800 · $0.05"), "{dashboard}");

    // Enter: the first child's transcript.
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.picker.as_ref().unwrap().kind, PickerKind::SubagentLog);
    let before = live(&mut a);
    // It follows the child live.
    event(
        &mut a,
        "sa-1-ab12",
        AgentEvent::ToolResult {
            id: "t1".into(),
            is_error: true,
            content: text("test result: FAILED. 1 failed\nfailures:\n  parse::empty"),
        },
    );
    event(
        &mut a,
        "sa-1-ab12",
        AgentEvent::TextDelta {
            delta: "One test fails: parse::empty.".into(),
        },
    );
    let after = live(&mut a);
    insta::assert_snapshot!(format!(
        "{dashboard}\n=== enter ===\n{before}\n=== live ===\n{after}"
    ));

    // Ctrl+X stops it through the conversation; Esc goes back.
    assert_eq!(
        ctrl(&mut a, 'x'),
        vec![Effect::Command {
            name: "subagents".into(),
            args: "stop sa-1-ab12".into()
        }]
    );
    event(
        &mut a,
        "sa-1-ab12",
        AgentEvent::SubagentEnd {
            state: "stopped".into(),
            final_text: String::new(),
            error: None,
            turns: 1,
            usage: UsageCounts::default(),
            transcript: String::new(),
        },
    );
    assert!(live(&mut a).contains("── stopped ──"));
    key(&mut a, KeyCode::Esc);
    let p = a.picker.as_ref().unwrap();
    assert_eq!(p.kind, PickerKind::Subagents);
    assert_eq!(p.title, "subagents · 0 of 2 working");
    assert_eq!(p.selected_item().unwrap().value, "sa-1-ab12");

    // Ctrl+E on the second: the message is typed in the editor.
    key(&mut a, KeyCode::Down);
    assert!(ctrl(&mut a, 'e').is_empty());
    assert!(a.picker.is_none());
    typ(&mut a, "and the licence?");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::Command {
            name: "subagents".into(),
            args: "message sa-2-cd34 and the licence?".into()
        }]
    );
}

#[test]
fn an_empty_dashboard_says_how_children_start() {
    let mut a = app(100, 14);
    typ(&mut a, "/subagents");
    key(&mut a, KeyCode::Enter);
    let s = live(&mut a);
    assert!(
        s.contains("no subagents yet: the model starts them with the subagent tool"),
        "{s}"
    );
}

#[test]
fn orchestrator_toggles_through_the_conversation() {
    let mut a = app(100, 14);
    typ(&mut a, "/orchestrator");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::Command {
            name: "orchestrator".into(),
            args: "on".into()
        }]
    );
    a.status.orchestrator = true;
    assert!(live(&mut a).contains("orchestrating"));
    typ(&mut a, "/orchestrator");
    assert_eq!(
        key(&mut a, KeyCode::Enter),
        vec![Effect::Command {
            name: "orchestrator".into(),
            args: "off".into()
        }]
    );
}

#[test]
fn childrens_events_are_chrome_and_the_parents_are_not() {
    // Children's progress repaints at most once per chrome frame, however
    // fast eight of them stream; the parent's own text paints at once.
    let child = zut_tui::TuiEvent::Subagent {
        id: "sa-1-ab12".into(),
        event: AgentEvent::TextDelta {
            delta: "lorem".into(),
        },
    };
    assert!(zut_tui::status::is_chrome(&child));
    let own = zut_tui::TuiEvent::Agent(AgentEvent::TextDelta {
        delta: "lorem".into(),
    });
    assert!(!zut_tui::status::is_chrome(&own));
}

#[test]
fn a_long_reply_without_newlines_stays_bounded_in_the_transcript_view() {
    let mut a = app(120, 22);
    start(&mut a, "sa-1-ab12", "stream a long line");
    for i in 0..20_000 {
        let delta = if i == 19_999 { "THE-END" } else { "0123456789" };
        event(
            &mut a,
            "sa-1-ab12",
            AgentEvent::TextDelta {
                delta: delta.into(),
            },
        );
    }
    let c = a.subagents.get("sa-1-ab12").unwrap();
    assert!(c.lines.len() <= 2000, "{}", c.lines.len());
    assert!(c.lines.iter().all(|l| l.chars().count() <= 96));
    typ(&mut a, "/subagents");
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Enter);
    let view = live(&mut a);
    assert!(view.contains("THE-END"), "{view}");
}
