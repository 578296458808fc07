//! Goals (tools.md §8): the `update_goal` tool, the `/goal` command's state
//! changes, and the continuation turns that keep an active goal going.
//!
//! The state is the Go original's session meta: `mission`, `goal` and
//! `goal_history` (a repeated `meta` row after every transition; unknown
//! fields are kept). While the goal is active and a prompt's turn ends,
//! the agent sends a visible `[goal continuation]` user message (meta
//! `zut_goal_continue:"true"`, as Go) and goes on, within a token budget
//! (default 400,000) and a time budget (default 30 minutes); it stops at
//! a budget with a `goal_update` event whose reason says which, and after
//! two continuations in a row without a tool call (`stalled`).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use zut_providers::{Message, Part, Role};

use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;

/// The tool's name.
pub const GOAL_TOOL: &str = "update_goal";
/// Meta key of a continuation message (Go `goalContinueMetaKey`).
pub const CONTINUE_META_KEY: &str = "zut_goal_continue";
/// The visible prefix of a continuation message.
pub const CONTINUATION_PREFIX: &str = "[goal continuation]";
/// Default token budget of a goal.
pub const DEFAULT_TOKEN_BUDGET: u64 = 400_000;
/// Default time budget of a goal's continuations (per prompt).
pub const DEFAULT_TIME_BUDGET: Duration = Duration::from_secs(30 * 60);
/// Continuations without a tool call before the goal is `stalled`.
pub const MAX_NO_PROGRESS: u32 = 2;

/// The mission (Go `SessionMission`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mission {
    /// Id.
    #[serde(default)]
    pub id: String,
    /// The user's (or manager's) objective.
    #[serde(default)]
    pub objective: String,
    /// active, paused, completed, blocked.
    #[serde(default)]
    pub status: String,
    /// user or manager.
    #[serde(default)]
    pub source: String,
    /// The current goal's id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub active_goal_id: String,
    /// Manager goals created.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub transition_count: u64,
    /// Why it is blocked.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Fields zut does not use, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One goal (Go `SessionGoal`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    /// Id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// Its mission.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mission_id: String,
    /// What to achieve.
    #[serde(default)]
    pub objective: String,
    /// active, paused, blocked, done, budget_limited, stalled, superseded.
    #[serde(default)]
    pub status: String,
    /// user or manager.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub owner: String,
    /// Position in the mission.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ordinal: u64,
    /// Why it stopped.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Token budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_budget: Option<u64>,
    /// Tokens spent on it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens_used: u64,
    /// Lease of a running continuation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub continuation_id: String,
    /// Continuations in a row without a tool call.
    #[serde(default, skip_serializing_if = "is_zero32")]
    pub consecutive_no_progress_turns: u32,
    /// Fields zut does not use, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero32(n: &u32) -> bool {
    *n == 0
}

/// Tells whether other work (a prompt typed meanwhile, a scheduled one)
/// waits: the next continuation then gives way to it, and the goal goes on
/// after that prompt (as Go: queued user input always runs first).
pub type WorkWaiting = std::sync::Arc<dyn Fn() -> bool + Send + Sync>;

/// The goal state of a conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoalState {
    /// The mission, if any.
    pub mission: Option<Mission>,
    /// The current goal, if any.
    pub goal: Option<Goal>,
    /// Earlier goal states, oldest first.
    pub history: Vec<Goal>,
    /// Continuation turns run in this process.
    pub continuations: u64,
}

/// Budgets of new goals (`config.json` `goals.max_token_budget`,
/// `goals.max_minutes`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GoalBudget {
    /// Tokens (input + output + cache) per goal; 0: no token budget.
    pub tokens: u64,
    /// Wall time of the continuations of one prompt; zero: no limit.
    pub time: Duration,
}

impl Default for GoalBudget {
    fn default() -> Self {
        Self {
            tokens: DEFAULT_TOKEN_BUDGET,
            time: DEFAULT_TIME_BUDGET,
        }
    }
}

