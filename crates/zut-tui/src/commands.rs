//! Slash commands: the built-ins the TUI runs itself, the list shown in
//! the popup (built-ins, extension commands with their extension's name,
//! `/skill:` commands, each its own section) and fuzzy matching with the
//! exact name first.

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

/// The popup section a command is listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    /// Commands the TUI runs itself.
    BuiltIn,
    /// Commands registered by extensions.
    Extensions,
    /// `/skill:<name>` commands.
    Skills,
}

impl Section {
    /// The section's title in its `── title ──` divider.
    pub fn title(self) -> &'static str {
        match self {
            Self::BuiltIn => "built-in",
            Self::Extensions => "extensions",
            Self::Skills => "skills",
        }
    }
}

impl CommandInfo {
    /// The section this command is listed in.
    pub fn section(&self) -> Section {
        match &self.extension {
            None => Section::BuiltIn,
            Some(_) if is_skill(&self.name) => Section::Skills,
            Some(_) => Section::Extensions,
        }
    }

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

/// Indices of `cmds` matching `query`, grouped by [`Section`] and best
/// first within a section (exact, prefix, substring, subsequence; popup
/// order within a rank). The section holding the best match comes first
/// (on a tie: built-ins, extensions, skills), so the first row is always
/// the best match and every section stays one block of rows.
pub fn filter(cmds: &[CommandInfo], query: &str) -> Vec<usize> {
    let mut hits: Vec<(u8, usize)> = cmds
        .iter()
        .enumerate()
        .filter_map(|(i, c)| score(&c.name, query).map(|s| (s, i)))
        .collect();
    hits.sort();
    let best = |s: Section| {
        hits.iter()
            .find(|(_, i)| cmds[*i].section() == s)
            .map_or(u8::MAX, |(score, _)| *score)
    };
    let mut order = [Section::BuiltIn, Section::Extensions, Section::Skills];
    order.sort_by_key(|s| (best(*s), *s));
    order
        .iter()
        .flat_map(|s| {
            hits.iter()
                .filter(move |(_, i)| cmds[*i].section() == *s)
                .map(|(_, i)| *i)
        })
        .collect()
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
    fn sections_stay_together_best_section_first() {
        let ext = |n: &str| CommandInfo {
            name: n.into(),
            description: String::new(),
            extension: Some("x".into()),
        };
        let cmds = vec![
            CommandInfo::builtin("help", ""),
            CommandInfo::builtin("info", ""),
            ext("note"),
            ext("hello"),
            CommandInfo {
                extension: Some("skill".into()),
                ..ext("skill:notes")
            },
        ];
        // A tie: built-ins, extensions, skills.
        assert_eq!(filter(&cmds, ""), [0, 1, 2, 3, 4]);
        // `help` and `hello` are both prefixes: a tie, built-ins first.
        assert_eq!(filter(&cmds, "he"), [0, 3]);
        // Sections by their best match: `note` (prefix), `skill:notes`
        // (substring), `info` (subsequence n…o).
        assert_eq!(filter(&cmds, "no"), [2, 4, 1]);
        assert_eq!(filter(&cmds, "skill:"), [4]);
        assert_eq!(cmds[4].section(), Section::Skills);
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
