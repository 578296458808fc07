//! The `plan` tool (tools.md §7): the session's checklist of pending /
//! in-progress / completed steps, kept by the agent, persisted as the
//! `plan` field of a repeated `meta` row (`{steps:[{step,status}],
//! updated}`, the Go original's `SessionPlan`), announced by a
//! `plan_update` event before the call's `tool_result`, and carried into
//! compaction summaries. `update_plan` (the seed-era name: the whole list
//! as `plan`) is accepted as an alias.

use serde::Deserialize;
use serde_json::{json, Value};
use zut_providers::Part;
use zut_tools::limits::{PLAN_MAX_STEPS, PLAN_MAX_STEP_CHARS};
use zut_types::plan::{PlanStatus, PlanStep};

use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;

/// The tool's name.
pub const PLAN_TOOL: &str = "plan";
/// The seed-era name, accepted as an alias while `plan` is enabled.
pub const PLAN_ALIAS: &str = "update_plan";
/// The session meta field holding the plan.
pub const PLAN_META_KEY: &str = "plan";
/// Steps of the plan a compaction summary carries.
pub const COMPACTION_PLAN_STEPS: usize = 12;

/// Whether a call named `name` goes to the plan tool.
pub fn is_plan_call(name: &str) -> bool {
    name == PLAN_TOOL || name == PLAN_ALIAS
}

/// One parsed plan call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlanOp {
    /// `set`, `add`, `update`, `remove`, `clear` or `show`.
    pub action: String,
    /// The model's note.
    pub explanation: Option<String>,
    /// Steps for `set` and `add`.
    pub steps: Vec<PlanStep>,
    /// 1-based position for `update` and `remove` (0: omitted).
    pub index: usize,
    /// New text for `update`.
    pub text: Option<String>,
    /// New status for `update`.
    pub status: Option<PlanStatus>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    step: String,
    #[serde(default)]
    status: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    #[serde(default)]
    action: String,
    #[serde(default)]
    explanation: Option<String>,
    #[serde(default)]
    steps: Option<Vec<RawStep>>,
    #[serde(default)]
    index: Option<Value>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    step: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAlias {
    #[serde(default)]
    explanation: Option<String>,
    plan: Vec<RawStep>,
}

fn status_of(s: Option<&str>) -> Result<Option<PlanStatus>, String> {
    match s.map(str::trim) {
        None | Some("") => Ok(None),
        Some(s) => PlanStatus::parse(s)
            .map(Some)
            .ok_or_else(|| format!("plan: unknown status {s:?}")),
    }
}

fn steps_of(raw: Vec<RawStep>) -> Result<Vec<PlanStep>, String> {
    raw.into_iter()
        .map(|r| {
            Ok(PlanStep {
                step: r.step,
                status: status_of(r.status.as_deref())?.unwrap_or_default(),
            })
        })
        .collect()
}

/// Decodes the arguments of a `plan` (or `update_plan`) call.
pub fn parse_op(name: &str, args: &Value) -> Result<PlanOp, String> {
    if name == PLAN_ALIAS {
        let raw: RawAlias =
            serde_json::from_value(args.clone()).map_err(|e| format!("invalid arguments: {e}"))?;
        let steps = steps_of(raw.plan)?;
        let action = if steps.is_empty() { "clear" } else { "set" };
        return Ok(PlanOp {
            action: action.to_string(),
            explanation: raw.explanation,
            steps,
            ..PlanOp::default()
        });
    }
    let raw: RawPlan =
        serde_json::from_value(args.clone()).map_err(|e| format!("invalid arguments: {e}"))?;
    let index = match &raw.index {
        None | Some(Value::Null) => 0,
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .ok_or_else(|| "invalid arguments: index must be a whole number ≥ 1".to_string())?
            as usize,
    };
    Ok(PlanOp {
        action: raw.action.trim().to_string(),
        explanation: raw.explanation,
        steps: steps_of(raw.steps.unwrap_or_default())?,
        index,
        text: raw.step,
        status: status_of(raw.status.as_deref())?,
    })
}

