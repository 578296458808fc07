//! Goals and schedules in the TUI (issue 24): the status bar's
//! `goal:<status>` with the count of continuation turns zut ran without a
//! prompt (`auto:<n>`), one transcript line whenever the goal's status
//! changes (started, paused, done, blocked, stopped at a budget...), and
//! the line of a scheduled task that fires (now, or queued).

use zut_types::AgentEvent;

use crate::app::App;

/// The status bar segment: `goal:active auto:2`, `goal:done auto:3`…
/// (`None` without a goal and without continuations).
pub fn status_text(status: &str, continuations: u64) -> Option<String> {
    let goal = (status != "cleared").then(|| format!("goal:{status}"));
    let auto = (continuations > 0).then(|| format!("auto:{continuations}"));
    match (goal, auto) {
        (Some(g), Some(a)) => Some(format!("{g} {a}")),
        (g, a) => g.or(a),
    }
}

/// The transcript line of a status change.
pub fn change_line(status: &str, objective: &str, reason: Option<&str>) -> String {
    let mut s = match status {
        "cleared" => "goal cleared".to_string(),
        "active" => format!("goal active: {objective}"),
        "paused" => format!("goal paused: {objective} (/goal resume to continue)"),
        "budget_limited" => format!("goal stopped at its budget: {objective}"),
        other => format!("goal {other}: {objective}"),
    };
    if let Some(r) = reason.filter(|r| !r.is_empty()) {
        s.push_str(&format!(" — {r}"));
    }
    s
}

/// Applies a `goal_update` event.
pub fn on_event(app: &mut App, ev: &AgentEvent) {
    let AgentEvent::GoalUpdate {
        status,
        objective,
        continuations,
        reason,
        tokens_used,
        token_budget,
        ..
    } = ev
    else {
        return;
    };
    app.status.goal = status_text(status, *continuations);
    let shown = format!("{status}\u{0}{objective}");
    if app.goal_shown.as_deref() == Some(shown.as_str()) {
        return;
    }
    app.goal_shown = Some(shown);
    let mut line = change_line(status, objective, reason.as_deref());
    if status != "active" && status != "cleared" {
        match token_budget {
            Some(b) => line.push_str(&format!(" ({tokens_used} / {b} tokens)")),
            None if *tokens_used > 0 => line.push_str(&format!(" ({tokens_used} tokens)")),
            None => {}
        }
    }
    let style = match status.as_str() {
        "active" | "done" | "cleared" => app.theme.accent,
        _ => app.theme.warn,
    };
    app.transcript.notice(&line, style);
}

/// A prompt was queued while busy: when a goal is continuing, the
/// conversation is told (`/goal yield`, once per wait) so the next
/// continuation gives way to the prompt; the goal goes on after it.
pub fn give_way(app: &mut App) -> Vec<crate::app::Effect> {
    let continuing = app
        .status
        .goal
        .as_deref()
        .is_some_and(|g| g.starts_with("goal:active"));
    if continuing && app.queue.len() == 1 {
        vec![crate::app::Effect::Command {
            name: "goal".into(),
            args: "yield".into(),
        }]
    } else {
        Vec::new()
    }
}

/// A scheduled task is due: a line, then its prompt runs (idle) or waits
/// in the queue behind the running turn or an open confirmation dialog.
pub fn scheduled(app: &mut App, id: &str, message: String) -> Vec<crate::app::Effect> {
    let short: String = id.chars().take(8).collect();
    let line = if app.busy {
        format!("scheduled task {short} is due: queued behind the running turn")
    } else {
        format!("scheduled task {short} is due: running it")
    };
    app.transcript.notice(&line, app.theme.dim);
    app.enqueue(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_segment() {
        assert_eq!(status_text("cleared", 0), None);
        assert_eq!(status_text("active", 0).as_deref(), Some("goal:active"));
        assert_eq!(status_text("done", 3).as_deref(), Some("goal:done auto:3"));
        assert_eq!(status_text("cleared", 2).as_deref(), Some("auto:2"));
    }

    #[test]
    fn lines() {
        assert_eq!(
            change_line(
                "budget_limited",
                "ship",
                Some("configured token budget exhausted")
            ),
            "goal stopped at its budget: ship — configured token budget exhausted"
        );
        assert_eq!(change_line("cleared", "", None), "goal cleared");
    }
}