impl GoalState {
    /// The state in a session meta (a stale continuation lease cleared;
    /// a legacy goal without mission gets one, as Go normalises).
    pub fn from_meta(meta: &zut_session::Meta) -> Self {
        let get = |k: &str| meta.extra.get(k).cloned();
        let mission: Option<Mission> = get("mission").and_then(|v| serde_json::from_value(v).ok());
        let mut goal: Option<Goal> = get("goal").and_then(|v| serde_json::from_value(v).ok());
        let history: Vec<Goal> = get("goal_history")
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default();
        if let Some(g) = goal.as_mut() {
            g.continuation_id.clear();
        }
        let mut state = Self {
            mission,
            goal,
            history,
            continuations: 0,
        };
        if state.mission.is_none() {
            if let Some(g) = state.goal.as_mut() {
                let id = format!("legacy-{}", meta.id);
                if g.id.is_empty() {
                    g.id = format!("legacy-goal-{}", meta.id);
                }
                g.mission_id = id.clone();
                state.mission = Some(Mission {
                    id,
                    objective: g.objective.clone(),
                    status: mission_status(&g.status).to_string(),
                    source: "user".into(),
                    active_goal_id: g.id.clone(),
                    ..Mission::default()
                });
            }
        }
        state
    }

    /// Writes the state into `extra` (absent parts removed).
    pub fn write_meta(&self, extra: &mut Map<String, Value>) {
        let mut put = |k: &str, v: Option<Value>| match v {
            Some(v) => {
                extra.insert(k.to_string(), v);
            }
            None => {
                extra.remove(k);
            }
        };
        put("mission", self.mission.as_ref().map(|m| json!(m)));
        put("goal", self.goal.as_ref().map(|g| json!(g)));
        put(
            "goal_history",
            (!self.history.is_empty()).then(|| json!(self.history)),
        );
    }

    /// Whether the current goal is active.
    pub fn active(&self) -> bool {
        self.goal.as_ref().is_some_and(|g| g.status == "active")
    }

    /// A new active goal (the old one goes to the history).
    pub fn start(&mut self, objective: &str, owner: &str, budget: u64) {
        if let Some(old) = self.goal.take() {
            self.history.push(old);
        }
        let mission = self.mission.get_or_insert_with(|| Mission {
            id: uuid::Uuid::new_v4().to_string(),
            objective: objective.to_string(),
            source: owner.to_string(),
            ..Mission::default()
        });
        if owner == "manager" {
            mission.transition_count += 1;
        }
        let goal = Goal {
            id: uuid::Uuid::new_v4().to_string(),
            mission_id: mission.id.clone(),
            objective: objective.to_string(),
            status: "active".into(),
            owner: owner.to_string(),
            ordinal: self.history.len() as u64 + 1,
            token_budget: (budget > 0).then_some(budget),
            ..Goal::default()
        };
        mission.active_goal_id = goal.id.clone();
        mission.status = "active".into();
        mission.reason.clear();
        self.goal = Some(goal);
    }

    /// Sets the current goal's status (and the mission's to match).
    pub fn set_status(&mut self, status: &str, reason: &str) {
        let Some(g) = self.goal.as_mut() else {
            return;
        };
        self.history.push(g.clone());
        g.status = status.to_string();
        g.reason = reason.to_string();
        if let Some(m) = self.mission.as_mut() {
            m.status = mission_status(status).to_string();
            m.reason = if m.status == "blocked" {
                reason.to_string()
            } else {
                String::new()
            };
        }
    }

    /// `goal <status> (<owner>): <objective>[ (<used> / <budget> tokens)][ (<reason>)]`.
    pub fn status_line(&self) -> String {
        let Some(g) = &self.goal else {
            return "no autonomous goal".into();
        };
        let mut s = format!("goal {} ({}): {}", g.status, owner(g), g.objective);
        match g.token_budget {
            Some(b) => s.push_str(&format!(" ({} / {b} tokens)", g.tokens_used)),
            None if g.tokens_used > 0 => s.push_str(&format!(" ({} tokens)", g.tokens_used)),
            None => {}
        }
        if !g.reason.is_empty() {
            s.push_str(&format!(" ({})", g.reason));
        }
        s
    }

    /// `goal history: <status> (<owner>): <objective>[ (<reason>)] → …`.
    pub fn history_line(&self) -> String {
        let all: Vec<String> = self
            .history
            .iter()
            .chain(self.goal.iter())
            .map(|g| {
                let mut s = format!("{} ({}): {}", g.status, owner(g), g.objective);
                if !g.reason.is_empty() {
                    s.push_str(&format!(" ({})", g.reason));
                }
                s
            })
            .collect();
        if all.is_empty() {
            "no goal history".into()
        } else {
            format!("goal history: {}", all.join(" → "))
        }
    }

    /// The `goal_update` event of this state.
    pub fn event(&self) -> AgentEvent {
        match &self.goal {
            Some(g) => AgentEvent::GoalUpdate {
                status: g.status.clone(),
                objective: g.objective.clone(),
                owner: owner(g).to_string(),
                tokens_used: g.tokens_used,
                token_budget: g.token_budget,
                continuations: self.continuations,
                reason: (!g.reason.is_empty()).then(|| g.reason.clone()),
            },
            None => AgentEvent::GoalUpdate {
                status: "cleared".into(),
                objective: String::new(),
                owner: String::new(),
                tokens_used: 0,
                token_budget: None,
                continuations: self.continuations,
                reason: None,
            },
        }
    }
}

