//! The status bar: activity and elapsed time while busy, provider and
//! model, reasoning level, token counts, cache reads, cost, context share
//! (yellow past 70 %, red past 90 %), then the working directory.

use std::time::Instant;

use ratatui::text::{Line, Span};
use zut_types::UsageEvent;

use crate::theme::Theme;
use crate::wrap;

/// How often the built-in spinner moves while busy (no timer runs when
/// idle); a theme may set its own ([`Theme::spinner_interval`]).
pub use crate::theme::SPIN_INTERVAL;

/// What the status bar shows.
#[derive(Debug, Clone, Default)]
pub struct Status {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Reasoning level (`off` is not shown).
    pub reasoning: String,
    /// Working directory as shown (home abbreviated to `~`).
    pub cwd: String,
    /// Input tokens of the session.
    pub tokens_in: u64,
    /// Output tokens of the session.
    pub tokens_out: u64,
    /// Cache reads of the session.
    pub cache_read: u64,
    /// Cost in USD, when the provider reports one.
    pub cost: Option<f64>,
    /// Prompt size of the last call, for the context share.
    pub context_used: u64,
    /// The model's context window, when known.
    pub context_window: Option<u64>,
    /// What is happening (`thinking`, `running bash`...), while busy.
    pub activity: Option<String>,
    /// When the current turn started.
    pub busy_since: Option<Instant>,
    /// Extensions still loading.
    pub loading_extensions: bool,
    /// What the keys do while busy, when not `(esc to stop)` (the
    /// confirmation dialog has the keys).
    pub keys_hint: Option<String>,
    /// Cache writes of the session (for the cache-hit rate).
    pub cache_write: u64,
    /// `plan:<current>/<total>` while the agent has a plan
    /// ([`crate::plan_view::status_text`]).
    pub plan: Option<String>,
    /// The jail line (`jailed to <cwd> (…)`) while tools are jailed
    /// (`--jail`, `jail_by_default`, `/jail`); `None` when unjailed.
    pub jail: Option<String>,
    /// `goal:<status> auto:<n>` while there is a goal or zut ran
    /// continuation turns ([`crate::goal_view::status_text`]).
    pub goal: Option<String>,
    /// `/orchestrator` is on: the next prompts delegate.
    pub orchestrator: bool,
}

/// A session's usage totals (what the counters restart from when the
/// conversation moves to another file).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Input tokens.
    pub tokens_in: u64,
    /// Output tokens.
    pub tokens_out: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cost in USD, when known.
    pub cost: Option<f64>,
}

impl Status {
    /// Adds one call's usage.
    pub fn usage(&mut self, u: &UsageEvent) {
        self.tokens_in += u.this.input;
        self.tokens_out += u.this.output;
        self.cache_read += u.this.cache_read;
        self.context_used = u.this.cache_measured_prompt + u.this.output;
        self.cache_write += u.this.cache_write;
        if u.this.cost_known {
            *self.cost.get_or_insert(0.0) += u.this.cost_usd;
        }
    }

    /// Adds one of a subagent's calls: its tokens and cost count in the
    /// session's, its prompt size says nothing of the parent's context.
    pub fn child_usage(&mut self, u: &zut_types::UsageCounts) {
        self.tokens_in += u.input;
        self.tokens_out += u.output;
        self.cache_read += u.cache_read;
        self.cache_write += u.cache_write;
        if u.cost_known {
            *self.cost.get_or_insert(0.0) += u.cost_usd;
        }
    }

    /// Restarts the counters from a session's totals (the context share is
    /// unknown until the next call).
    pub fn set_totals(&mut self, t: &Totals) {
        self.tokens_in = t.tokens_in;
        self.tokens_out = t.tokens_out;
        self.cache_read = t.cache_read;
        self.cost = t.cost;
        self.cache_write = 0;
        self.context_used = 0;
    }

