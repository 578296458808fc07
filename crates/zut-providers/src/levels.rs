//! Reasoning levels as names, for the wires whose knobs depend on the
//! model (Gemini budgets and levels, Bedrock's Claude thinking).
//!
//! The level is read through its serde name rather than matched on the
//! enum, so these wires keep working when levels are added: an unknown
//! name maps to the nearest known one.

use crate::presets::Wire;
use crate::types::Reasoning;

/// The coarse effort zut's cloud wires map onto.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effort {
    /// No reasoning requested.
    Off,
    /// `minimal`/`minimum`.
    Minimum,
    /// `low`.
    Low,
    /// `medium` (and anything unrecognised that is not off).
    Medium,
    /// `high`.
    High,
    /// `xhigh`/`max`.
    Max,
}

/// The effort of a reasoning level.
pub(crate) fn effort(reasoning: Reasoning) -> Effort {
    let name = match serde_json::to_value(reasoning) {
        Ok(serde_json::Value::String(name)) => name,
        _ => return Effort::Medium,
    };
    match name.as_str() {
        "off" | "none" => Effort::Off,
        "minimal" | "minimum" => Effort::Minimum,
        "low" => Effort::Low,
        "high" => Effort::High,
        "xhigh" | "max" => Effort::Max,
        _ => Effort::Medium,
    }
}

/// Thinking budget in tokens (0 when off): the Anthropic wire's
/// 2048 / 8192 / 24576 for low / medium / high, with 1024 for the
/// minimum and 32768 above high.
pub(crate) fn budget(effort: Effort) -> u32 {
    match effort {
        Effort::Off => 0,
        Effort::Minimum => 1024,
        Effort::Low => 2048,
        Effort::Medium => 8192,
        Effort::High => 24576,
        Effort::Max => 32768,
    }
}

/// The levels a model offers on Gemini, Vertex or Bedrock (`Off` first),
/// following what their request bodies send: Gemini 3 Pro `low`/`high`,
/// other Gemini 3 models `minimum`..`high` (thinking levels), Gemini 2.5
/// and Claude (on Vertex or Bedrock) `minimum`..`xhigh` (thinking budgets);
/// other models get no reasoning knob, so only `Off`.
pub(crate) fn cloud_levels(wire: Wire, model: &str) -> Vec<Reasoning> {
    use Reasoning::*;
    let id = model.to_ascii_lowercase();
    let budgets = vec![Off, Minimum, Low, Medium, High, XHigh];
    match wire {
        Wire::Bedrock if crate::bedrock::request::is_claude(&id) => budgets,
        Wire::Vertex if crate::vertex::is_anthropic(&id) => budgets,
        Wire::Gemini | Wire::Vertex if id.contains("gemini-3") && id.contains("-pro") => {
            vec![Off, Low, High]
        }
        Wire::Gemini | Wire::Vertex if id.contains("gemini-3") => {
            vec![Off, Minimum, Low, Medium, High]
        }
        Wire::Gemini | Wire::Vertex if id.contains("2.5-pro") || id.contains("2.5-flash") => {
            budgets
        }
        _ => vec![Off],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_map_by_name() {
        assert_eq!(effort(Reasoning::Off), Effort::Off);
        assert_eq!(effort(Reasoning::Low), Effort::Low);
        assert_eq!(effort(Reasoning::High), Effort::High);
        assert_eq!(budget(effort(Reasoning::Medium)), 8192);
        assert_eq!(effort(Reasoning::Minimum), Effort::Minimum);
        assert_eq!(effort(Reasoning::XHigh), Effort::Max);
        assert_eq!(effort(Reasoning::Max), Effort::Max);
    }

    #[test]
    fn cloud_levels_follow_what_the_bodies_send() {
        use Reasoning::*;
        assert_eq!(
            cloud_levels(Wire::Gemini, "gemini-3-pro-preview"),
            [Off, Low, High]
        );
        assert_eq!(
            cloud_levels(Wire::Vertex, "gemini-3-flash"),
            [Off, Minimum, Low, Medium, High]
        );
        assert_eq!(cloud_levels(Wire::Gemini, "gemini-2.5-pro").len(), 6);
        assert_eq!(
            cloud_levels(Wire::Vertex, "claude-sonnet-4-5@20250929").len(),
            6
        );
        assert_eq!(
            cloud_levels(Wire::Bedrock, "anthropic.claude-sonnet-4-5-20250929-v1:0").len(),
            6
        );
        assert_eq!(
            cloud_levels(Wire::Bedrock, "meta.llama3-70b-instruct-v1:0"),
            [Off]
        );
        assert_eq!(cloud_levels(Wire::Gemini, "gemini-2.0-flash"), [Off]);
    }
}
