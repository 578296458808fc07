//! The system prompt: identity, tool summary, `AGENTS.md` context files and
//! user additions.
//!
//! Assembly order (each part separated by a blank line):
//! 1. the base: `--system-prompt` if given, else `$ZUT_HOME/SYSTEM.md` if it
//!    exists, else the built-in identity;
//! 2. the tool summary: built-in tools, then non-deferred extension tools
//!    sorted by name (protocol.md §8.1);
//! 3. context files, unless `--no-context-files`: `$ZUT_HOME/AGENTS.md`,
//!    then every `AGENTS.md` from the filesystem root down to the cwd, each
//!    under a `# Context from <path>` header;
//! 4. every `--append-system-prompt`, in order.
//!
//! The files are read once per prompt ([`SystemFiles::load`]), so every
//! request of a prompt carries the same text even if a tool edits
//! `AGENTS.md` meanwhile (the next prompt sees the change), and a step does
//! not touch the filesystem. Each file is read up to [`MAX_FILE_BYTES`]
//! (then cut with a note saying so); invalid UTF-8 becomes U+FFFD.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Most bytes taken from one `SYSTEM.md` or `AGENTS.md` file.
pub const MAX_FILE_BYTES: usize = 256 * 1024;

/// The built-in identity.
pub const IDENTITY: &str = "You are zut, a coding agent working in the user's terminal. \
You read and change files in the project with your tools, run commands with bash, \
and answer concisely. Prefer small, verifiable steps; say what you changed.";

/// Inputs of [`build`].
#[derive(Debug, Clone, Default)]
pub struct SystemPromptOptions {
    /// `$ZUT_HOME`.
    pub zut_home: PathBuf,
    /// Working directory.
    pub cwd: PathBuf,
    /// `--system-prompt`: replaces the base.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`, repeatable.
    pub append: Vec<String>,
    /// `--no-context-files`.
    pub no_context_files: bool,
}

/// The files behind a system prompt, read once (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SystemFiles {
    /// `$ZUT_HOME/SYSTEM.md`, if present and not blank.
    system_md: Option<String>,
    /// Context files with their text, in order.
    context: Vec<(PathBuf, String)>,
    /// The skills listing (`crate::skills::listing`), placed after the
    /// tool summary.
    skills: Option<String>,
}

impl SystemFiles {
    /// Reads what `opts` asks for: `SYSTEM.md` unless `--system-prompt`
    /// replaces it, the context files unless `--no-context-files`.
    pub fn load(opts: &SystemPromptOptions) -> Self {
        let system_md = match opts.system_prompt {
            Some(_) => None,
            None => read_nonempty(&opts.zut_home.join("SYSTEM.md")),
        };
        let context = if opts.no_context_files {
            Vec::new()
        } else {
            context_files(&opts.zut_home, &opts.cwd)
                .into_iter()
                .filter_map(|path| read_nonempty(&path).map(|text| (path, text)))
                .collect()
        };
        Self {
            system_md,
            context,
            skills: None,
        }
    }

    /// Sets the skills listing of this prompt.
    pub fn set_skills_listing(&mut self, listing: Option<String>) {
        self.skills = listing;
    }
}

/// Builds the system prompt, reading the files now; `tools` is the (name,
/// description) summary.
pub fn build(opts: &SystemPromptOptions, tools: &[(String, String)]) -> String {
    build_from(opts, &SystemFiles::load(opts), tools)
}

/// Builds the system prompt from files read earlier.
pub fn build_from(
    opts: &SystemPromptOptions,
    files: &SystemFiles,
    tools: &[(String, String)],
) -> String {
    let mut parts: Vec<String> = Vec::new();
    let base = match (&opts.system_prompt, &files.system_md) {
        (Some(text), _) => text.clone(),
        (None, Some(text)) => text.clone(),
        (None, None) => IDENTITY.into(),
    };
    parts.push(base.trim_end().to_string());
    if !tools.is_empty() {
        let mut s = String::from("Available tools:");
        for (name, desc) in tools {
            let first = desc.lines().next().unwrap_or("").trim();
            if first.is_empty() {
                s.push_str(&format!("\n- {name}"));
            } else {
                s.push_str(&format!("\n- {name}: {first}"));
            }
        }
        parts.push(s);
    }
    if let Some(listing) = &files.skills {
        parts.push(listing.clone());
    }
    for (path, text) in &files.context {
        parts.push(format!(
            "# Context from {}\n\n{}",
            path.display(),
            text.trim_end()
        ));
    }
    for extra in &opts.append {
        if !extra.trim().is_empty() {
            parts.push(extra.trim_end().to_string());
        }
    }
    parts.join("\n\n")
}

