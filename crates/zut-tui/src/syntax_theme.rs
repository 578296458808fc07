//! A theme's `syntax` block and `syntax_base_style`
//! (sessions-themes-skills.md §2.2) applied to syntect's highlighting.
//!
//! Each `syntax` key (Chroma's token names: `keyword`, `literal_string`…)
//! maps to TextMate scope selectors; its Chroma style string (`"#81a1c1
//! bold"`, `"bg:#202020 italic"`, `"nobold"`) becomes a rule placed before
//! the base theme's own, so it wins over the base theme's rules for the same
//! scope (more specific base rules, such as `keyword.operator` under a
//! `keyword` override, still apply: override those keys too). `text` sets the
//! plain foreground. `syntax_base_style` picks the closest of syntect's
//! bundled themes for a few well-known Chroma style names.

use serde_json::Value;

/// One Chroma style string, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ChromaStyle {
    /// Foreground.
    pub fg: Option<(u8, u8, u8)>,
    /// Background (`bg:#rrggbb`).
    pub bg: Option<(u8, u8, u8)>,
    /// `bold` / `nobold`.
    pub bold: Option<bool>,
    /// `italic` / `noitalic`.
    pub italic: Option<bool>,
    /// `underline` / `nounderline`.
    pub underline: Option<bool>,
}

/// The syntax part of a theme.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct SyntaxTheme {
    /// A bundled syntect theme chosen by `syntax_base_style`.
    pub base: Option<&'static str>,
    /// (scope selectors, style), in the order of [`KEYS`].
    pub rules: Vec<(&'static str, ChromaStyle)>,
    /// `text`: the plain foreground.
    pub text: Option<ChromaStyle>,
}

/// The `syntax` keys and the scopes each colours.
pub const KEYS: [(&str, &str); 17] = [
    ("keyword", "keyword"),
    ("keyword_constant", "constant.language"),
    ("keyword_declaration", "storage, keyword.declaration"),
    (
        "keyword_namespace",
        "keyword.control.import, keyword.other.import, keyword.control.module, keyword.other.use",
    ),
    ("keyword_reserved", "keyword.other"),
    ("keyword_type", "storage.type, support.type"),
    (
        "name_builtin",
        "support.function.builtin, support.type.builtin, variable.language, support.function",
    ),
    ("name_function", "entity.name.function"),
    (
        "name_class",
        "entity.name.class, entity.name.type, entity.name.struct",
    ),
    (
        "name_decorator",
        "meta.decorator, entity.name.function.decorator, meta.annotation, storage.type.annotation",
    ),
    ("literal_string", "string"),
    ("literal_string_escape", "constant.character.escape"),
    ("literal_number", "constant.numeric"),
    ("comment", "comment"),
    (
        "comment_preproc",
        "meta.preprocessor, keyword.other.preprocessor, keyword.control.directive",
    ),
    ("operator", "keyword.operator"),
    ("punctuation", "punctuation"),
];

/// Chroma style names → syntect's bundled themes.
fn base_theme(name: &str) -> Option<&'static str> {
    let n = name.trim().to_ascii_lowercase();
    Some(match n.as_str() {
        "github" | "github-light" | "xcode" | "friendly" | "tango" | "vs" => "InspiredGitHub",
        "solarized-dark" | "solarized-dark256" => "Solarized (dark)",
        "solarized-light" => "Solarized (light)",
        "base16-snazzy" | "onedark" | "nord" | "nordic" | "dracula" | "github-dark" => {
            "base16-ocean.dark"
        }
        "monokai" | "monokailight" | "gruvbox" | "catppuccin-mocha" | "rose-pine" => {
            "base16-mocha.dark"
        }
        "paraiso-dark" | "native" | "fruity" | "vim" => "base16-eighties.dark",
        "paraiso-light" | "catppuccin-latte" | "gruvbox-light" | "rose-pine-dawn" => {
            "base16-ocean.light"
        }
        _ => return None,
    })
}

fn hex(s: &str) -> Option<(u8, u8, u8)> {
    let h = s.strip_prefix('#')?;
    let full: String = match h.len() {
        3 => h.chars().flat_map(|c| [c, c]).collect(),
        6 => h.to_string(),
        _ => return None,
    };
    let v = u32::from_str_radix(&full, 16).ok()?;
    Some(((v >> 16) as u8, (v >> 8) as u8, v as u8))
}

