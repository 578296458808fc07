//! The `SKILL.md` front matter: a tiny YAML subset (sessions-themes-skills.md
//! §3.1).
//!
//! After leading whitespace the file starts with `---`; the block ends at the
//! next line beginning with `---`. Without a closing line the whole file is
//! body. Inside the block: `key: value` (optionally quoted), inline `[a, b]`
//! lists, indented `- item` block lists, and a `permissions:` block of
//! `tool: [patterns]` lines. `#` comment lines are skipped; unknown keys are
//! ignored.

/// What the front matter says, plus the body after it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// `name`, if given and not blank.
    pub name: Option<String>,
    /// `description` (empty when absent).
    pub description: String,
    /// `disable-model-invocation` / `disable_model_invocation` is `true`.
    pub disable_model_invocation: bool,
    /// `allowed-tools` / `allowed_tools` (informational).
    pub allowed_tools: Vec<String>,
    /// `permissions`: tool name → patterns, in file order (informational).
    pub permissions: Vec<(String, Vec<String>)>,
    /// Everything after the front matter, trimmed.
    pub body: String,
}

/// The front matter without the body: what the discovery cache keeps of a
/// `SKILL.md` (in a binary format where every field is written: no
/// field may be skipped when serialised).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Meta {
    /// `name`, if given and not blank.
    pub name: Option<String>,
    /// `description` (empty when absent).
    pub description: String,
    /// `disable-model-invocation` is `true`.
    pub disable_model_invocation: bool,
    /// `allowed-tools` (informational).
    pub allowed_tools: Vec<String>,
    /// `permissions` (informational).
    pub permissions: Vec<(String, Vec<String>)>,
}

impl FrontMatter {
    /// Everything but the body.
    pub fn meta(&self) -> Meta {
        Meta {
            name: self.name.clone(),
            description: self.description.clone(),
            disable_model_invocation: self.disable_model_invocation,
            allowed_tools: self.allowed_tools.clone(),
            permissions: self.permissions.clone(),
        }
    }
}

/// Splits `text` into front matter and body and reads the recognised keys.
pub fn parse(text: &str) -> FrontMatter {
    let Some((block, body)) = split(text) else {
        return FrontMatter {
            body: text.trim().to_string(),
            ..Default::default()
        };
    };
    let mut fm = FrontMatter {
        body: body.trim().to_string(),
        ..Default::default()
    };
    let lines: Vec<&str> = block.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        // The indented lines that follow belong to this key.
        let start = i;
        while i < lines.len() && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty()) {
            i += 1;
        }
        let nested = &lines[start..i];
        match key {
            "name" => {
                let v = unquote(value);
                if !v.trim().is_empty() {
                    fm.name = Some(v.trim().to_string());
                }
            }
            "description" => fm.description = unquote(value).trim().to_string(),
            "disable-model-invocation" | "disable_model_invocation" => {
                fm.disable_model_invocation = unquote(value).trim().eq_ignore_ascii_case("true");
            }
            "allowed-tools" | "allowed_tools" => fm.allowed_tools = list(value, nested),
            "permissions" => {
                for entry in nested {
                    let entry = entry.trim();
                    if entry.is_empty() || entry.starts_with('#') {
                        continue;
                    }
                    if let Some((tool, patterns)) = entry.split_once(':') {
                        let tool = unquote(tool.trim()).to_string();
                        if !tool.is_empty() {
                            fm.permissions.push((tool, list(patterns.trim(), &[])));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    fm
}

/// `(front matter block, body)` when `text` opens a block; `None` when it
/// does not, or when the block never closes (then the whole file is body).
fn split(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start().strip_prefix("---")?;
    // The opening line is `---` possibly followed by spaces.
    let nl = rest.find('\n')?;
    if !rest[..nl].trim().is_empty() {
        return None;
    }
    let inner = &rest[nl + 1..];
    let mut offset = 0;
    for line in inner.split_inclusive('\n') {
        if line.starts_with("---") {
            let block = &inner[..offset];
            let body = &inner[offset + line.len()..];
            return Some((block, body));
        }
        offset += line.len();
    }
    None
}

/// A list value: inline `[a, "b"]`, a single scalar, or (when `value` is
/// empty) the `- item` lines of `nested`.
fn list(value: &str, nested: &[&str]) -> Vec<String> {
    if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        return inner
            .split(',')
            .map(|s| unquote(s.trim()).trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
    }
    if !value.is_empty() {
        let v = unquote(value).trim().to_string();
        return if v.is_empty() { Vec::new() } else { vec![v] };
    }
    nested
        .iter()
        .filter_map(|l| l.trim().strip_prefix('-'))
        .map(|s| unquote(s.trim()).trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Removes one pair of matching surrounding quotes.
fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_recognised_keys() {
        let fm = parse(
            "\n  ---\nname: \"review\"\n# a comment\ndescription: 'Review a diff.'\n\
             disable-model-invocation: TRUE\nallowed-tools: [read, \"bash\"]\n\
             permissions:\n  bash: [\"git diff*\", 'git log*']\n  read: [\"*\"]\n\
             other: ignored\n---\n\n# Body\nDo it.\n\n",
        );
        assert_eq!(fm.name.as_deref(), Some("review"));
        assert_eq!(fm.description, "Review a diff.");
        assert!(fm.disable_model_invocation);
        assert_eq!(fm.allowed_tools, vec!["read", "bash"]);
        assert_eq!(
            fm.permissions,
            vec![
                (
                    "bash".to_string(),
                    vec!["git diff*".to_string(), "git log*".to_string()]
                ),
                ("read".to_string(), vec!["*".to_string()]),
            ]
        );
        assert_eq!(fm.body, "# Body\nDo it.");
    }

    #[test]
    fn block_list_and_underscore_keys() {
        let fm = parse(
            "---\nallowed_tools:\n  - read\n  - \"edit\"\n\ndisable_model_invocation: yes\n---\nx",
        );
        assert_eq!(fm.allowed_tools, vec!["read", "edit"]);
        assert!(!fm.disable_model_invocation, "only `true` disables");
        assert_eq!(fm.name, None);
        assert_eq!(fm.body, "x");
    }

    #[test]
    fn unclosed_front_matter_is_all_body() {
        let text = "---\nname: x\ndescription: y\nbody text";
        let fm = parse(text);
        assert_eq!(fm.name, None);
        assert_eq!(fm.description, "");
        assert_eq!(fm.body, text);
    }

    #[test]
    fn no_front_matter_and_closing_line_with_suffix() {
        assert_eq!(parse("  plain\n").body, "plain");
        // The block ends at the next line *beginning* with `---`.
        let fm = parse("---\nname: a\n---- trailing\nbody");
        assert_eq!(fm.name.as_deref(), Some("a"));
        assert_eq!(fm.body, "body");
        // `---x` on the first line does not open a block.
        assert_eq!(parse("---x\nname: a\n---\n").name, None);
        // An empty block.
        assert_eq!(parse("---\n---\nb").body, "b");
    }
}
