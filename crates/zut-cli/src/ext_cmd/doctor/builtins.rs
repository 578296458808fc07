//! The built-in names doctor checks extension registrations against.
//!
//! The agent has no built-in registry of its own yet, so doctor uses the
//! default interactive set of protocol.md §7.1 (commands) and §8.1 (seed
//! built-in tools, all active). Extension commands or tools with these
//! names are reported `shadowed` with a "built-in" warning, which is what a
//! normal `zut` run would do with them.

/// Built-in slash commands (without `/`), matched case-insensitively.
pub const COMMANDS: &[&str] = &[
    "goal",
    "exit",
    "clear",
    "help",
    "info",
    "login",
    "logout",
    "model",
    "llama",
    "reasoning",
    "fast",
    "orchestrator",
    "settings",
    "sessions",
    "fork",
    "jump",
    "btw",
    "skills",
    "compact",
    "study",
    "cd",
    "jail",
    "unjail",
    "reload-ext",
    "telegram",
    "tg",
    "session",
    "subagents",
];

/// Built-in tools active in a default session.
pub const TOOLS: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "python",
    "worktree",
    "grep",
    "ast",
    "lsp",
    "web_search",
    "web_open",
    "web_find",
    "web_click",
    "schedule",
    "update_goal",
    "update_plan",
    "skill",
];

/// Whether `name` is a built-in command (case-insensitive).
pub fn is_command(name: &str) -> bool {
    COMMANDS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

/// Whether `name` is a built-in or reserved tool name.
pub fn is_tool(name: &str) -> bool {
    TOOLS.contains(&name) || zut_ext_host::RESERVED_TOOL_NAMES.contains(&name)
}
