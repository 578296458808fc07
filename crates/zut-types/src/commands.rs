//! The one list of built-in slash commands: what the TUI's popup offers,
//! what the controller runs for headless front ends (print, RPC, ACP),
//! and every name the extension host reserves (an extension command with
//! one of these names is refused and `zut ext doctor` says `shadowed`).
//!
//! The Go original's other built-ins (`/goal`, …,
//! protocol.md §7.1) are not reserved until zut builds them: until then an
//! extension may provide them (`zut ext doctor` shows them active). The
//! work that builds one adds it here, which reserves it.

/// One built-in command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinCommand {
    /// The name without its slash, lower case.
    pub name: &'static str,
    /// One line for the popup and `available_commands_update`.
    pub description: &'static str,
    /// What its argument is, when it takes one.
    pub hint: Option<&'static str>,
    /// Offered by the interactive TUI.
    pub tui: bool,
    /// Run by `zut_agent::Controller::command` for every front end (print,
    /// stream, JSON, RPC, ACP, and the TUI through the controller).
    pub headless: bool,
}

const fn cmd(
    name: &'static str,
    description: &'static str,
    hint: Option<&'static str>,
    tui: bool,
    headless: bool,
) -> BuiltinCommand {
    BuiltinCommand {
        name,
        description,
        hint,
        tui,
        headless,
    }
}

/// Every built-in command, in the TUI popup's order; reserved-only names
/// (neither `tui` nor `headless`) last.
pub const BUILTIN_COMMANDS: &[BuiltinCommand] = &[
    cmd("help", "show keys and commands", None, true, false),
    cmd(
        "info",
        "provider, model, working directory, extensions",
        None,
        true,
        false,
    ),
    cmd(
        "copy",
        "copy the last reply to the clipboard (OSC 52)",
        None,
        true,
        false,
    ),
    cmd(
        "clear",
        "clear the conversation and notes",
        None,
        true,
        true,
    ),
    cmd(
        "new",
        "start a new session (the current one stays in /sessions)",
        None,
        true,
        false,
    ),
    cmd(
        "theme",
        "pick a theme (previewed as you move); /theme <name> switches",
        Some("theme name"),
        true,
        false,
    ),
    cmd(
        "model",
        "pick a model; /model <id> switches",
        Some("model id"),
        true,
        true,
    ),
    cmd(
        "reasoning",
        "pick the reasoning level; /reasoning <level> sets it",
        Some("off, minimum, low, medium, high, xhigh or max"),
        true,
        true,
    ),
    cmd(
        "settings",
        "model, reasoning, terminal alerts",
        None,
        true,
        false,
    ),
    cmd(
        "yolo",
        "tool calls without asking (/yolo off: confirm each, like --no-yolo)",
        Some("on or off"),
        true,
        false,
    ),
    cmd(
        "skills",
        "list skills; enter puts /skill:<name> in the editor",
        None,
        true,
        false,
    ),
    cmd(
        "sessions",
        "resume a session of this directory",
        None,
        true,
        false,
    ),
    cmd(
        "fork",
        "fork the session at one of your messages",
        None,
        true,
        false,
    ),
    cmd(
        "tree",
        "the session's history and branches; check one out (Esc Esc)",
        None,
        true,
        false,
    ),
    cmd(
        "compact",
        "summarise the conversation to free context (/compact [instructions])",
        Some("what the summary should keep"),
        true,
        true,
    ),
    cmd(
        "btw",
        "a side question answered from the conversation, not added to it (/btw <question>)",
        Some("your question"),
        true,
        false,
    ),
    cmd(
        "reload-ext",
        "stop and restart every extension",
        None,
        true,
        true,
    ),
    cmd(
        "jail",
        "confine tools: no secrets read, writes only here and in temp (kernel-enforced)",
        None,
        true,
        true,
    ),
    cmd(
        "unjail",
        "let tools run with your own privileges again",
        None,
        true,
        true,
    ),
    cmd(
        "mcp",
        "MCP servers: state, tools; enable, disable, reconnect",
        Some("enable|disable|reconnect|trust <server>"),
        true,
        true,
    ),
    cmd(
        "goal",
        "work on a goal until it is done (/goal <objective>|pause|resume|clear|history)",
        Some("objective, pause, resume, clear or history"),
        true,
        true,
    ),
    cmd(
        "subagents",
        "the subagents: state, task, tokens, cost; open one's transcript, message or stop it",
        Some("message <id> <text>|stop <id>"),
        true,
        false,
    ),
    cmd(
        "orchestrator",
        "toggle orchestrating: the next prompts only read and delegate to subagents",
        Some("on|off"),
        true,
        false,
    ),
    cmd(
        "web",
        "web tools on or off (saved in config.json); /web on|off",
        Some("on|off"),
        true,
        true,
    ),
    cmd(
        "login",
        "store a provider's API key (checked first); /login <provider>",
        Some("provider"),
        true,
        false,
    ),
    cmd(
        "logout",
        "remove a provider's stored key; /logout <provider>",
        Some("provider"),
        true,
        false,
    ),
    cmd("exit", "exit zut", None, true, false),
    cmd("quit", "exit zut", None, true, false),
    // Reserved since the first release, not offered yet.
    cmd("session", "", None, false, false),
    cmd("cd", "", None, false, false),
];

/// The built-in command `name` (case-insensitive, without its slash).
pub fn find(name: &str) -> Option<&'static BuiltinCommand> {
    let name = name.trim_start_matches('/');
    BUILTIN_COMMANDS
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(name))
}

/// Whether `name` is a built-in (or reserved) command name.
pub fn is_builtin(name: &str) -> bool {
    find(name).is_some()
}

/// Every reserved name, for `HostConfig::builtin_commands`.
pub fn reserved_names() -> Vec<String> {
    BUILTIN_COMMANDS
        .iter()
        .map(|c| c.name.to_string())
        .collect()
}

/// The commands the controller runs for every front end.
pub fn headless() -> impl Iterator<Item = &'static BuiltinCommand> {
    BUILTIN_COMMANDS.iter().filter(|c| c.headless)
}

/// The commands the TUI offers, in popup order.
pub fn tui() -> impl Iterator<Item = &'static BuiltinCommand> {
    BUILTIN_COMMANDS.iter().filter(|c| c.tui)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_in_lower_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in BUILTIN_COMMANDS {
            assert_eq!(c.name, c.name.to_ascii_lowercase(), "{}", c.name);
            assert!(seen.insert(c.name), "/{} listed twice", c.name);
            assert!(!c.name.starts_with('/') && !c.name.contains(' '));
            if c.tui || c.headless {
                assert!(
                    !c.description.is_empty(),
                    "/{} offered without a description",
                    c.name
                );
            }
        }
        assert!(find("NEW").is_some() && find("/Tree").is_some());
        assert!(find("hello").is_none());
    }
}
