//! Extension status items as the ACP plan (`session/update` `plan`).
//!
//! ACP v1 has no place for an extension's chrome, but its plan is the list
//! an editor shows beside the thread, and a status item ("phase: build",
//! "tests: 3/5") reads well there. Each live item is one entry,
//! `<extension>: <text>`, sorted by extension then key; a `success` item is
//! `completed`, any other `in_progress`; `error` items are `high` priority,
//! `warn` ones `medium`, the rest `low`. The whole plan is sent again on
//! every change (ACP replaces it each time); an extension that exits takes
//! its entries with it. Widgets and panels are still not forwarded.
//!
//! The agent's own plan (the `plan` tool, `plan_update` events) comes
//! first: one entry per step, `medium` priority, with the step's status.
//! A goal (`update_goal`, `/goal`: `goal_update` events) comes before it:
//! `goal: <objective>`, `high` priority, `in_progress` while active,
//! `completed` when done, `pending` when paused, blocked or stopped at a
//! budget (`goal <status>: <objective>`).

use std::collections::BTreeMap;

use agent_client_protocol::v1::schema::{
    Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, SessionUpdate,
};
use zut_types::AgentEvent;

/// The live status items of one ACP session.
#[derive(Debug, Default)]
pub(crate) struct Statuses {
    /// (extension, key) -> (level, text).
    items: BTreeMap<(String, String), (String, String)>,
    /// The agent's plan (the last `plan_update`).
    steps: Vec<zut_types::PlanStep>,
    /// The goal: (status, objective), from the last `goal_update`.
    goal: Option<(String, String)>,
}

/// `text` without control characters (escapes included), on one line.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // Skip an escape sequence up to its final byte.
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else if c == '\n' || c == '\t' {
            out.push(' ');
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out.trim().to_string()
}

impl Statuses {
    /// Applies one event; the new plan when the items changed.
    pub(crate) fn apply(&mut self, ev: &AgentEvent) -> Option<SessionUpdate> {
        let changed = match ev {
            AgentEvent::ExtStatus {
                extension,
                key,
                level,
                text,
            } => {
                let id = (extension.clone(), key.clone());
                let text = clean(text);
                if key.trim().is_empty() {
                    false
                } else if text.is_empty() {
                    self.items.remove(&id).is_some()
                } else {
                    let new = (level.clone(), text);
                    self.items.insert(id, new.clone()) != Some(new)
                }
            }
            AgentEvent::ExtChromeClear { extension } => {
                let before = self.items.len();
                self.items.retain(|(ext, _), _| ext != extension);
                self.items.len() != before
            }
            AgentEvent::PlanUpdate { plan, .. } => {
                let changed = self.steps != *plan;
                self.steps = plan.clone();
                changed
            }
            AgentEvent::GoalUpdate {
                status, objective, ..
            } => {
                let goal = (status != "cleared").then(|| (status.clone(), clean(objective)));
                let changed = self.goal != goal;
                self.goal = goal;
                changed
            }
            _ => false,
        };
        changed.then(|| self.plan())
    }

