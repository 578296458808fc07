//! The built-in names of this build: slash commands that always win over
//! extension commands (protocol.md §7.1) and the built-in tools an
//! extension tool cannot shadow while they are active (§8.1). The agent
//! modes reserve exactly these, and `zut ext doctor` checks registrations
//! against the same lists, so doctor says `shadowed` for a name exactly
//! when a real run would refuse it.

/// Built-in slash command names (without `/`), matched case-insensitively.
pub const COMMANDS: &[&str] = &[
    "help",
    "exit",
    "quit",
    "clear",
    "info",
    "model",
    "reasoning",
    "compact",
    "session",
    "sessions",
    "fork",
    "cd",
    "skills",
    "reload-ext",
    "login",
    "logout",
    "settings",
    "copy",
];

/// Built-in tools active in a default run (no `--tools`/`--no-tools`).
pub const DEFAULT_TOOLS: &[&str] = &zut_tools::BUILTIN_NAMES;

/// Tool names the Go original offers (seed and newer). `--tools` accepts
/// them all; the ones zut lacks are ignored with a warning.
pub const GO_TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "python",
    "worktree",
    "grep",
    "glob",
    "ast",
    "lsp",
    "web_search",
    "web_open",
    "web_find",
    "web_click",
    "schedule",
    "update_goal",
    "update_plan",
    "plan",
    "skill",
    "subagent",
];

/// Whether `name` is a built-in command (case-insensitive).
pub fn is_command(name: &str) -> bool {
    COMMANDS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// Whether `name` is a default built-in tool or a reserved tool name.
pub fn is_default_tool(name: &str) -> bool {
    DEFAULT_TOOLS.contains(&name) || zut_ext_host::RESERVED_TOOL_NAMES.contains(&name)
}
