//! Reasoning levels as names, for the wires whose knobs depend on the
//! model (Gemini budgets and levels, Bedrock's Claude thinking).
//!
//! The level is read through its serde name rather than matched on the
//! enum, so these wires keep working when levels are added: an unknown
//! name maps to the nearest known one.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_map_by_name() {
        assert_eq!(effort(Reasoning::Off), Effort::Off);
        assert_eq!(effort(Reasoning::Low), Effort::Low);
        assert_eq!(effort(Reasoning::High), Effort::High);
        assert_eq!(budget(effort(Reasoning::Medium)), 8192);
    }
}
