//! Slash commands: the built-ins the TUI runs itself, the list shown in
//! the popup (built-ins, then extension commands with their extension's
//! name) and fuzzy matching with the exact name first.

/// One entry of the slash popup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandInfo {
    /// Name without the slash.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// The extension that provides it (`None` for built-ins).
    pub extension: Option<String>,
}

impl CommandInfo {
    /// A built-in command.
    pub fn builtin(name: &str, description: &str) -> Self {
        Self {
            name: name.to_string(),
            description: description.to_string(),
            extension: None,
        }
    }
}

/// The built-in commands this TUI implements, in popup order (the one
/// list in `zut_types::commands`).
pub fn builtins() -> Vec<CommandInfo> {
    zut_types::commands::tui()
        .map(|c| CommandInfo::builtin(c.name, c.description))
        .collect()
}

/// How well `name` matches `query`: lower is better; `None` is no match.
fn score(name: &str, query: &str) -> Option<u8> {
    if query.is_empty() {
        return Some(3);
    }
    let n = name.to_lowercase();
    let q = query.to_lowercase();
    if n == q {
        return Some(0);
    }
    if n.starts_with(&q) {
        return Some(1);
    }
    if n.contains(&q) {
        return Some(2);
    }
    let mut chars = n.chars();
    q.chars().all(|qc| chars.any(|nc| nc == qc)).then_some(4)
}

/// Indices of `cmds` matching `query`, best first (exact, prefix,
/// substring, subsequence; popup order within a rank).
pub fn filter(cmds: &[CommandInfo], query: &str) -> Vec<usize> {
    let mut hits: Vec<(u8, usize)> = cmds
        .iter()
        .enumerate()
        .filter_map(|(i, c)| score(&c.name, query).map(|s| (s, i)))
        .collect();
    hits.sort();
    hits.into_iter().map(|(_, i)| i).collect()
}

/// Splits `/name args` into its parts (`None` when `text` is not a
/// command: no leading slash, or a path like `/usr/bin`).
pub fn parse(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest.trim_end(), ""),
    };
    // `/skill:<alias>` names may contain `/` (`/skill:backend/go`); any
    // other name with a slash is a path.
    if name.is_empty() || (name.contains('/') && !is_skill(name)) {
        return None;
    }
    Some((name, args))
}

/// Whether `name` is a `skill:<name>` invocation (prefix case-insensitive).
pub fn is_skill(name: &str) -> bool {
    name.get(..6)
        .is_some_and(|h| h.eq_ignore_ascii_case("skill:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_match_comes_first() {
        let cmds = vec![
            CommandInfo::builtin("sessions", ""),
            CommandInfo::builtin("session", ""),
            CommandInfo::builtin("help", ""),
        ];
        assert_eq!(filter(&cmds, "session"), [1, 0]);
        assert_eq!(filter(&cmds, "ses"), [0, 1]);
        assert_eq!(filter(&cmds, "hp"), [2]);
        assert_eq!(filter(&cmds, "").len(), 3);
    }

    #[test]
    fn parses_commands() {
        assert_eq!(parse("/hello  world "), Some(("hello", "world")));
        assert_eq!(parse("/exit"), Some(("exit", "")));
        assert_eq!(parse("/usr/bin/ls"), None);
        assert_eq!(
            parse("/skill:backend/go-patterns fix it"),
            Some(("skill:backend/go-patterns", "fix it"))
        );
        assert_eq!(parse("/Skill:a/b"), Some(("Skill:a/b", "")));
        assert_eq!(parse("hello"), None);
    }
}
