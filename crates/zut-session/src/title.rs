//! Session titles (sessions-themes-skills.md §1.3).

/// Longest title kept from a first prompt, in characters.
pub const MAX_TITLE_CHARS: usize = 80;

/// Normalises a title: control characters removed, surrounding quotes and
/// `title:` / `subject:` prefixes stripped, whitespace collapsed.
pub fn normalize_title(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut t = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    loop {
        let before = t.len();
        for prefix in ["title:", "subject:"] {
            if t.get(..prefix.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(prefix))
            {
                t = t[prefix.len()..].trim_start().to_string();
            }
        }
        t = strip_quotes(&t);
        if t.len() == before {
            return t;
        }
    }
}

/// Removes one pair of matching surrounding quotes (`"…"`, `'…'`,
/// `` `…` ``, `“…”`, `‘…’`).
fn strip_quotes(t: &str) -> String {
    for (open, close) in [('"', '"'), ('\'', '\''), ('`', '`'), ('“', '”'), ('‘', '’')] {
        if t.chars().count() >= 2 && t.starts_with(open) && t.ends_with(close) {
            let inner = &t[open.len_utf8()..t.len() - close.len_utf8()];
            return inner.trim().to_string();
        }
    }
    t.to_string()
}

/// The title of a new session from its first prompt: normalised and cut
/// to [`MAX_TITLE_CHARS`] characters (with `…`).
pub fn title_from_prompt(prompt: &str) -> String {
    let t = normalize_title(prompt);
    if t.chars().count() <= MAX_TITLE_CHARS {
        return t;
    }
    let cut: String = t.chars().take(MAX_TITLE_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_titles() {
        assert_eq!(
            normalize_title("  \"Title: Fix\tthe\nbug\"  "),
            "Fix the bug"
        );
        assert_eq!(normalize_title("subject: 'hello'"), "hello");
        assert_eq!(normalize_title("a\u{7}b"), "a b");
        assert_eq!(normalize_title("Fix the `parser`"), "Fix the `parser`");
        assert_eq!(normalize_title("“Smart”"), "Smart");
        assert_eq!(normalize_title(""), "");
        let long = "word ".repeat(40);
        let t = title_from_prompt(&long);
        assert!(t.chars().count() <= MAX_TITLE_CHARS);
        assert!(t.ends_with('…'));
    }
}