/// The plan after `op` on `current` (nothing changes yet), or the error
/// text the model gets. `show` returns the current plan unchanged.
pub fn preview(current: &[PlanStep], op: &PlanOp) -> Result<Vec<PlanStep>, String> {
    let mut plan = current.to_vec();
    let out_of_range =
        |i: usize, n: usize| format!("plan: index {i} out of range (plan has {n} steps)");
    match op.action.as_str() {
        "" => return Err("plan: action is required".into()),
        "show" => return Ok(plan),
        "set" => {
            if op.steps.is_empty() {
                return Err(
                    "plan: steps are required for set (use clear to remove every step)".into(),
                );
            }
            check_count(op.steps.len(), "set")?;
            plan = op.steps.clone();
        }
        "add" => {
            if op.steps.is_empty() {
                return Err("plan: steps are required for add".into());
            }
            check_count(plan.len().saturating_add(op.steps.len()), "add")?;
            plan.extend(op.steps.iter().cloned());
        }
        "update" => {
            if op.index < 1 || op.index > plan.len() {
                return Err(out_of_range(op.index, plan.len()));
            }
            if op.status.is_none() && op.text.is_none() {
                return Err("plan: update requires status or step".into());
            }
            let step = &mut plan[op.index - 1];
            if let Some(text) = &op.text {
                step.step = text.clone();
            }
            if let Some(status) = op.status {
                step.status = status;
            }
        }
        "remove" => {
            if op.index < 1 || op.index > plan.len() {
                return Err(out_of_range(op.index, plan.len()));
            }
            plan.remove(op.index - 1);
        }
        "clear" => plan.clear(),
        other => return Err(format!("plan: unknown action {other:?}")),
    }
    for (i, s) in plan.iter().enumerate() {
        if s.step.trim().is_empty() {
            return Err("plan: step text is required".into());
        }
        let chars = s.step.chars().count();
        if chars > PLAN_MAX_STEP_CHARS {
            return Err(format!(
                "plan: step {} has {chars} characters; at most {PLAN_MAX_STEP_CHARS} are allowed \
                 (shorten it)",
                i + 1
            ));
        }
    }
    Ok(plan)
}

fn check_count(n: usize, action: &str) -> Result<(), String> {
    if n > PLAN_MAX_STEPS {
        return Err(format!(
            "plan: at most {PLAN_MAX_STEPS} steps are kept, and this {action} would make {n}; \
             merge steps or keep the plan at a coarser level"
        ));
    }
    Ok(())
}

/// The text the model gets: the listing for `show`, else a summary that
/// never repeats the list.
pub fn result_text(action: &str, plan: &[PlanStep]) -> String {
    if action == "show" {
        return listing(plan);
    }
    if plan.is_empty() {
        return "Plan cleared".into();
    }
    let completed = plan
        .iter()
        .filter(|s| s.status == PlanStatus::Completed)
        .count();
    let in_progress: Vec<String> = plan
        .iter()
        .enumerate()
        .filter(|(_, s)| s.status == PlanStatus::InProgress)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    let mut text = format!("Plan updated ({completed}/{} completed", plan.len());
    match in_progress.len() {
        0 => {}
        1 => text.push_str(&format!("; in progress: step {}", in_progress[0])),
        _ => text.push_str(&format!("; in progress: steps {}", in_progress.join(", "))),
    }
    text.push(')');
    text
}