    fn plan(&self) -> SessionUpdate {
        use zut_types::PlanStatus;
        let steps = self.steps.iter().map(|s| {
            let status = match s.status {
                PlanStatus::Pending => PlanEntryStatus::Pending,
                PlanStatus::InProgress => PlanEntryStatus::InProgress,
                PlanStatus::Completed => PlanEntryStatus::Completed,
            };
            PlanEntry::new(clean(&s.step), PlanEntryPriority::Medium, status)
        });
        let goal = self.goal.iter().map(|(status, objective)| {
            let (content, status) = match status.as_str() {
                "active" => (format!("goal: {objective}"), PlanEntryStatus::InProgress),
                "done" => (format!("goal: {objective}"), PlanEntryStatus::Completed),
                other => (
                    format!("goal {other}: {objective}"),
                    PlanEntryStatus::Pending,
                ),
            };
            PlanEntry::new(content, PlanEntryPriority::High, status)
        });
        let entries = goal
            .chain(steps)
            .chain(self.items.iter().map(|((ext, _), (level, text))| {
                let priority = match level.as_str() {
                    "error" => PlanEntryPriority::High,
                    "warn" | "warning" => PlanEntryPriority::Medium,
                    _ => PlanEntryPriority::Low,
                };
                let status = if level == "success" {
                    PlanEntryStatus::Completed
                } else {
                    PlanEntryStatus::InProgress
                };
                PlanEntry::new(format!("{ext}: {text}"), priority, status)
            }))
            .collect();
        SessionUpdate::Plan(Plan::new(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn goal(status: &str, objective: &str, continuations: u64) -> AgentEvent {
        AgentEvent::GoalUpdate {
            status: status.into(),
            objective: objective.into(),
            owner: "user".into(),
            tokens_used: 0,
            token_budget: None,
            continuations,
            reason: None,
        }
    }

    #[test]
    fn the_goal_comes_first_and_follows_its_status() {
        let mut s = Statuses::default();
        let got = entries(s.apply(&goal("active", "ship it", 0)));
        assert_eq!(
            got,
            [(
                "goal: ship it".to_string(),
                PlanEntryStatus::InProgress,
                PlanEntryPriority::High
            )]
        );
        // A continuation changes nothing the editor shows.
        assert!(s.apply(&goal("active", "ship it", 1)).is_none());
        let got = entries(s.apply(&status("e", "k", "info", "phase")));
        assert_eq!(got[0].0, "goal: ship it");
        assert_eq!(got[1].0, "e: phase");
        let got = entries(s.apply(&goal("budget_limited", "ship it", 2)));
        assert_eq!(got[0].0, "goal budget_limited: ship it");
        assert_eq!(got[0].1, PlanEntryStatus::Pending);
        let got = entries(s.apply(&goal("cleared", "", 2)));
        assert_eq!(got.len(), 1);
    }

    fn status(ext: &str, key: &str, level: &str, text: &str) -> AgentEvent {
        AgentEvent::ExtStatus {
            extension: ext.into(),
            key: key.into(),
            level: level.into(),
            text: text.into(),
        }
    }

    fn entries(u: Option<SessionUpdate>) -> Vec<(String, PlanEntryStatus, PlanEntryPriority)> {
        match u {
            Some(SessionUpdate::Plan(p)) => p
                .entries
                .into_iter()
                .map(|e| (e.content, e.status, e.priority))
                .collect(),
            other => panic!("no plan: {other:?}"),
        }
    }

    #[test]
    fn items_become_entries_and_leave_with_their_extension() {
        let mut s = Statuses::default();
        let e = entries(s.apply(&status("phases", "phase", "info", "build \u{1b}[31m2/4\n")));
        assert_eq!(
            e,
            [(
                "phases: build 2/4".to_string(),
                PlanEntryStatus::InProgress,
                PlanEntryPriority::Low
            )]
        );
        // The same item again changes nothing: no update.
        assert!(s
            .apply(&status("phases", "phase", "info", "build 2/4"))
            .is_none());
        let e = entries(s.apply(&status("tests", "run", "error", "3 failed")));
        assert_eq!(e.len(), 2);
        assert_eq!(e[1].2, PlanEntryPriority::High);
        let e = entries(s.apply(&status("phases", "phase", "success", "done")));
        assert_eq!(e[0].1, PlanEntryStatus::Completed);
        // Empty text removes the item; a blank key is ignored.
        assert_eq!(
            entries(s.apply(&status("tests", "run", "info", " "))).len(),
            1
        );
        assert!(s.apply(&status("tests", " ", "info", "x")).is_none());
        // The extension exits: its entries go.
        let e = entries(s.apply(&AgentEvent::ExtChromeClear {
            extension: "phases".into(),
        }));
        assert!(e.is_empty());
        assert!(s
            .apply(&AgentEvent::ExtChromeClear {
                extension: "phases".into()
            })
            .is_none());
    }

    #[test]
    fn the_agent_plan_comes_first_and_merges_with_status_items() {
        use zut_types::{PlanStatus, PlanStep};
        let mut s = Statuses::default();
        s.apply(&status("tests", "run", "warn", "3 failed"));
        let update = |plan: Vec<PlanStep>| AgentEvent::PlanUpdate {
            call_id: "c1".into(),
            explanation: None,
            plan,
        };
        let step = |t: &str, status| PlanStep {
            step: t.into(),
            status,
        };
        let e = entries(s.apply(&update(vec![
            step("read", PlanStatus::Completed),
            step("fix", PlanStatus::InProgress),
            step("test", PlanStatus::Pending),
        ])));
        assert_eq!(
            e,
            [
                (
                    "read".to_string(),
                    PlanEntryStatus::Completed,
                    PlanEntryPriority::Medium
                ),
                (
                    "fix".to_string(),
                    PlanEntryStatus::InProgress,
                    PlanEntryPriority::Medium
                ),
                (
                    "test".to_string(),
                    PlanEntryStatus::Pending,
                    PlanEntryPriority::Medium
                ),
                (
                    "tests: 3 failed".to_string(),
                    PlanEntryStatus::InProgress,
                    PlanEntryPriority::Medium
                ),
            ]
        );
        // The same plan again: no update; a status item change keeps the steps.
        assert!(s
            .apply(&update(vec![
                step("read", PlanStatus::Completed),
                step("fix", PlanStatus::InProgress),
                step("test", PlanStatus::Pending),
            ]))
            .is_none());
        let e = entries(s.apply(&status("tests", "run", "success", "ok")));
        assert_eq!(e.len(), 4);
        assert_eq!(e[0].0, "read");
        // A cleared plan leaves the status items.
        let e = entries(s.apply(&update(Vec::new())));
        assert_eq!(e.len(), 1);
    }
}