/// Parses a Chroma style string; unknown words are errors.
pub fn parse_style(s: &str) -> Result<ChromaStyle, String> {
    let mut st = ChromaStyle::default();
    for word in s.split_whitespace() {
        match word {
            "bold" => st.bold = Some(true),
            "nobold" => st.bold = Some(false),
            "italic" => st.italic = Some(true),
            "noitalic" => st.italic = Some(false),
            "underline" => st.underline = Some(true),
            "nounderline" => st.underline = Some(false),
            // Chroma's inheritance and border words change nothing here.
            "noinherit" | "inherit" => {}
            w if w.starts_with("bg:") => {
                st.bg = Some(hex(&w[3..]).ok_or_else(|| format!("bad colour {w:?}"))?)
            }
            w if w.starts_with("border:") => {}
            w => st.fg = Some(hex(w).ok_or_else(|| format!("unknown style word {w:?}"))?),
        }
    }
    Ok(st)
}

/// Applies `syntax_base_style` and a `syntax` object from one block of a
/// theme file onto `t`; returns the problems (`at` prefixes key names).
pub fn apply_block(
    t: &mut SyntaxTheme,
    block: &serde_json::Map<String, Value>,
    at: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(v) = block.get("syntax_base_style") {
        match v.as_str().and_then(base_theme) {
            Some(b) => t.base = Some(b),
            None => problems.push(format!(
                "{at}syntax_base_style: {v} is not a style zut knows (default kept)"
            )),
        }
    }
    let Some(syntax) = block.get("syntax") else {
        return problems;
    };
    let Value::Object(syntax) = syntax else {
        problems.push(format!("{at}syntax: not an object (ignored)"));
        return problems;
    };
    for (key, v) in syntax {
        let style = match v.as_str().map(parse_style) {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                problems.push(format!("{at}syntax.{key}: {e} (key ignored)"));
                continue;
            }
            None => {
                problems.push(format!("{at}syntax.{key}: not a string (key ignored)"));
                continue;
            }
        };
        if key == "text" {
            t.text = Some(style);
        } else if let Some((_, scopes)) = KEYS.iter().find(|(k, _)| k == key) {
            t.rules.retain(|(s, _)| s != scopes);
            t.rules.push((scopes, style));
        } else {
            problems.push(format!("{at}syntax.{key}: unknown key (ignored)"));
        }
    }
    problems
}

impl SyntaxTheme {
    /// Whether nothing is set (the default highlighting).
    pub fn is_empty(&self) -> bool {
        self.base.is_none() && self.rules.is_empty() && self.text.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chroma_style_strings() {
        let s = parse_style("#81a1c1 bold bg:#202020 noitalic").unwrap();
        assert_eq!(s.fg, Some((0x81, 0xa1, 0xc1)));
        assert_eq!(s.bg, Some((0x20, 0x20, 0x20)));
        assert_eq!(s.bold, Some(true));
        assert_eq!(s.italic, Some(false));
        assert_eq!(parse_style("#abc").unwrap().fg, Some((0xaa, 0xbb, 0xcc)));
        assert!(parse_style("red").is_err());
        assert!(parse_style("bg:nope").is_err());
    }

    #[test]
    fn blocks_report_bad_keys_and_keep_the_rest() {
        let block = serde_json::json!({
            "syntax_base_style": "github",
            "syntax": {"keyword": "#ff0000 bold", "comment": "green", "nope": "#000000",
                       "text": "#eeeeee"}
        });
        let mut t = SyntaxTheme::default();
        let problems = apply_block(&mut t, block.as_object().unwrap(), "colors.");
        assert_eq!(t.base, Some("InspiredGitHub"));
        assert_eq!(t.rules.len(), 1);
        assert_eq!(t.rules[0].0, "keyword");
        assert_eq!(t.text.as_ref().and_then(|s| s.fg), Some((0xee, 0xee, 0xee)));
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems
            .iter()
            .any(|p| p.starts_with("colors.syntax.comment:")));
        assert!(problems
            .iter()
            .any(|p| p.starts_with("colors.syntax.nope:")));
    }
}
