//! Subagent profiles: Markdown files with a frontmatter block, read from
//! `ZUT_AGENT_PROFILES`, the project's `.agents/agents/` and
//! `.claude/agents/`, `~/.agents/agents/`, `~/.pi/agent/agents/` and
//! `~/.claude/agents/` (first of a name wins).
//!
//! The Go original's fields (tools.md §11.3): `name`, `description`,
//! `tools`, `model` (may be `provider/model`), `provider`,
//! `thinking`/`reasoning`, `systemPromptMode` (`append`, `replace`),
//! `inheritProjectContext`, `inheritSkills`, `fastMode`; keys compare
//! case-insensitively with `-` and `_` ignored. zut adds `maxTurns` and
//! `timeout` (seconds) as the child's budgets. Claude Code's files
//! (`.claude/agents/`) map `tools: Read, Grep` to zut's tool names and treat
//! `model: sonnet|opus|haiku|inherit` as "inherit the parent's model"; keys
//! neither format knows (`color`, `permissionMode`, …) are ignored with a
//! note. The body is the child's system prompt.

use std::path::{Path, PathBuf};

use zut_providers::Reasoning;

/// Largest profile file read (the Go original's limit).
pub const MAX_PROFILE_BYTES: u64 = 1024 * 1024;

/// Which convention a profile file follows (by the directory it came from).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileFormat {
    /// `~/.agents/agents/`, `.agents/agents/`, `ZUT_AGENT_PROFILES`, `~/.pi/agent/agents/`.
    Zut,
    /// Claude Code's `~/.claude/agents/` and `.claude/agents/`.
    Claude,
}

impl ProfileFormat {
    /// `zut` or `claude`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileFormat::Zut => "zut",
            ProfileFormat::Claude => "claude",
        }
    }
}

/// How the profile's body joins the child's system prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PromptMode {
    /// After zut's own system prompt (the default).
    #[default]
    Append,
    /// Instead of it.
    Replace,
}

/// One parsed profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// `name` (default: the file stem).
    pub name: String,
    /// `description` (empty when absent).
    pub description: String,
    /// `tools`: `None` inherits the child-safe set, `Some(vec![])` gives none.
    pub tools: Option<Vec<String>>,
    /// `model` without a provider prefix.
    pub model: Option<String>,
    /// `provider`, or the prefix of `model: provider/model`.
    pub provider: Option<String>,
    /// `thinking` / `reasoning`.
    pub reasoning: Option<Reasoning>,
    /// `systemPromptMode`.
    pub prompt_mode: PromptMode,
    /// `inheritProjectContext` (AGENTS.md and friends; default true).
    pub inherit_project_context: bool,
    /// `inheritSkills` (default true).
    pub inherit_skills: bool,
    /// `fastMode`.
    pub fast_mode: Option<bool>,
    /// `maxTurns` (zut): model calls per child prompt.
    pub max_turns: Option<u32>,
    /// `timeout` (zut): seconds a child prompt may run.
    pub timeout_secs: Option<u64>,
    /// `sandbox` (zut): the parent's jail or a narrower one.
    pub sandbox: crate::subagent::sandbox::SandboxMode,
    /// The body: the child's system prompt.
    pub system_prompt: String,
    /// Where it was read.
    pub path: PathBuf,
    /// Which convention.
    pub format: ProfileFormat,
    /// What was ignored or mapped, one line each.
    pub notes: Vec<String>,
}

/// A file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadProfile {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: String,
}

/// Every profile found, plus the files that were skipped.
#[derive(Debug, Clone, Default)]
pub struct ProfileSet {
    /// Usable profiles, first of each name, in search order.
    pub profiles: Vec<Profile>,
    /// Files that failed to parse.
    pub bad: Vec<BadProfile>,
    /// Later files whose name an earlier one already took.
    pub shadowed: Vec<(String, PathBuf)>,
}

impl ProfileSet {
    /// The profile called `name`.
    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.name == name)
    }
}

