//! The TUI's subagent commands run on the conversation side:
//! `/subagents stop <id>`, `/subagents message <id> <text>` (sent by the
//! dashboard's Ctrl+X and Ctrl+E, see `zut_tui::subagents_view`) and
//! `/orchestrator on|off`.

use tokio::sync::mpsc;
use zut_tui::{CommandOutcome, TuiEvent};

fn done(tx: &mpsc::UnboundedSender<TuiEvent>, label: &str, outcome: CommandOutcome) {
    let _ = tx.send(TuiEvent::CommandDone {
        label: label.to_string(),
        outcome,
    });
}

/// `/subagents stop <id>` or `/subagents message <id> <text>`.
pub fn command(ctrl: &zut_agent::Controller, args: &str, tx: &mpsc::UnboundedSender<TuiEvent>) {
    done(tx, "/subagents", run(ctrl, args));
}

fn run(ctrl: &zut_agent::Controller, args: &str) -> CommandOutcome {
    const USAGE: &str = "use /subagents, /subagents message <id> <text> or /subagents stop <id>";
    let mut words = args.trim().splitn(3, char::is_whitespace);
    let (action, id) = (words.next().unwrap_or_default(), words.next());
    let text = words.next().map(str::trim).unwrap_or_default();
    let Some(id) = id.filter(|i| !i.is_empty()) else {
        return CommandOutcome::Error(format!("/subagents {}: {USAGE}", args.trim()));
    };
    let Some(rt) = ctrl.subagents() else {
        return CommandOutcome::Error("no subagents in this conversation".into());
    };
    let child = match rt.find(id) {
        Ok(c) => c,
        Err(e) => return CommandOutcome::Error(e),
    };
    match action {
        "stop" => {
            child.stop();
            CommandOutcome::Status(format!("stopping subagent {}", child.id))
        }
        "message" | "msg" => {
            if text.is_empty() {
                return CommandOutcome::Error(format!(
                    "/subagents message {id}: the message is empty"
                ));
            }
            if child.status().state == zut_agent::subagent::runtime::ChildState::Stopped {
                return CommandOutcome::Error(format!("subagent {} was stopped", child.id));
            }
            // As the tool's `message`: the running turn gives way to it.
            child.interrupt();
            match child.send(text.to_string()) {
                Ok(()) => CommandOutcome::Status(format!("message sent to subagent {}", child.id)),
                Err(e) => CommandOutcome::Error(e),
            }
        }
        _ => CommandOutcome::Error(format!("/subagents {}: {USAGE}", args.trim())),
    }
}

/// `/orchestrator on|off`.
pub fn orchestrator(
    ctrl: &zut_agent::Controller,
    args: &str,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    let on = match args.trim() {
        "on" => true,
        "off" => false,
        other => {
            return done(
                tx,
                "/orchestrator",
                CommandOutcome::Error(format!(
                "/orchestrator {other:?}: use /orchestrator, /orchestrator on or /orchestrator off"
            )),
            )
        }
    };
    match ctrl.set_orchestrate(on) {
        Ok(()) => {
            let _ = tx.send(TuiEvent::Orchestrating(on));
            let text = if on {
                "orchestrator on: the next prompts only read and delegate to subagents"
            } else {
                "orchestrator off: the agent works itself again"
            };
            done(tx, "/orchestrator", CommandOutcome::Status(text.into()));
        }
        Err(e) => done(tx, "/orchestrator", CommandOutcome::Error(e)),
    }
}
