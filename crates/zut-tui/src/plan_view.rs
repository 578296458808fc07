//! The agent's plan (`plan_update` events) as an inline checklist in the
//! transcript and as `plan:<current>/<total>` in the status bar. Long plans
//! are bounded: at most [`SHOWN_STEPS`] steps are drawn, then a count.

use ratatui::text::{Line, Span};
use zut_types::{PlanStatus, PlanStep};

use crate::sanitize;
use crate::theme::Theme;
use crate::wrap;

/// Steps drawn inline; the rest are counted.
pub const SHOWN_STEPS: usize = 20;

/// The checklist rows: a `plan` heading (with the explanation), then
/// `[x]`/`[~]`/`[ ]` lines.
pub fn checklist_rows(
    plan: &[PlanStep],
    explanation: Option<&str>,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    let done = plan
        .iter()
        .filter(|s| s.status == PlanStatus::Completed)
        .count();
    let mut head = vec![
        Span::raw("  "),
        Span::styled("plan".to_string(), theme.tool_name),
        Span::styled(format!(" {done}/{} done", plan.len()), theme.dim),
    ];
    if plan.is_empty() {
        head[2] = Span::styled(" cleared".to_string(), theme.dim);
    }
    if let Some(e) = explanation
        .map(sanitize::clean)
        .filter(|e| !e.trim().is_empty())
    {
        head.push(Span::styled(
            format!(" — {}", e.replace('\n', " ")),
            theme.dim,
        ));
    }
    rows.push(wrap::truncate(Line::from(head), width));
    for s in plan.iter().take(SHOWN_STEPS) {
        let (mark, style) = match s.status {
            PlanStatus::Completed => ("[x]", theme.success),
            PlanStatus::InProgress => ("[~]", theme.accent),
            PlanStatus::Pending => ("[ ]", theme.dim),
        };
        let text = sanitize::clean(&s.step).replace('\n', " ");
        let line = Line::from(vec![
            Span::raw("    "),
            Span::styled(mark.to_string(), style),
            Span::raw(" "),
            Span::styled(text, theme.text),
        ]);
        rows.push(wrap::truncate(line, width));
    }
    if plan.len() > SHOWN_STEPS {
        rows.push(Line::from(Span::styled(
            format!("    … {} more", plan.len() - SHOWN_STEPS),
            theme.dim,
        )));
    }
    rows
}

/// `plan:<current>/<total>` (current: the first in-progress step, 0 when
/// none); `None` for an empty plan.
pub fn status_text(plan: &[PlanStep]) -> Option<String> {
    let (current, total) = zut_types::plan::plan_progress(plan);
    (total > 0).then(|| format!("plan:{current}/{total}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(t: &str, status: PlanStatus) -> PlanStep {
        PlanStep {
            step: t.into(),
            status,
        }
    }

    fn text(rows: &[Line<'static>]) -> Vec<String> {
        rows.iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn checklist_and_status() {
        let theme = Theme::new(crate::theme::ColorDepth::None);
        let plan = vec![
            step("read", PlanStatus::Completed),
            step("fix\x1b[31m it", PlanStatus::InProgress),
            step("test", PlanStatus::Pending),
        ];
        let rows = text(&checklist_rows(&plan, Some("first cut"), 80, &theme));
        assert_eq!(
            rows,
            [
                "  plan 1/3 done — first cut",
                "    [x] read",
                "    [~] fix it",
                "    [ ] test"
            ]
        );
        assert_eq!(status_text(&plan).as_deref(), Some("plan:2/3"));
        assert_eq!(status_text(&[]), None);
        let many: Vec<PlanStep> = (0..200)
            .map(|i| step(&format!("s{i}"), PlanStatus::Pending))
            .collect();
        let rows = text(&checklist_rows(&many, None, 80, &theme));
        assert_eq!(rows.len(), 1 + SHOWN_STEPS + 1);
        assert_eq!(rows.last().unwrap(), "    … 180 more");
        assert_eq!(status_text(&many).as_deref(), Some("plan:0/200"));
    }
}