/// The directories searched, in order, with the format of each.
pub fn search_dirs(cwd: &Path, home: Option<&Path>) -> Vec<(PathBuf, ProfileFormat)> {
    let mut dirs = Vec::new();
    if let Some(list) = std::env::var_os("ZUT_AGENT_PROFILES") {
        for d in std::env::split_paths(&list) {
            if d.as_os_str().is_empty() {
                continue;
            }
            dirs.push((cwd.join(d), ProfileFormat::Zut));
        }
    }
    dirs.push((cwd.join(".agents").join("agents"), ProfileFormat::Zut));
    dirs.push((cwd.join(".claude").join("agents"), ProfileFormat::Claude));
    if let Some(home) = home {
        dirs.push((home.join(".agents").join("agents"), ProfileFormat::Zut));
        dirs.push((
            home.join(".pi").join("agent").join("agents"),
            ProfileFormat::Zut,
        ));
        dirs.push((home.join(".claude").join("agents"), ProfileFormat::Claude));
    }
    dirs
}

/// Reads every profile under [`search_dirs`]; `home` is usually `$HOME`.
pub fn discover(cwd: &Path, home: Option<&Path>) -> ProfileSet {
    let mut set = ProfileSet::default();
    let mut seen_dirs: Vec<PathBuf> = Vec::new();
    for (dir, format) in search_dirs(cwd, home) {
        let key = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        if seen_dirs.contains(&key) {
            continue;
        }
        seen_dirs.push(key);
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        files.sort();
        for path in files {
            match load_file(&path, format) {
                Ok(None) => {}
                Ok(Some(p)) => {
                    if set.get(&p.name).is_some() {
                        set.shadowed.push((p.name, path));
                    } else {
                        set.profiles.push(p);
                    }
                }
                Err(reason) => set.bad.push(BadProfile { path, reason }),
            }
        }
    }
    set
}

/// Reads one file: `Ok(None)` for what is not a profile file (a
/// directory, a `README.md`), `Err` with the reason for a bad one.
pub fn load_file(path: &Path, format: ProfileFormat) -> Result<Option<Profile>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Ok(None);
    }
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    if stem.eq_ignore_ascii_case("readme") {
        return Ok(None);
    }
    if meta.len() > MAX_PROFILE_BYTES {
        return Err(format!(
            "file is {} bytes, more than the {MAX_PROFILE_BYTES}-byte limit",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "file is not valid UTF-8".to_string())?;
    let mut p = parse_profile(&text, &stem, format)?;
    p.path = path.to_path_buf();
    Ok(Some(p))
}

/// A frontmatter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A scalar (quotes removed).
    Scalar(String),
    /// `[a, b]` or a `- item` block.
    List(Vec<String>),
}

/// The frontmatter's `(key, value, line)` entries and the body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frontmatter {
    /// Entries in file order (keys as written).
    pub entries: Vec<(String, Value, usize)>,
    /// The text after the closing `---`, trimmed.
    pub body: String,
}

/// Splits `text` into frontmatter entries and body. A file without an
/// opening `---` is all body; an opening without a closing line is an error,
/// as is a line in the block that is neither `key: value`, a list item, an
/// indented continuation nor a comment.
pub fn parse_frontmatter(text: &str) -> Result<Frontmatter, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Ok(Frontmatter {
            entries: Vec::new(),
            body: text.trim().to_string(),
        });
    }
    let mut block: Vec<&str> = Vec::new();
    let mut closed = false;
    let mut consumed = first.len();
    for line in lines.by_ref() {
        consumed += line.len();
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        block.push(line.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Err("frontmatter has no closing `---` line".to_string());
    }
    let body = text.get(consumed..).unwrap_or_default().trim().to_string();
    let mut entries: Vec<(String, Value, usize)> = Vec::new();
    let mut i = 0;
    while i < block.len() {
        let line = block[i];
        let lineno = i + 2;
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if line.starts_with([' ', '\t']) || trimmed.starts_with("- ") || trimmed == "-" {
            return Err(format!(
                "frontmatter line {lineno}: unexpected indented line or list item {trimmed:?}"
            ));
        }
        let Some((key, rest)) = trimmed.split_once(':') else {
            return Err(format!(
                "frontmatter line {lineno}: expected `key: value`, found {trimmed:?}"
            ));
        };
        let key = key.trim();
        if key.is_empty() {
            return Err(format!("frontmatter line {lineno}: empty key"));
        }
        let rest = rest.trim();
        let value = if rest.is_empty() {
            // A `- item` block, or nothing.
            let mut items = Vec::new();
            while i < block.len() {
                let t = block[i].trim();
                if let Some(item) = t.strip_prefix('-') {
                    items.push(unquote(item.trim()));
                    i += 1;
                } else if t.is_empty() || t.starts_with('#') {
                    i += 1;
                } else {
                    break;
                }
            }
            if items.is_empty() {
                Value::Scalar(String::new())
            } else {
                Value::List(items)
            }
        } else if rest == "|" || rest == ">" || rest.starts_with("|-") || rest.starts_with(">-") {
            let folded = rest.starts_with('>');
            let mut parts = Vec::new();
            while i < block.len()
                && (block[i].starts_with([' ', '\t']) || block[i].trim().is_empty())
            {
                parts.push(block[i].trim());
                i += 1;
            }
            let sep = if folded { " " } else { "\n" };
            Value::Scalar(parts.join(sep).trim().to_string())
        } else if let Some(inner) = rest.strip_prefix('[') {
            let Some(inner) = inner.strip_suffix(']') else {
                return Err(format!(
                    "frontmatter line {lineno}: list for {key:?} has no closing `]`"
                ));
            };
            Value::List(
                inner
                    .split(',')
                    .map(|s| unquote(s.trim()))
                    .filter(|s| !s.is_empty())
                    .collect(),
            )
        } else {
            if (rest.starts_with('"') || rest.starts_with('\''))
                && !(rest.len() >= 2 && rest.ends_with(&rest[..1]))
            {
                return Err(format!(
                    "frontmatter line {lineno}: unterminated quoted value for {key:?}"
                ));
            }
            Value::Scalar(unquote(rest))
        };
        entries.push((key.to_string(), value, lineno));
    }
    Ok(Frontmatter { entries, body })
}

fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        let inner = &s[1..s.len() - 1];
        if b[0] == b'"' {
            return inner.replace("\\n", "\n").replace("\\\"", "\"");
        }
        return inner.replace("''", "'");
    }
    s.to_string()
}

/// `Name`, `system-prompt-mode` and `system_prompt_mode` compare equal.
fn norm_key(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn list_of(value: &Value) -> Vec<String> {
    match value {
        Value::List(items) => items.clone(),
        Value::Scalar(s) => s
            .split(',')
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .collect(),
    }
}

fn scalar<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    match value {
        Value::Scalar(s) => Ok(s),
        Value::List(_) => Err(format!("{key}: expected a single value, found a list")),
    }
}

fn boolean(value: &Value, key: &str) -> Result<bool, String> {
    match scalar(value, key)?.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Ok(true),
        "false" | "no" | "off" => Ok(false),
        other => Err(format!("{key}: expected true or false, found {other:?}")),
    }
}

/// Claude Code's tool names → zut's (`None`: no zut equivalent).
pub fn claude_tool(name: &str) -> Option<&'static str> {
    Some(match name {
        "Read" | "NotebookRead" => "read",
        "Write" => "write",
        "Edit" | "MultiEdit" | "NotebookEdit" => "edit",
        "Bash" | "BashOutput" | "KillShell" => "bash",
        "Grep" => "grep",
        "Glob" | "LS" => "glob",
        "WebSearch" | "WebFetch" => "web_search",
        "TodoWrite" => "plan",
        _ => return None,
    })
}