fn owner(g: &Goal) -> &str {
    if g.owner.is_empty() {
        "user"
    } else {
        &g.owner
    }
}

fn mission_status(goal_status: &str) -> &'static str {
    match goal_status {
        "done" => "completed",
        "paused" => "paused",
        "blocked" | "budget_limited" | "stalled" => "blocked",
        _ => "active",
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGoal {
    status: String,
    #[serde(default)]
    objective: String,
    #[serde(default)]
    mission_id: String,
    #[serde(default)]
    reason: String,
}

/// Whether `/goal <args>` answers with a text (the status, the history)
/// rather than a goal change and a turn.
pub fn answers_with_text(args: &str) -> bool {
    matches!(args.trim(), "" | "history")
}

/// The continuation message text.
pub fn continuation_text(g: &Goal, no_progress: bool) -> String {
    let mut s = format!(
        "{CONTINUATION_PREFIX} Keep working on the goal autonomously: {}\n\
         Do not stop at a progress update. Call `update_goal` with status `complete` when the \
         goal is achieved, or `blocked` with a reason if you cannot go on. If the goal turns \
         out to be wrong, use status `superseded` with the corrected objective; do not broaden it.",
        g.objective
    );
    if no_progress {
        s.push_str("\nThe previous continuation made no progress: take a concrete action now.");
    }
    if !g.mission_id.is_empty() {
        s.push_str(&format!(
            "\nUse mission_id {} when setting a next goal.",
            g.mission_id
        ));
    }
    s
}

impl Agent {
    /// The goal state.
    pub fn goals(&self) -> &GoalState {
        &self.goals
    }

    /// Persists the goal state (a meta row) when a session is attached.
    fn persist_goals(&mut self) -> Result<(), String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(());
        };
        let mut meta = s.writer().meta().clone();
        self.goals.write_meta(&mut meta.extra);
        s.writer_mut()
            .append(&zut_session::Row::Meta(meta))
            .map_err(|e| e.to_string())
    }

    /// Applies `change` to the goal state; persisted (else undone) and
    /// announced with `goal_update`.
    fn change_goals(
        &mut self,
        sink: EventSink<'_>,
        change: impl FnOnce(&mut GoalState),
    ) -> Result<(), String> {
        let before = self.goals.clone();
        change(&mut self.goals);
        if let Err(e) = self.persist_goals() {
            self.goals = before;
            return Err(format!("goal state could not be saved ({e})"));
        }
        sink(self.goals.event());
        Ok(())
    }

    /// `/goal [args]`: the text to show, and the prompt to run (a new or
    /// resumed goal starts working at once).
    pub fn goal_command(
        &mut self,
        args: &str,
        sink: EventSink<'_>,
    ) -> Result<(String, Option<String>), String> {
        let args = args.trim();
        let budget = self.config.goals.tokens;
        match args {
            "" => Ok((self.goals.status_line(), None)),
            // Sent by the TUI when a prompt waits behind a goal's
            // continuations: a queued job, so the next continuation gives
            // way (WorkWaiting); nothing changes.
            "yield" => Ok((String::new(), None)),
            "history" => Ok((self.goals.history_line(), None)),
            "pause" => {
                let Some(g) = self.goals.goal.clone() else {
                    return Err("goal: no goal to pause".into());
                };
                self.change_goals(sink, |s| s.set_status("paused", ""))?;
                Ok((format!("autonomous goal paused: {}", g.objective), None))
            }
            "resume" => {
                let Some(g) = self.goals.goal.clone() else {
                    return Err("goal: no goal to resume".into());
                };
                if g.token_budget.is_some_and(|b| g.tokens_used >= b) {
                    return Err(format!(
                        "goal: its token budget is spent ({} / {} tokens); start a new goal with /goal <objective>",
                        g.tokens_used,
                        g.token_budget.unwrap_or(0)
                    ));
                }
                self.change_goals(sink, |s| s.set_status("active", ""))?;
                Ok((
                    format!("autonomous goal active: {}", g.objective),
                    Some(continuation_text(&g, false)),
                ))
            }
            "clear" => {
                self.change_goals(sink, |g| {
                    g.goal = None;
                    g.mission = None;
                })?;
                Ok(("autonomous goal cleared".into(), None))
            }
            objective => {
                let objective = objective.to_string();
                self.change_goals(sink, |g| g.start(&objective, "user", budget))?;
                Ok((
                    format!("autonomous goal active: {objective}"),
                    Some(objective),
                ))
            }
        }
    }

    /// Runs an `update_goal` call.
    pub(crate) fn run_goal_tool(&mut self, args: &Value, sink: EventSink<'_>) -> (bool, Vec<Part>) {
        let error = |text: &str| {
            (
                true,
                vec![Part::Text {
                    text: text.to_string(),
                }],
            )
        };
        let Ok(raw) = serde_json::from_value::<RawGoal>(args.clone()) else {
            return error("invalid arguments");
        };
        let (status, objective, mission_id, reason) = (
            raw.status.trim(),
            raw.objective.trim().to_string(),
            raw.mission_id.trim().to_string(),
            raw.reason.trim().to_string(),
        );
        let stored = match status {
            "active" if objective.is_empty() => {
                return error("objective is required when setting a goal")
            }
            "superseded" if objective.is_empty() => {
                return error("objective is required when superseding a goal")
            }
            "blocked" if reason.is_empty() => {
                return error("reason is required when blocking a goal")
            }
            "active" => "active",
            "complete" => "done",
            "blocked" => "blocked",
            "superseded" => "superseded",
            _ => return error("status must be active, complete, blocked, or superseded"),
        };
        let mission = self.goals.mission.as_ref().map(|m| m.id.clone());
        if !mission_id.is_empty() && mission.as_ref().is_some_and(|m| *m != mission_id) {
            return error("goal transition rejected: it does not belong to the active mission");
        }
        let budget = self.config.goals.tokens;
        let result = match stored {
            "active" => {
                if self.goals.active() {
                    return error("goal transition rejected: the current goal is still active");
                }
                self.change_goals(sink, |g| g.start(&objective, "manager", budget))
            }
            _ if !self.goals.active() => {
                return error("goal transition rejected: no active goal");
            }
            "superseded" => self.change_goals(sink, |g| {
                g.set_status("superseded", "");
                g.start(&objective, "manager", budget);
            }),
            other => self.change_goals(sink, |g| g.set_status(other, &reason)),
        };
        if let Err(e) = result {
            return error(&e);
        }
        let mut text = format!("autonomous goal marked {stored}");
        if stored == "blocked" {
            text.push_str(&format!(": {reason}"));
        }
        (false, vec![Part::Text { text }])
    }

    /// Adds `tokens` to the active goal's count (persisted with the next
    /// transition or continuation).
    pub(crate) fn count_goal_tokens(&mut self, tokens: u64) {
        if let Some(g) = self.goals.goal.as_mut().filter(|g| g.status == "active") {
            g.tokens_used = g.tokens_used.saturating_add(tokens);
        }
    }

    /// Why the active goal cannot continue now (the status and reason it
    /// takes), or `None` to continue.
    fn goal_stop(&self, started: Instant) -> Option<(&'static str, String)> {
        let g = self.goals.goal.as_ref()?;
        if let Some(b) = g.token_budget.filter(|b| g.tokens_used >= *b) {
            return Some((
                "budget_limited",
                format!(
                    "configured token budget exhausted ({} / {b} tokens)",
                    g.tokens_used
                ),
            ));
        }
        if !self.config.goals.time.is_zero() && started.elapsed() >= self.config.goals.time {
            return Some((
                "budget_limited",
                format!(
                    "time budget exhausted ({} min of continuations)",
                    self.config.goals.time.as_secs() / 60
                ),
            ));
        }
        if g.consecutive_no_progress_turns >= MAX_NO_PROGRESS {
            return Some((
                "stalled",
                "agent ended consecutive continuations without a concrete action".into(),
            ));
        }
        None
    }

    /// Continuation turns while the goal is active: returns the last
    /// outcome. Called after a prompt's turn completed.
    pub(crate) async fn continue_goal(
        &mut self,
        mut outcome: crate::outcome::PromptOutcome,
        cancel: &tokio_util::sync::CancellationToken,
        sink: EventSink<'_>,
    ) -> crate::outcome::PromptOutcome {
        let started = Instant::now();
        while self.goals.active()
            && !cancel.is_cancelled()
            && matches!(outcome, crate::outcome::PromptOutcome::Completed { .. })
        {
            if self.work_waiting.as_ref().is_some_and(|waiting| waiting()) {
                // The goal stays active: it continues after that work.
                break;
            }
            if let Some((status, reason)) = self.goal_stop(started) {
                if let Err(e) = self.change_goals(sink, |g| g.set_status(status, &reason)) {
                    tracing::warn!("{e}");
                }
                break;
            }
            let Some(goal) = self.goals.goal.clone() else {
                break;
            };
            self.goals.continuations += 1;
            sink(self.goals.event());
            let text = continuation_text(&goal, goal.consecutive_no_progress_turns > 0);
            let user = Message {
                role: Role::User,
                content: vec![Part::Text { text }],
            };
            sink(AgentEvent::UserMessage {
                content: crate::transcript::json_blocks(&user.content),
                time: crate::transcript::now_rfc3339(),
            });
            let mut row = crate::session_bridge::from_provider(&user);
            row.meta = Some([(CONTINUE_META_KEY.to_string(), "true".to_string())].into());
            if let Some(s) = self.session.as_mut() {
                if let Err(e) = s.writer_mut().append_message(&row) {
                    return crate::outcome::PromptOutcome::Failed {
                        message: e.to_string(),
                    };
                }
            }
            let before = self.transcript.len();
            self.transcript.push(user);
            outcome = self.run_steps(cancel, sink).await;
            let progress = self.transcript[before..].iter().any(|m| {
                m.content
                    .iter()
                    .any(|p| matches!(p, Part::ToolCall { name, .. } if name != GOAL_TOOL))
            });
            if let Some(g) = self.goals.goal.as_mut() {
                g.consecutive_no_progress_turns = if progress {
                    0
                } else {
                    g.consecutive_no_progress_turns + 1
                };
            }
            if let Err(e) = self.persist_goals() {
                tracing::warn!("goal state not persisted: {e}");
            }
        }
        // A failed turn (provider error, --max-steps) blocks the goal, as
        // Go: no continuation loops on an error; `/goal resume` retries.
        if let crate::outcome::PromptOutcome::Failed { message } = &outcome {
            if self.goals.active() && !cancel.is_cancelled() {
                let first: String = message
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(200)
                    .collect();
                let reason = format!("a turn failed: {first}");
                if let Err(e) = self.change_goals(sink, |g| g.set_status("blocked", &reason)) {
                    tracing::warn!("{e}");
                }
            }
        }
        // Esc (a cancelled turn) pauses the goal: one key stops the
        // continuations; `/goal resume` goes on.
        if cancel.is_cancelled() && self.goals.active() {
            let reason = "stopped by the user";
            if let Err(e) = self.change_goals(sink, |g| g.set_status("paused", reason)) {
                tracing::warn!("{e}");
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_round_trip_keeps_unknown_fields_and_normalises_legacy() {
        let mut meta = zut_session::Meta {
            id: "S".into(),
            ..Default::default()
        };
        meta.extra.insert(
            "goal".into(),
            json!({"objective":"ship it","status":"active","continuation_id":"x","future":1}),
        );
        let st = GoalState::from_meta(&meta);
        let g = st.goal.as_ref().unwrap();
        assert!(g.continuation_id.is_empty());
        assert_eq!(g.mission_id, "legacy-S");
        assert_eq!(st.mission.as_ref().unwrap().status, "active");
        let mut extra = Map::new();
        st.write_meta(&mut extra);
        assert_eq!(extra["goal"]["future"], 1);
        assert_eq!(extra["mission"]["id"], "legacy-S");
        assert!(extra.get("goal_history").is_none());
    }

    #[test]
    fn children_get_neither_goals_nor_schedules() {
        let mut parent = crate::AgentConfig::new("/tmp", "/tmp/h");
        parent.builtin_tools.push("schedule".into());
        parent.builtin_tools.push("subagent".into());
        assert!(parent.builtin_tools.iter().any(|t| t == GOAL_TOOL));
        let child =
            crate::subagent::runtime::child_config(&parent, None, std::path::Path::new("/tmp"))
                .unwrap();
        for name in [GOAL_TOOL, "schedule", "subagent"] {
            assert!(!child.builtin_tools.iter().any(|t| t == name), "{name}");
        }
        assert!(child.builtin_tools.iter().any(|t| t == "plan"));
    }

    #[test]
    fn transitions_and_lines() {
        let mut st = GoalState::default();
        assert_eq!(st.status_line(), "no autonomous goal");
        st.start("fix it", "user", 100);
        assert!(st.active());
        st.goal.as_mut().unwrap().tokens_used = 40;
        assert_eq!(
            st.status_line(),
            "goal active (user): fix it (40 / 100 tokens)"
        );
        st.set_status("blocked", "no access");
        assert_eq!(st.mission.as_ref().unwrap().status, "blocked");
        assert_eq!(
            st.history_line(),
            "goal history: active (user): fix it → blocked (user): fix it (no access)"
        );
    }
}
