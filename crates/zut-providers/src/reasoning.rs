//! zut's reasoning levels (`off`, `minimum`, `low`, `medium`, `high`,
//! `xhigh`, `max`): parsing, the levels each model family offers, and
//! clamping a requested level to the nearest offered one.
//!
//! A level is chosen once (`--reasoning`, `config.json`, the TUI, RPC's
//! `set_reasoning`) and travels in every [`crate::Request`]. Just before a
//! request is encoded, [`crate::Provider`] clamps it to the model's levels
//! ([`ProviderConfig::clamp_reasoning`]), then each wire maps the result to
//! its own knob: Responses `reasoning.effort`, chat completions
//! `reasoning_effort`, Anthropic `thinking.budget_tokens`.
//!
//! Front ends show the note of [`Clamped`] when a level was changed, so the
//! user knows what the model really gets.

use crate::config::ProviderConfig;
use crate::error::ProviderError;
use crate::presets::Wire;
use crate::types::Reasoning;

/// Every level, lowest first.
pub const LEVELS: [Reasoning; 7] = [
    Reasoning::Off,
    Reasoning::Minimum,
    Reasoning::Low,
    Reasoning::Medium,
    Reasoning::High,
    Reasoning::XHigh,
    Reasoning::Max,
];

impl Reasoning {
    /// The level's name as users write it (`off`, `minimum`, ..., `xhigh`, `max`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reasoning::Off => "off",
            Reasoning::Minimum => "minimum",
            Reasoning::Low => "low",
            Reasoning::Medium => "medium",
            Reasoning::High => "high",
            Reasoning::XHigh => "xhigh",
            Reasoning::Max => "max",
        }
    }

    fn rank(self) -> usize {
        LEVELS.iter().position(|l| *l == self).unwrap_or(0)
    }
}

impl std::fmt::Display for Reasoning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parse a reasoning level: `off` (also `none`, `false`, `0`, `disabled`),
/// `minimum` (`min`, `minimal`), `low`, `medium` (`med`, `on`, `true`),
/// `high` (`hi`), `xhigh` (`maximum`, as in the Go original), `max`.
pub fn parse_reasoning(value: &str) -> Result<Reasoning, ProviderError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "off" | "none" | "no" | "false" | "0" | "disabled" | "" => Ok(Reasoning::Off),
        "min" | "minimal" | "minimum" => Ok(Reasoning::Minimum),
        "low" => Ok(Reasoning::Low),
        "med" | "medium" | "on" | "true" => Ok(Reasoning::Medium),
        "hi" | "high" => Ok(Reasoning::High),
        "xhigh" | "maximum" => Ok(Reasoning::XHigh),
        "max" => Ok(Reasoning::Max),
        other => Err(ProviderError::Config(format!(
            "invalid reasoning level {other:?} (expected off, minimum, low, medium, high, xhigh or max)"
        ))),
    }
}

/// The levels a model offers by default (always starting with `Off`),
/// following the Go original: Responses models `low`..`xhigh` (plus `max`
/// on `gpt-5.6-*`); Anthropic-wire models (thinking budgets) `minimum`..`xhigh`;
/// chat-completions models `low`, `medium`, `high`; Gemini, Vertex and
/// Bedrock per model ([`crate::levels`]).
pub fn default_levels(wire: Wire, model: &str) -> Vec<Reasoning> {
    use Reasoning::*;
    match wire {
        Wire::Responses => {
            let mut levels = vec![Off, Low, Medium, High, XHigh];
            if model.to_ascii_lowercase().starts_with("gpt-5.6-") {
                levels.push(Max);
            }
            levels
        }
        Wire::Anthropic => vec![Off, Minimum, Low, Medium, High, XHigh],
        Wire::OpenAi => vec![Off, Low, Medium, High],
        Wire::Gemini | Wire::Vertex | Wire::Bedrock => crate::levels::cloud_levels(wire, model),
    }
}

/// A level after clamping, with the note to show when it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clamped {
    /// The level the request carries.
    pub level: Reasoning,
    /// Set when `level` differs from the requested one, e.g.
    /// `reasoning "max" is not offered by gpt-5 on openai: using "xhigh"`.
    pub note: Option<String>,
}

/// The levels offered with a per-model `reasoningLevelMap` (`from → to`
/// pairs): the defaults, with every mapped level's target offered too.
pub fn available_levels(defaults: &[Reasoning], map: &[(Reasoning, Reasoning)]) -> Vec<Reasoning> {
    let mut out: Vec<Reasoning> = defaults.to_vec();
    for (_, to) in map {
        if !out.contains(to) {
            out.push(*to);
        }
    }
    out.sort();
    out
}

