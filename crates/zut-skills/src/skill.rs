//! One skill and where it came from; reading a `SKILL.md` safely.

use std::path::{Path, PathBuf};

use crate::front_matter;

/// Largest `SKILL.md` read; a bigger file is skipped unread.
pub const MAX_SKILL_BYTES: u64 = 1024 * 1024;

/// Where a skill was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A directory of `ZUT_AGENT_SKILLS` (label `agent`).
    Agent,
    /// `<cwd>/.zut/skills` (label `project`).
    Project,
    /// `$ZUT_HOME/skills` (label `global`).
    Global,
    /// `<cwd>/.claude/skills` (label `project (claude)`).
    ProjectClaude,
    /// `~/.claude/skills` (label `global (claude)`).
    GlobalClaude,
    /// `<cwd>/.agents/skills` (label `project (agents)`).
    ProjectAgents,
    /// `~/.agents/skills` (label `global (agents)`).
    GlobalAgents,
    /// Bundled by the extension with this manifest name.
    Extension(String),
    /// Embedded in zut.
    Builtin,
}

impl Source {
    /// The label shown by `zut skills` and the `/skills` picker.
    pub fn label(&self) -> String {
        match self {
            Self::Agent => "agent".into(),
            Self::Project => "project".into(),
            Self::Global => "global".into(),
            Self::ProjectClaude => "project (claude)".into(),
            Self::GlobalClaude => "global (claude)".into(),
            Self::ProjectAgents => "project (agents)".into(),
            Self::GlobalAgents => "global (agents)".into(),
            Self::Extension(name) => format!("extension {name}"),
            Self::Builtin => "builtin".into(),
        }
    }
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Front-matter `name`, else the containing directory's name.
    pub name: String,
    /// Other names it answers to (its directory path relative to its root,
    /// when that differs from the name).
    pub aliases: Vec<String>,
    /// Front-matter `description` (may be empty).
    pub description: String,
    /// The text after the front matter, trimmed.
    pub body: String,
    /// The `SKILL.md` path (empty for built-ins).
    pub path: PathBuf,
    /// Where it came from.
    pub source: Source,
    /// Hidden from the system-prompt listing (still usable by `/skill:`).
    pub disable_model_invocation: bool,
    /// `allowed-tools` (informational, not enforced).
    pub allowed_tools: Vec<String>,
    /// `permissions` (informational, not enforced).
    pub permissions: Vec<(String, Vec<String>)>,
}

impl Skill {
    /// Builds a skill from `SKILL.md` text; `fallback_name` is used when the
    /// front matter has no `name`.
    pub fn from_text(text: &str, fallback_name: &str, path: PathBuf, source: Source) -> Self {
        let fm = front_matter::parse(text);
        Self {
            name: fm.name.unwrap_or_else(|| fallback_name.to_string()),
            aliases: Vec::new(),
            description: fm.description,
            body: fm.body,
            path,
            source,
            disable_model_invocation: fm.disable_model_invocation,
            allowed_tools: fm.allowed_tools,
            permissions: fm.permissions,
        }
    }

    /// A skill embedded in zut.
    pub fn builtin(name: &str, text: &str) -> Self {
        Self::from_text(text, name, PathBuf::new(), Source::Builtin)
    }

    /// The directory holding `SKILL.md` (relative references resolve here).
    pub fn dir(&self) -> Option<&Path> {
        self.path.parent().filter(|p| !p.as_os_str().is_empty())
    }

    /// The description, or `(no description)` when it is empty.
    pub fn description_or_placeholder(&self) -> &str {
        if self.description.trim().is_empty() {
            "(no description)"
        } else {
            &self.description
        }
    }

    /// Whether `name` is this skill's name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a == name)
    }
}

/// Why a `SKILL.md` could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Not found (skipped silently).
    Missing,
    /// Larger than [`MAX_SKILL_BYTES`] (never read).
    TooLarge(u64),
    /// Contains NUL bytes or is not UTF-8.
    Binary,
    /// Any other I/O problem.
    Io(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Missing => write!(f, "no such file"),
            Self::TooLarge(n) => write!(
                f,
                "file is over the {} KiB limit ({n} bytes or more); skipped",
                MAX_SKILL_BYTES / 1024
            ),
            Self::Binary => write!(f, "not a text file (binary or not UTF-8)"),
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Reads a `SKILL.md`: at most [`MAX_SKILL_BYTES`] (a larger file is refused
/// from its size and never read whole), text only.
pub fn read_skill_file(path: &Path) -> Result<String, ReadError> {
    crate::dir_fd::read_skill_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_large_and_missing_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin.md");
        std::fs::write(&bin, b"---\nname: x\n---\n\x00\x01").unwrap();
        assert_eq!(read_skill_file(&bin), Err(ReadError::Binary));
        let latin = dir.path().join("latin.md");
        std::fs::write(&latin, b"caf\xe9").unwrap();
        assert_eq!(read_skill_file(&latin), Err(ReadError::Binary));
        let big = dir.path().join("big.md");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_SKILL_BYTES + 1).unwrap();
        assert_eq!(
            read_skill_file(&big),
            Err(ReadError::TooLarge(MAX_SKILL_BYTES + 1))
        );
        assert_eq!(
            read_skill_file(&dir.path().join("nope")),
            Err(ReadError::Missing)
        );
        let ok = dir.path().join("ok.md");
        std::fs::write(&ok, "hello").unwrap();
        assert_eq!(read_skill_file(&ok).unwrap(), "hello");
    }

    #[test]
    fn defaults() {
        let s = Skill::from_text(
            "just a body",
            "dir-name",
            "/x/SKILL.md".into(),
            Source::Global,
        );
        assert_eq!(s.name, "dir-name");
        assert_eq!(s.description_or_placeholder(), "(no description)");
        assert_eq!(s.dir(), Some(Path::new("/x")));
        assert!(Skill::builtin("b", "x").dir().is_none());
    }
}
