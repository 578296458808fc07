//! One skill and where it came from; reading a `SKILL.md` safely.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::front_matter::{self, FrontMatter};

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
///
/// Equality compares everything but the body, which a skill found through
/// the discovery cache reads only when it is used ([`Skill::body`]).
#[derive(Debug, Clone)]
pub struct Skill {
    /// Front-matter `name`, else the containing directory's name.
    pub name: String,
    /// Other names it answers to (its directory path relative to its root,
    /// when that differs from the name).
    pub aliases: Vec<String>,
    /// Front-matter `description` (may be empty).
    pub description: String,
    /// The text after the front matter, trimmed: read with the file, or
    /// on first use when discovery took the rest from its cache.
    body: OnceLock<String>,
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
        Self::from_front_matter(front_matter::parse(text), fallback_name, path, source)
    }

    /// Builds a skill from parsed front matter (and its body).
    pub fn from_front_matter(
        fm: FrontMatter,
        fallback_name: &str,
        path: PathBuf,
        source: Source,
    ) -> Self {
        let mut skill = Self::from_meta(
            front_matter::Meta {
                name: fm.name,
                description: fm.description,
                disable_model_invocation: fm.disable_model_invocation,
                allowed_tools: fm.allowed_tools,
                permissions: fm.permissions,
            },
            fallback_name,
            path,
            source,
        );
        skill.body = OnceLock::from(fm.body);
        skill
    }

    /// Builds a skill from its front matter alone; the body is read from
    /// `path` when [`Skill::body`] first asks for it.
    pub fn from_meta(
        meta: front_matter::Meta,
        fallback_name: &str,
        path: PathBuf,
        source: Source,
    ) -> Self {
        Self {
            name: meta.name.unwrap_or_else(|| fallback_name.to_string()),
            aliases: Vec::new(),
            description: meta.description,
            body: OnceLock::new(),
            path,
            source,
            disable_model_invocation: meta.disable_model_invocation,
            allowed_tools: meta.allowed_tools,
            permissions: meta.permissions,
        }
    }

    /// The text after the front matter, trimmed. Read from the `SKILL.md`
    /// (with the same size and text checks as discovery) the first time when
    /// discovery took the skill from its cache; an error names the file.
    pub fn body(&self) -> Result<&str, String> {
        if let Some(body) = self.body.get() {
            return Ok(body);
        }
        let text = read_skill_file(&self.path).map_err(|e| {
            format!(
                "cannot read skill {:?} from {}: {e}",
                self.name,
                self.path.display()
            )
        })?;
        Ok(self.body.get_or_init(|| front_matter::parse(&text).body))
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

impl PartialEq for Skill {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.aliases == other.aliases
            && self.description == other.description
            && self.path == other.path
            && self.source == other.source
            && self.disable_model_invocation == other.disable_model_invocation
            && self.allowed_tools == other.allowed_tools
            && self.permissions == other.permissions
    }
}

impl Eq for Skill {}

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
        assert_eq!(s.body(), Ok("just a body"));
    }

    #[test]
    fn a_body_not_read_yet_is_read_on_first_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SKILL.md");
        std::fs::write(&path, "---\nname: x\n---\n  the body \n").unwrap();
        let meta = front_matter::parse("---\nname: x\n---\n").meta();
        let s = Skill::from_meta(meta, "d", path.clone(), Source::Global);
        assert_eq!(s.body(), Ok("the body"));
        // Read once: later edits do not change a loaded body.
        std::fs::write(&path, "other").unwrap();
        assert_eq!(s.body(), Ok("the body"));
        let gone = Skill::from_meta(
            Default::default(),
            "d",
            dir.path().join("nope/SKILL.md"),
            Source::Global,
        );
        let err = gone.body().unwrap_err();
        assert!(
            err.contains("nope/SKILL.md") && err.contains("no such file"),
            "{err}"
        );
    }
}