    /// The two status rows at `width` (`now` drives the spinner).
    pub fn rows(&self, width: usize, theme: &Theme, now: Instant) -> Vec<Line<'static>> {
        let mut spans: Vec<Span<'static>> = vec![Span::raw("  ")];
        if let Some(since) = self.busy_since {
            let elapsed = now.saturating_duration_since(since);
            let frames = &theme.spinner_frames;
            let step = theme.spinner_interval.as_millis().max(1);
            let frame = frames
                .get((elapsed.as_millis() / step) as usize % frames.len().max(1))
                .map_or("", String::as_str);
            let what = self.activity.clone().unwrap_or_else(|| "working".into());
            spans.push(Span::styled(
                format!("{frame} {what} {}s ", elapsed.as_secs()),
                theme.spinner,
            ));
            let keys = self.keys_hint.as_deref().unwrap_or("esc to stop");
            spans.push(Span::styled(format!("({keys})  "), theme.dim));
        }
        if self.loading_extensions {
            spans.push(Span::styled("loading extensions…  ", theme.dim));
        }
        spans.push(Span::styled(format!("({}) ", self.provider), theme.dim));
        spans.push(Span::raw(self.model.clone()));
        if !self.reasoning.is_empty() && self.reasoning != "off" {
            let top = matches!(self.reasoning.as_str(), "high" | "max" | "xhigh");
            let style = if top { theme.thinking_max } else { theme.dim };
            spans.push(Span::styled(format!(" [{}]", self.reasoning), style));
        }
        if self.jail.is_some() {
            spans.push(Span::styled("  ⛓ jailed", theme.accent));
        }
        if self.orchestrator {
            spans.push(Span::styled("  orchestrating", theme.accent));
        }
        if self.tokens_in + self.tokens_out > 0 {
            spans.push(Span::styled(
                format!("  ↑{} ↓{}", human(self.tokens_in), human(self.tokens_out)),
                theme.dim,
            ));
            if self.cache_read > 0 {
                // The hit rate: the share of the prompt tokens read from
                // the cache (input here excludes cache reads and writes).
                let prompt = self.tokens_in + self.cache_read + self.cache_write;
                let hit = self.cache_read as f64 * 100.0 / prompt.max(1) as f64;
                spans.push(Span::styled(
                    format!(" cache {} {hit:.0}%", human(self.cache_read)),
                    theme.dim,
                ));
            }
        }
        if let Some(c) = self.cost {
            spans.push(Span::styled(format!(" {}", dollars(c)), theme.dim));
        }
        if let Some(window) = self.context_window.filter(|w| *w > 0) {
            let share = self.context_used as f64 * 100.0 / window as f64;
            let style = if share > 90.0 {
                theme.error
            } else if share > 70.0 {
                theme.warn
            } else {
                theme.dim
            };
            spans.push(Span::styled(format!(" ctx {share:.0}%"), style));
        }
        if let Some(plan) = &self.plan {
            spans.push(Span::styled(format!("  {plan}"), theme.accent));
        }
        if let Some(goal) = &self.goal {
            spans.push(Span::styled(format!("  {goal}"), theme.accent));
        }
        vec![
            wrap::truncate(Line::from(spans), width),
            wrap::truncate(
                Line::from(Span::styled(format!("  {}", self.cwd), theme.dim)),
                width,
            ),
        ]
    }
}

/// 1234 -> "1.2k".
fn human(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 10_000 {
        format!("{}k", n / 1000)
    } else if n >= 1000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

/// Whether `ev` only changes chrome (extension status rows, widgets,
/// notes; subagents' progress), whose frames the run loop may rate-limit.
pub fn is_chrome(ev: &crate::TuiEvent) -> bool {
    use zut_types::AgentEvent as A;
    matches!(
        ev,
        crate::TuiEvent::Agent(
            A::ExtStatus { .. }
                | A::ExtWidget { .. }
                | A::ExtWidgetClear { .. }
                | A::ExtNotify { .. }
                | A::ExtDisplay { .. }
                | A::ExtClearNotes { .. }
        )
        // Subagents' progress (status bar, dashboard): at most a frame per
        // CHROME_FRAME, however fast eight children stream.
        | crate::TuiEvent::Subagent { .. }
    )
}

/// A cost as the status bar shows it: `$1.23`; below a cent, `$0.004`.
pub fn dollars(c: f64) -> String {
    if c > 0.0 && c < 0.01 {
        format!("${c:.3}")
    } else {
        format!("${c:.2}")
    }
}

/// `/info`'s cost line: the session's cost, or why there is none.
pub fn cost_line(s: &Status) -> String {
    match s.cost {
        Some(c) => format!("\ncost: {} this session (${c:.4})", dollars(c)),
        None if s.tokens_in + s.tokens_out > 0 => {
            "\ncost: unknown (no price for this model; set priceInput/priceOutput in models.json)"
                .to_string()
        }
        None => "\ncost: $0.00 this session".to_string(),
    }
}