/// Clamp `requested` to `available` (sorted, starting with `Off`): an
/// explicit map entry wins; else the level itself when offered; else the
/// nearest offered level, ties going to the higher one. `Off` stays off.
pub fn clamp(
    requested: Reasoning,
    available: &[Reasoning],
    map: &[(Reasoning, Reasoning)],
) -> Reasoning {
    if let Some((_, to)) = map.iter().find(|(from, _)| *from == requested) {
        return *to;
    }
    if requested == Reasoning::Off || available.contains(&requested) {
        return requested;
    }
    let on: Vec<Reasoning> = available
        .iter()
        .copied()
        .filter(|l| *l != Reasoning::Off)
        .collect();
    let mut best = Reasoning::Off;
    let mut best_distance = usize::MAX;
    for candidate in on {
        let distance = candidate.rank().abs_diff(requested.rank());
        if distance <= best_distance {
            best = candidate;
            best_distance = distance;
        }
    }
    best
}

impl ProviderConfig {
    /// The reasoning levels this provider's model offers (`Off` first):
    /// the wire's defaults, extended by `reasoningLevelMap` targets.
    pub fn reasoning_levels(&self) -> Vec<Reasoning> {
        self.reasoning_levels_for(&self.model)
    }

    /// The reasoning levels `model` offers on this provider.
    pub fn reasoning_levels_for(&self, model: &str) -> Vec<Reasoning> {
        available_levels(
            &default_levels(self.wire_for(model), model),
            &self.reasoning_map,
        )
    }

    /// `requested` clamped to this model's levels, with a note when it
    /// changed. Front ends call it when the user picks a level (to show the
    /// note); [`crate::Provider`] applies it to every request.
    pub fn clamp_reasoning(&self, requested: Reasoning) -> Clamped {
        self.clamp_reasoning_for(&self.model, requested)
    }

    /// [`ProviderConfig::clamp_reasoning`] for another model of this provider.
    pub fn clamp_reasoning_for(&self, model: &str, requested: Reasoning) -> Clamped {
        let level = clamp(
            requested,
            &self.reasoning_levels_for(model),
            &self.reasoning_map,
        );
        let note = (level != requested).then(|| {
            format!(
                "reasoning \"{requested}\" is not offered by {model} on {}: using \"{level}\"",
                self.provider
            )
        });
        Clamped { level, note }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Reasoning::*;

    #[test]
    fn parses_every_level_and_alias() {
        for (text, level) in [
            ("off", Off),
            ("NONE", Off),
            ("minimal", Minimum),
            ("minimum", Minimum),
            ("low", Low),
            ("medium", Medium),
            ("on", Medium),
            ("high", High),
            ("xhigh", XHigh),
            ("maximum", XHigh),
            ("max", Max),
        ] {
            assert_eq!(parse_reasoning(text).unwrap(), level, "{text}");
        }
        let err = parse_reasoning("extreme").unwrap_err().to_string();
        assert!(
            err.contains("minimum, low, medium, high, xhigh or max"),
            "{err}"
        );
        for level in LEVELS {
            assert_eq!(parse_reasoning(level.as_str()).unwrap(), level);
        }
    }

    #[test]
    fn clamps_to_the_nearest_level_ties_up() {
        let chat = default_levels(Wire::OpenAi, "gpt-4o");
        assert_eq!(clamp(Minimum, &chat, &[]), Low);
        assert_eq!(clamp(XHigh, &chat, &[]), High);
        assert_eq!(clamp(Max, &chat, &[]), High);
        assert_eq!(clamp(Off, &chat, &[]), Off);
        let responses = default_levels(Wire::Responses, "gpt-5");
        assert_eq!(clamp(Max, &responses, &[]), XHigh);
        assert_eq!(clamp(Minimum, &responses, &[]), Low);
        let luna = default_levels(Wire::Responses, "gpt-5.6-luna");
        assert_eq!(clamp(Max, &luna, &[]), Max);
        // Between low and high with medium missing: the tie goes up.
        assert_eq!(clamp(Medium, &[Off, Low, High], &[]), High);
    }

    #[test]
    fn a_level_map_remaps_and_extends() {
        let map = [(High, Medium), (Max, Max)];
        let levels = available_levels(&default_levels(Wire::OpenAi, "m"), &map);
        assert_eq!(levels, vec![Off, Low, Medium, High, Max]);
        assert_eq!(clamp(High, &levels, &map), Medium);
        assert_eq!(clamp(Max, &levels, &map), Max);
        assert_eq!(clamp(XHigh, &levels, &map), Max);
    }
}
