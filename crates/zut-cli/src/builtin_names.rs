//! The built-in names of this build: slash commands that always win over
//! extension commands (protocol.md §7.1, the one list in
//! `zut_agent::commands`) and the built-in tools an extension tool cannot
//! shadow while they are active (§8.1). The agent modes reserve exactly
//! these, and `zut ext doctor` checks registrations against the same lists,
//! so doctor says `shadowed` for a name exactly when a real run would
//! refuse it.

/// Built-in slash command names (without `/`).
pub fn commands() -> Vec<String> {
    zut_agent::commands::reserved_names()
}

/// Built-in tools active in a default run (no `--tools`/`--no-tools`).
pub const DEFAULT_TOOLS: &[&str] = &zut_tools::BUILTIN_NAMES;

/// Both lists, as `zut ext doctor` takes them.
pub fn builtins() -> zut_ext_manage::Builtins {
    zut_ext_manage::Builtins {
        commands: commands(),
        tools: DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
    }
}

/// Tool names the Go original offers (seed and newer). `--tools` accepts
/// them all; the ones zut lacks are ignored with a warning.
pub const GO_TOOLS: &[&str] = zut_ext_host::BUILTIN_TOOL_NAMES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_a_front_end_offers_is_reserved_once() {
        let reserved = commands();
        for c in zut_agent::commands::tui().chain(zut_agent::commands::headless()) {
            assert_eq!(
                reserved.iter().filter(|n| *n == c.name).count(),
                1,
                "/{} is not reserved exactly once",
                c.name
            );
            assert!(builtins().is_command(&c.name.to_uppercase()));
        }
        // The names the issue found unreserved.
        for name in ["new", "yolo", "theme", "tree"] {
            assert!(builtins().is_command(name), "/{name}");
        }
        // The TUI popup lists exactly the TUI's built-ins.
        let popup: Vec<String> = zut_tui::commands::builtins()
            .into_iter()
            .map(|c| c.name)
            .collect();
        let tui: Vec<&str> = zut_agent::commands::tui().map(|c| c.name).collect();
        assert_eq!(popup, tui);
    }
}
