//! `/jail` and `/unjail` for every front end: the session's jail switch
//! ([`crate::AgentConfig::jail`], shared with the tools), flipped at once.
//! A tool call takes the jail in force when it starts, so a command that
//! already runs keeps the jail it started with (docs/sandbox.md).

use super::Controller;

/// The jail as a front end shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JailState {
    /// Whether the next tool calls are jailed.
    pub on: bool,
    /// One line: `jailed to <cwd> (…; what the kernel enforces)` or
    /// `unjailed`.
    pub describe: String,
    /// Why the jail could not be built (the tools refuse to run until
    /// `/unjail`), when it could not.
    pub error: Option<String>,
}

impl Controller {
    /// Whether tool calls are jailed now, and the line that says so.
    pub fn jail(&self) -> JailState {
        let switch = &self.shared.agent_config.jail;
        JailState {
            on: switch.is_jailed(),
            describe: switch.describe(),
            error: None,
        }
    }

    /// Jails (`true`) or unjails the tool calls that start from now on.
    /// Jailing builds the jail at once, so a rule the kernel refuses is
    /// reported here rather than by the next tool call.
    pub fn set_jailed(&self, on: bool) -> JailState {
        let switch = &self.shared.agent_config.jail;
        switch.set_jailed(on);
        let error = if on { switch.current().err() } else { None };
        JailState {
            on,
            describe: switch.describe(),
            error,
        }
    }

    /// `/jail` and `/unjail` (no argument): the confirmation text, or why
    /// not.
    pub(super) fn jail_command(&self, on: bool, args: &str) -> Result<String, String> {
        let name = if on { "jail" } else { "unjail" };
        if !args.trim().is_empty() {
            return Err(format!("/{name} takes no argument (got {:?})", args.trim()));
        }
        let st = self.set_jailed(on);
        Ok(match st.error {
            Some(e) => format!(
                "jail on, but it could not be set up: {e}; tool calls refuse to run until /unjail"
            ),
            None if on => st.describe,
            None => "unjailed: tools run with your privileges".to_string(),
        })
    }
}
