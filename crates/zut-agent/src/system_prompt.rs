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

use std::path::{Path, PathBuf};

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

/// Builds the system prompt; `tools` is the (name, description) summary.
pub fn build(opts: &SystemPromptOptions, tools: &[(String, String)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let base = match &opts.system_prompt {
        Some(text) => text.clone(),
        None => read_nonempty(&opts.zut_home.join("SYSTEM.md")).unwrap_or_else(|| IDENTITY.into()),
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
    if !opts.no_context_files {
        for path in context_files(&opts.zut_home, &opts.cwd) {
            if let Some(text) = read_nonempty(&path) {
                parts.push(format!(
                    "# Context from {}\n\n{}",
                    path.display(),
                    text.trim_end()
                ));
            }
        }
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

fn read_nonempty(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    if text.trim().is_empty() {
        None
    } else {
        Some(text)
    }
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
}