/// `1. [x] text` lines, or `Plan is empty`.
pub fn listing(plan: &[PlanStep]) -> String {
    if plan.is_empty() {
        return "Plan is empty".into();
    }
    plan.iter()
        .enumerate()
        .map(|(i, s)| format!("{}. [{}] {}", i + 1, s.status.marker(), s.step))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The plan stored in a session meta (`plan.steps`), normalised: steps
/// with blank text or an unknown status are dropped, at most
/// [`PLAN_MAX_STEPS`] kept. Absent or unreadable: empty.
pub fn plan_from_meta(meta: &zut_session::Meta) -> Vec<PlanStep> {
    let Some(steps) = meta
        .extra
        .get(PLAN_META_KEY)
        .and_then(|p| p.get("steps"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    steps
        .iter()
        .filter_map(|s| {
            let step = s.get("step")?.as_str()?;
            let status = PlanStatus::parse(s.get("status")?.as_str()?)?;
            (!step.trim().is_empty()).then(|| PlanStep {
                step: step.to_string(),
                status,
            })
        })
        .take(PLAN_MAX_STEPS)
        .collect()
}

/// The plan as the meta field value (`steps` omitted when empty, as Go's
/// `omitempty`).
pub fn meta_value(plan: &[PlanStep], updated: &str) -> Value {
    if plan.is_empty() {
        json!({ "updated": updated })
    } else {
        json!({ "steps": plan, "updated": updated })
    }
}

/// What a compaction summary carries of the plan: its first
/// [`COMPACTION_PLAN_STEPS`] steps as a checklist (`None` when empty).
pub fn compaction_note(plan: &[PlanStep]) -> Option<String> {
    if plan.is_empty() {
        return None;
    }
    let shown = &plan[..plan.len().min(COMPACTION_PLAN_STEPS)];
    let mut text = format!(
        "Current plan (the `plan` tool's checklist):\n{}",
        listing(shown)
    );
    if plan.len() > shown.len() {
        text.push_str(&format!(
            "\n… and {} more steps (call `plan` with action `show` for all)",
            plan.len() - shown.len()
        ));
    }
    Some(text)
}

impl Agent {
    /// The session plan.
    pub fn plan(&self) -> &[PlanStep] {
        &self.plan
    }

    /// Replaces the plan without persisting it (seeding on resume; `/clear`).
    pub fn set_plan(&mut self, plan: Vec<PlanStep>) {
        self.plan = plan;
    }

    /// Runs a `plan`/`update_plan` call: validate against the current
    /// plan, persist (a meta row) when it changes, then adopt it and emit
    /// `plan_update`. A failed write leaves the plan as it was.
    pub(crate) fn run_plan_tool(
        &mut self,
        id: &str,
        name: &str,
        args: &Value,
        sink: EventSink<'_>,
    ) -> (bool, Vec<Part>) {
        let error = |text: String| (true, vec![Part::Text { text }]);
        let op = match parse_op(name, args) {
            Ok(op) => op,
            Err(e) => return error(e),
        };
        let next = match preview(&self.plan, &op) {
            Ok(p) => p,
            Err(e) => return error(e),
        };
        let text = result_text(&op.action, &next);
        if op.action == "show" {
            return (false, vec![Part::Text { text }]);
        }
        if let Err(e) = self.persist_plan(&next) {
            tracing::warn!("plan not persisted: {e}");
            return error(format!(
                "the plan could not be saved in the session ({e}); it is unchanged"
            ));
        }
        self.plan = next;
        sink(AgentEvent::PlanUpdate {
            call_id: id.to_string(),
            explanation: op.explanation.filter(|e| !e.trim().is_empty()),
            plan: self.plan.clone(),
        });
        (false, vec![Part::Text { text }])
    }

    /// Writes `plan` as a meta row when a session is attached.
    fn persist_plan(&mut self, plan: &[PlanStep]) -> Result<(), String> {
        let Some(s) = self.session.as_mut() else {
            return Ok(());
        };
        let mut meta = s.writer().meta().clone();
        meta.extra.insert(
            PLAN_META_KEY.to_string(),
            meta_value(plan, &crate::transcript::now_rfc3339()),
        );
        s.writer_mut()
            .append(&zut_session::Row::Meta(meta))
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(t: &str, s: PlanStatus) -> PlanStep {
        PlanStep {
            step: t.into(),
            status: s,
        }
    }

    fn op(v: Value) -> PlanOp {
        parse_op(PLAN_TOOL, &v).unwrap()
    }

    #[test]
    fn go_texts() {
        let p = preview(
            &[],
            &op(json!({"action":"set","steps":[{"step":"a"},{"step":"b","status":"in_progress"}]})),
        )
        .unwrap();
        assert_eq!(
            result_text("set", &p),
            "Plan updated (0/2 completed; in progress: step 2)"
        );
        assert_eq!(listing(&p), "1. [ ] a\n2. [~] b");
        assert_eq!(
            preview(
                &p,
                &op(json!({"action":"update","index":3,"status":"completed"}))
            )
            .unwrap_err(),
            "plan: index 3 out of range (plan has 2 steps)"
        );
        assert_eq!(
            preview(&p, &op(json!({"action":"update","index":1}))).unwrap_err(),
            "plan: update requires status or step"
        );
        assert_eq!(
            preview(&p, &op(json!({"action":"set","steps":[]}))).unwrap_err(),
            "plan: steps are required for set (use clear to remove every step)"
        );
        assert_eq!(
            preview(&p, &op(json!({"action":"remove"}))).unwrap_err(),
            "plan: index 0 out of range (plan has 2 steps)"
        );
        assert_eq!(
            preview(&p, &op(json!({"action":"add","steps":[{"step":"  "}]}))).unwrap_err(),
            "plan: step text is required"
        );
        assert_eq!(result_text("clear", &[]), "Plan cleared");
        assert_eq!(listing(&[]), "Plan is empty");
        let two = vec![
            step("a", PlanStatus::InProgress),
            step("b", PlanStatus::InProgress),
        ];
        assert_eq!(
            result_text("add", &two),
            "Plan updated (0/2 completed; in progress: steps 1, 2)"
        );
    }

    #[test]
    fn limits_are_clear() {
        let many: Vec<Value> = (0..10_000)
            .map(|i| json!({"step": format!("s{i}")}))
            .collect();
        let e = preview(&[], &op(json!({"action":"set","steps":many}))).unwrap_err();
        assert!(
            e.contains("at most 200 steps") && e.contains("10000"),
            "{e}"
        );
        let long = "x".repeat(1_001);
        let e = preview(&[], &op(json!({"action":"add","steps":[{"step":long}]}))).unwrap_err();
        assert!(e.contains("step 1 has 1001 characters"), "{e}");
        assert!(parse_op(PLAN_TOOL, &json!({"action":"add","bogus":1})).is_err());
        assert_eq!(
            parse_op(
                PLAN_TOOL,
                &json!({"action":"update","index":1,"status":"done"})
            )
            .unwrap_err(),
            "plan: unknown status \"done\""
        );
    }

    #[test]
    fn alias_sets_the_whole_list() {
        let o = parse_op(
            PLAN_ALIAS,
            &json!({"plan":[{"step":"a","status":"completed"}]}),
        )
        .unwrap();
        assert_eq!(o.action, "set");
        assert_eq!(
            preview(&[], &o).unwrap(),
            vec![step("a", PlanStatus::Completed)]
        );
        assert_eq!(
            parse_op(PLAN_ALIAS, &json!({"plan":[]})).unwrap().action,
            "clear"
        );
    }

    #[test]
    fn meta_round_trip_normalises() {
        let mut meta = zut_session::Meta::default();
        meta.extra.insert(
            PLAN_META_KEY.into(),
            json!({"steps":[{"step":"a","status":"completed"},{"step":"","status":"pending"},{"step":"c","status":"weird"},{"step":"d","status":"in_progress"}],"updated":"2026-01-01T00:00:00Z"}),
        );
        let plan = plan_from_meta(&meta);
        assert_eq!(
            plan,
            vec![
                step("a", PlanStatus::Completed),
                step("d", PlanStatus::InProgress)
            ]
        );
        let v = meta_value(&plan, "t");
        assert_eq!(v["steps"][1]["status"], "in_progress");
        assert!(meta_value(&[], "t").get("steps").is_none());
        let many: Vec<PlanStep> = (0..20)
            .map(|i| step(&format!("s{i}"), PlanStatus::Pending))
            .collect();
        let note = compaction_note(&many).unwrap();
        assert!(note.contains("12. [ ] s11") && !note.contains("s12\n") && note.contains("8 more"));
    }
}
