//! The conversation's state as front ends see it (`get_state`), and the
//! reasoning levels of the RPC protocol.

use zut_providers::Reasoning;

use crate::event::UsageCounts;

/// A snapshot of the conversation ([`super::Controller::state`]).
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Provider name.
    pub provider: String,
    /// Current model (reflects [`super::Controller::set_model`] at once).
    pub model: String,
    /// Current reasoning level name (`""` when off; rpc.md §4.9).
    pub reasoning: String,
    /// Whether a job runs and was not aborted.
    pub busy: bool,
    /// Messages in the transcript (as of the last job boundary, or after
    /// [`super::Controller::clear`]).
    pub message_count: usize,
    /// Token usage summed over every model call of the conversation.
    pub usage: UsageCounts,
    /// Jobs waiting behind the running one.
    pub queued: usize,
}

pub use zut_types::REASONING_LEVELS;

/// Normalises an RPC reasoning level: the level's name (`""` for off) and
/// the effort sent to the provider, or the rpc.md §4.9 error.
pub fn parse_level(value: &str) -> Result<(String, Reasoning), String> {
    let v = value.trim().to_ascii_lowercase();
    let effort = match v.as_str() {
        "off" | "" => Reasoning::Off,
        "minimum" => Reasoning::Minimum,
        "low" => Reasoning::Low,
        "medium" => Reasoning::Medium,
        "high" => Reasoning::High,
        "xhigh" => Reasoning::XHigh,
        "max" => Reasoning::Max,
        _ => return Err("reasoning must be off|minimum|low|medium|high|xhigh|max".into()),
    };
    let name = if v == "off" { String::new() } else { v };
    Ok((name, effort))
}

/// The level name of a provider effort (`""` when off).
pub fn level_name(r: Reasoning) -> &'static str {
    match r {
        Reasoning::Off => "",
        other => other.as_str(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(parse_level("max"), Ok(("max".into(), Reasoning::Max)));
        assert_eq!(parse_level("OFF"), Ok(("".into(), Reasoning::Off)));
        assert_eq!(
            parse_level("minimum"),
            Ok(("minimum".into(), Reasoning::Minimum))
        );
        assert!(parse_level("extreme")
            .unwrap_err()
            .contains("off|minimum|low|medium|high|xhigh|max"));
    }
}