/// Parses one profile's text (`stem`: the file name without `.md`).
pub fn parse_profile(text: &str, stem: &str, format: ProfileFormat) -> Result<Profile, String> {
    let fm = parse_frontmatter(text)?;
    let mut p = Profile {
        name: stem.to_string(),
        description: String::new(),
        tools: None,
        model: None,
        provider: None,
        reasoning: None,
        prompt_mode: PromptMode::Append,
        inherit_project_context: true,
        inherit_skills: true,
        fast_mode: None,
        max_turns: None,
        timeout_secs: None,
        sandbox: Default::default(),
        system_prompt: fm.body.clone(),
        path: PathBuf::new(),
        format,
        notes: Vec::new(),
    };
    let mut model_raw: Option<String> = None;
    for (key, value, line) in &fm.entries {
        let k = norm_key(key);
        let at = |e: String| format!("frontmatter line {line}: {e}");
        match k.as_str() {
            "name" => {
                let n = scalar(value, key).map_err(at)?.trim().to_string();
                if !n.is_empty() {
                    p.name = n;
                }
            }
            "description" => p.description = scalar(value, key).map_err(at)?.trim().to_string(),
            "tools" | "allowedtools" => {
                let mut tools = Vec::new();
                for t in list_of(value) {
                    if format == ProfileFormat::Claude {
                        match claude_tool(&t) {
                            Some(z) => {
                                if !tools.iter().any(|x| x == z) {
                                    tools.push(z.to_string());
                                }
                            }
                            None if t.chars().next().is_some_and(|c| c.is_ascii_lowercase()) => {
                                tools.push(t)
                            }
                            None => p
                                .notes
                                .push(format!("Claude tool {t:?} has no zut equivalent: ignored")),
                        }
                    } else if !tools.contains(&t) {
                        tools.push(t);
                    }
                }
                p.tools = Some(tools);
            }
            "model" => model_raw = Some(scalar(value, key).map_err(at)?.trim().to_string()),
            "provider" => {
                let v = scalar(value, key).map_err(at)?.trim().to_string();
                if !v.is_empty() {
                    p.provider = Some(v);
                }
            }
            "thinking" | "reasoning" => {
                let v = scalar(value, key).map_err(at)?;
                p.reasoning =
                    Some(zut_providers::parse_reasoning(v).map_err(|e| at(format!("{key}: {e}")))?);
            }
            "systempromptmode" => {
                p.prompt_mode = match scalar(value, key)
                    .map_err(at)?
                    .trim()
                    .to_ascii_lowercase()
                    .as_str()
                {
                    "" | "append" => PromptMode::Append,
                    "replace" => PromptMode::Replace,
                    other => {
                        return Err(at(format!(
                            "{key}: expected append or replace, found {other:?}"
                        )))
                    }
                }
            }
            "inheritprojectcontext" => {
                p.inherit_project_context = boolean(value, key).map_err(at)?
            }
            "inheritskills" => p.inherit_skills = boolean(value, key).map_err(at)?,
            "fastmode" => p.fast_mode = Some(boolean(value, key).map_err(at)?),
            "maxturns" | "maxsteps" => {
                let v = scalar(value, key).map_err(at)?.trim();
                let n: u32 = v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                    at(format!("{key}: expected a positive integer, found {v:?}"))
                })?;
                p.max_turns = Some(n);
            }
            "timeout" | "timeoutseconds" => {
                let v = scalar(value, key).map_err(at)?.trim();
                let n: u64 = v
                    .trim_end_matches('s')
                    .parse()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| {
                        at(format!(
                            "{key}: expected seconds (a positive integer), found {v:?}"
                        ))
                    })?;
                p.timeout_secs = Some(n);
            }
            "sandbox" | "sandboxmode" => {
                let v = scalar(value, key).map_err(at)?;
                p.sandbox = crate::subagent::sandbox::SandboxMode::parse(v)
                    .map_err(|e| at(format!("{key}: {e}")))?;
            }
            _ => p.notes.push(format!("unknown key {key:?} ignored")),
        }
    }
    if let Some(m) = model_raw.filter(|m| !m.is_empty()) {
        let lower = m.to_ascii_lowercase();
        if format == ProfileFormat::Claude
            && matches!(lower.as_str(), "inherit" | "sonnet" | "opus" | "haiku")
        {
            p.notes.push(format!(
                "Claude model alias {m:?}: the child inherits the parent's model"
            ));
        } else if lower == "inherit" {
        } else if let Some((prov, model)) = m.split_once('/') {
            if p.provider.is_some() {
                return Err(format!(
                    "model {m:?} names a provider and `provider` is set too; use one"
                ));
            }
            if prov.is_empty() || model.is_empty() {
                return Err(format!("model {m:?}: expected provider/model"));
            }
            p.provider = Some(prov.to_string());
            p.model = Some(model.to_string());
        } else {
            p.model = Some(m);
        }
    }
    if p.provider.is_some() && p.model.is_none() {
        return Err("provider is set without a model".to_string());
    }
    if p.name.chars().count() > 128 {
        return Err("name is longer than 128 characters".to_string());
    }
    if p.name.contains(['/', '\\'])
        || p.name.chars().any(char::is_control)
        || p.name.contains(char::is_whitespace)
    {
        return Err(format!(
            "name {:?} may not contain slashes, spaces or control characters",
            p.name
        ));
    }
    if p.system_prompt.trim().is_empty() {
        return Err("the body (the child's system prompt) is empty".to_string());
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_format_fields() {
        let p = parse_profile(
            "---\nName: reviewer\ndescription: \"Reviews diffs\"\ntools: [read, grep]\nmodel: anthropic/claude-x\nthinking: maximum\nsystem-prompt-mode: replace\ninherit_skills: false\nfastMode: true\nmaxTurns: 7\ntimeout: 30\n---\nYou review.\n",
            "x",
            ProfileFormat::Zut,
        )
        .unwrap();
        assert_eq!(p.name, "reviewer");
        assert_eq!(p.description, "Reviews diffs");
        assert_eq!(p.tools, Some(vec!["read".into(), "grep".into()]));
        assert_eq!(p.provider.as_deref(), Some("anthropic"));
        assert_eq!(p.model.as_deref(), Some("claude-x"));
        assert_eq!(p.reasoning, Some(Reasoning::XHigh));
        assert_eq!(p.prompt_mode, PromptMode::Replace);
        assert!(!p.inherit_skills);
        assert_eq!(p.fast_mode, Some(true));
        assert_eq!(p.max_turns, Some(7));
        assert_eq!(p.timeout_secs, Some(30));
        assert_eq!(p.system_prompt, "You review.");
        assert!(p.notes.is_empty());
    }

    #[test]
    fn block_lists_and_empty_tools() {
        let p = parse_profile(
            "---\ntools:\n  - read\n  - bash\n---\nbody",
            "s",
            ProfileFormat::Zut,
        )
        .unwrap();
        assert_eq!(p.name, "s");
        assert_eq!(p.tools, Some(vec!["read".into(), "bash".into()]));
        let p = parse_profile("---\ntools: []\n---\nbody", "s", ProfileFormat::Zut).unwrap();
        assert_eq!(p.tools, Some(vec![]));
    }

    #[test]
    fn claude_format_maps_tools_and_notes_unknown_keys() {
        let p = parse_profile(
            "---\nname: code-reviewer\ndescription: Expert reviewer\ntools: Read, Grep, Glob, Bash, Task\nmodel: sonnet\ncolor: blue\n---\nYou are a reviewer.",
            "f",
            ProfileFormat::Claude,
        )
        .unwrap();
        assert_eq!(
            p.tools,
            Some(vec![
                "read".into(),
                "grep".into(),
                "glob".into(),
                "bash".into()
            ])
        );
        assert_eq!(p.model, None);
        assert_eq!(p.notes.len(), 3, "{:?}", p.notes);
        assert!(p.notes.iter().any(|n| n.contains("\"color\"")));
        assert!(p.notes.iter().any(|n| n.contains("\"Task\"")));
    }

    #[test]
    fn bad_files_say_why() {
        let cases = [
            ("---\nname: x\nbody", "no closing"),
            ("---\nname: x\n---\n", "body"),
            ("---\nthinking: loud\n---\nb", "invalid reasoning level"),
            ("---\nname: a/b\n---\nb", "slashes"),
            ("---\njust words\n---\nb", "expected `key: value`"),
            ("---\ntools: [a, b\n---\nb", "closing `]`"),
            ("---\nprovider: openai\n---\nb", "without a model"),
            ("---\nfastMode: maybe\n---\nb", "true or false"),
            ("---\nmaxTurns: 0\n---\nb", "positive integer"),
            ("---\ndescription: \"open\n---\nb", "unterminated"),
        ];
        for (text, want) in cases {
            let e = parse_profile(text, "s", ProfileFormat::Zut).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn no_frontmatter_is_all_body() {
        let p = parse_profile("Just a prompt.", "plain", ProfileFormat::Zut).unwrap();
        assert_eq!(p.name, "plain");
        assert_eq!(p.system_prompt, "Just a prompt.");
    }

    #[test]
    fn discovery_order_and_bad_files() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().join("proj");
        let home = dir.path().join("home");
        std::fs::create_dir_all(cwd.join(".agents/agents")).unwrap();
        std::fs::create_dir_all(home.join(".claude/agents")).unwrap();
        std::fs::write(
            cwd.join(".agents/agents/a.md"),
            "---\nname: dup\n---\nproject",
        )
        .unwrap();
        std::fs::write(
            home.join(".claude/agents/b.md"),
            "---\nname: dup\n---\nclaude",
        )
        .unwrap();
        std::fs::write(home.join(".claude/agents/c.md"), "---\nname: c\n").unwrap();
        let set = discover(&cwd, Some(&home));
        assert_eq!(set.profiles.len(), 1);
        assert_eq!(set.profiles[0].system_prompt, "project");
        assert_eq!(set.shadowed.len(), 1);
        assert_eq!(set.bad.len(), 1);
        assert!(set.bad[0].path.ends_with("c.md"));
    }
}
