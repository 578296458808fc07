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

/// Whether `name` is a built-in command (case-insensitive).
pub fn is_command(name: &str) -> bool {
    zut_agent::commands::is_builtin(name)
}

/// Whether `name` is a default built-in tool or a reserved tool name.
pub fn is_default_tool(name: &str) -> bool {
    DEFAULT_TOOLS.contains(&name) || zut_ext_host::RESERVED_TOOL_NAMES.contains(&name)
}

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
            assert!(is_command(&c.name.to_uppercase()));
        }
        // The names the issue found unreserved.
        for name in ["new", "yolo", "theme", "tree"] {
            assert!(is_command(name), "/{name}");
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
