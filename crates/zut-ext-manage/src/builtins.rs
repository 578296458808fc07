//! The built-in names of the running build, given by the caller: slash
//! commands that always win over extension commands (protocol.md §7.1) and
//! the built-in tools an extension tool cannot shadow (§8.1). `zut ext
//! doctor` configures the host with exactly these and says `shadowed` for a
//! registration exactly when a real run would refuse it.

/// Built-in command and tool names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Builtins {
    /// Slash command names (without `/`), matched case-insensitively.
    pub commands: Vec<String>,
    /// Built-in tools active in a default run (no `--tools`/`--no-tools`).
    pub tools: Vec<String>,
}

impl Builtins {
    /// Builds the lists from static name slices.
    pub fn new(commands: &[&str], tools: &[&str]) -> Self {
        Self {
            commands: commands.iter().map(|s| s.to_string()).collect(),
            tools: tools.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Whether `name` is a built-in command (case-insensitive).
    pub fn is_command(&self, name: &str) -> bool {
        self.commands.iter().any(|c| c.eq_ignore_ascii_case(name))
    }

    /// Whether `name` is a default built-in tool or a tool name the host
    /// reserves.
    pub fn is_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t == name) || zut_ext_host::RESERVED_TOOL_NAMES.contains(&name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_fold_case_tools_do_not() {
        let b = Builtins::new(&["help"], &["grep"]);
        assert!(b.is_command("HELP"));
        assert!(!b.is_command("hel"));
        assert!(b.is_tool("grep"));
        assert!(!b.is_tool("Grep"));
    }
}