/// `$ZUT_HOME/AGENTS.md`, then `AGENTS.md` of every ancestor of `cwd` from
/// the root down (existing files only, no duplicates).
pub fn context_files(zut_home: &Path, cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let global = zut_home.join("AGENTS.md");
    if global.is_file() {
        out.push(global);
    }
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let mut ancestors: Vec<&Path> = cwd.ancestors().collect();
    ancestors.reverse();
    for dir in ancestors {
        let candidate = dir.join("AGENTS.md");
        if candidate.is_file() && !out.iter().any(|p| same_file(p, &candidate)) {
            out.push(candidate);
        }
    }
    out
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// The file's text (at most [`MAX_FILE_BYTES`], then a note), or `None`
/// when it cannot be read or is blank.
fn read_nonempty(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES as u64)
        .read_to_end(&mut bytes)
        .ok()?;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if text.trim().is_empty() {
        return None;
    }
    if size > MAX_FILE_BYTES as u64 {
        // A cut inside a multi-byte character became U+FFFD above: drop it.
        if text.ends_with('\u{fffd}') {
            text.pop();
        }
        text.push_str(&format!(
            "\n\n[truncated: {} is {size} bytes; only the first {} KiB are included]",
            path.display(),
            MAX_FILE_BYTES / 1024
        ));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_and_overrides() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        let sub = proj.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(home.path().join("AGENTS.md"), "global rules").unwrap();
        std::fs::write(proj.path().join("AGENTS.md"), "project rules").unwrap();
        std::fs::write(sub.join("AGENTS.md"), "sub rules").unwrap();
        let mut opts = SystemPromptOptions {
            zut_home: home.path().into(),
            cwd: sub.clone(),
            append: vec!["extra".into()],
            ..Default::default()
        };
        let p = build(&opts, &[("read".into(), "Read a file.\nMore.".into())]);
        assert!(p.starts_with(IDENTITY));
        let g = p.find("global rules").unwrap();
        let pr = p.find("project rules").unwrap();
        let s = p.find("sub rules").unwrap();
        assert!(g < pr && pr < s);
        assert!(p.contains("- read: Read a file."));
        assert!(p.ends_with("extra"));

        std::fs::write(home.path().join("SYSTEM.md"), "custom base").unwrap();
        assert!(build(&opts, &[]).starts_with("custom base"));
        opts.system_prompt = Some("flag base".into());
        opts.no_context_files = true;
        let p = build(&opts, &[]);
        assert!(p.starts_with("flag base"));
        assert!(!p.contains("rules"));
    }

    #[test]
    fn files_are_capped_and_lossy_and_read_once() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        let mut big = b"rule \xff ".repeat(MAX_FILE_BYTES / 4);
        big.extend_from_slice(b"TAIL-NEVER-SEEN");
        std::fs::write(proj.path().join("AGENTS.md"), &big).unwrap();
        let opts = SystemPromptOptions {
            zut_home: home.path().into(),
            cwd: proj.path().into(),
            ..Default::default()
        };
        let files = SystemFiles::load(&opts);
        let p = build_from(&opts, &files, &[]);
        assert!(p.contains("rule \u{fffd} rule"), "invalid UTF-8 replaced");
        assert!(!p.contains("TAIL-NEVER-SEEN"));
        assert!(p.contains(&format!(
            "[truncated: {} is {} bytes; only the first 256 KiB are included]",
            proj.path().join("AGENTS.md").display(),
            big.len()
        )));
        // A later edit does not change prompts built from the snapshot.
        std::fs::write(proj.path().join("AGENTS.md"), "edited").unwrap();
        assert_eq!(build_from(&opts, &files, &[]), p);
        assert!(build(&opts, &[]).contains("edited"));
    }
}
