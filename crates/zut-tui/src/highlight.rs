//! Syntax highlighting of code blocks with syntect (its bundled grammars
//! and themes, loaded once, on the first code block).
//! `diff`/`patch` blocks are coloured line by line without syntect.

use std::sync::OnceLock;

use ratatui::style::{Color, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme as SynTheme, ThemeSet};
use syntect::parsing::SyntaxSet;

use crate::sanitize;
use crate::syntax_theme::{ChromaStyle, SyntaxTheme};
use crate::theme::{ColorDepth, Theme};

struct Assets {
    syntaxes: SyntaxSet,
    theme: SynTheme,
}

static ASSETS: OnceLock<Option<Assets>> = OnceLock::new();

fn assets() -> Option<&'static Assets> {
    ASSETS
        .get_or_init(|| {
            let syntaxes = SyntaxSet::load_defaults_newlines();
            let mut themes = ThemeSet::load_defaults();
            let theme = themes.themes.remove("base16-ocean.dark")?;
            Some(Assets { syntaxes, theme })
        })
        .as_ref()
}

/// The syntect theme for `theme`: the default, or the default (or a
/// `syntax_base_style`) with a theme file's `syntax` rules in front. Built
/// once per distinct syntax block and kept for the process (a handful at
/// most: one per theme switched to), so highlighters can borrow it.
fn syn_theme(theme: &Theme) -> Option<&'static SynTheme> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    use syntect::highlighting::{FontStyle, ScopeSelectors, StyleModifier, ThemeItem};

    let a = assets()?;
    let Some(custom) = theme.syntax.as_deref() else {
        return Some(&a.theme);
    };
    static BUILT: OnceLock<Mutex<HashMap<SyntaxTheme, &'static SynTheme>>> = OnceLock::new();
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(t) = built.get(custom) {
        return Some(t);
    }
    let mut t = match custom.base {
        Some(name) => ThemeSet::load_defaults()
            .themes
            .remove(name)
            .unwrap_or_else(|| a.theme.clone()),
        None => a.theme.clone(),
    };
    let colour = |(r, g, b): (u8, u8, u8)| syntect::highlighting::Color { r, g, b, a: 0xff };
    let modifier = |st: &ChromaStyle| {
        let font = [
            (st.bold, FontStyle::BOLD),
            (st.italic, FontStyle::ITALIC),
            (st.underline, FontStyle::UNDERLINE),
        ]
        .iter()
        .filter(|(on, _)| on.is_some())
        .fold(None, |acc: Option<FontStyle>, (on, f)| {
            let mut fs = acc.unwrap_or_else(FontStyle::empty);
            if *on == Some(true) {
                fs |= *f;
            }
            Some(fs)
        });
        StyleModifier {
            foreground: st.fg.map(colour),
            background: st.bg.map(colour),
            font_style: font,
        }
    };
    let mut front = Vec::new();
    for (scopes, st) in &custom.rules {
        if let Ok(scope) = scopes.parse::<ScopeSelectors>() {
            front.push(ThemeItem {
                scope,
                style: modifier(st),
            });
        }
    }
    // In front: syntect keeps the first of equally specific rules.
    front.append(&mut t.scopes);
    t.scopes = front;
    if let Some(fg) = custom.text.as_ref().and_then(|s| s.fg) {
        t.settings.foreground = Some(colour(fg));
    }
    let leaked: &'static SynTheme = Box::leak(Box::new(t));
    built.insert(custom.clone(), leaked);
    Some(leaked)
}

/// Highlights one code block line by line. Keeps syntect's parse state
/// between lines, so a streamed block is highlighted as its lines arrive.
pub struct CodeHighlighter {
    kind: Kind,
}

enum Kind {
    Diff,
    Plain,
    Syntax(Box<HighlightLines<'static>>),
}

impl CodeHighlighter {
    /// A highlighter for a fence's info string (`rust`, `py`, `diff`...).
    pub fn new(lang: &str, theme: &Theme) -> Self {
        let lang = lang.split([' ', ',', '{']).next().unwrap_or("").trim();
        let kind = if lang == "diff" || lang == "patch" {
            Kind::Diff
        } else if lang.is_empty() || theme.depth == ColorDepth::None {
            Kind::Plain
        } else {
            match assets().and_then(|a| {
                let syntax = a
                    .syntaxes
                    .find_syntax_by_token(lang)
                    .or_else(|| a.syntaxes.find_syntax_by_extension(lang))?;
                Some(HighlightLines::new(syntax, syn_theme(theme)?))
            }) {
                Some(h) => Kind::Syntax(Box::new(h)),
                None => Kind::Plain,
            }
        };
        Self { kind }
    }

    /// The styled spans of one line (without its newline).
    pub fn line(&mut self, line: &str, theme: &Theme) -> Vec<Span<'static>> {
        let line = sanitize::clean_line(line);
        match &mut self.kind {
            Kind::Plain => vec![Span::styled(line, theme.code)],
            Kind::Diff => vec![Span::styled(line.clone(), diff_style(&line, theme))],
            Kind::Syntax(h) => {
                let Some(a) = assets() else {
                    return vec![Span::raw(line)];
                };
                let with_nl = format!("{line}\n");
                match h.highlight_line(&with_nl, &a.syntaxes) {
                    Ok(parts) => parts
                        .into_iter()
                        .filter_map(|(st, text)| {
                            let text = text.trim_end_matches('\n');
                            if text.is_empty() {
                                return None;
                            }
                            let fg = Color::Rgb(st.foreground.r, st.foreground.g, st.foreground.b);
                            let mut style = theme.fg(fg);
                            if theme.syntax.is_some() && theme.depth != ColorDepth::None {
                                // A theme's `bold`/`italic`/`underline` words.
                                use ratatui::style::Modifier;
                                use syntect::highlighting::FontStyle;
                                for (f, m) in [
                                    (FontStyle::BOLD, Modifier::BOLD),
                                    (FontStyle::ITALIC, Modifier::ITALIC),
                                    (FontStyle::UNDERLINE, Modifier::UNDERLINED),
                                ] {
                                    if st.font_style.contains(f) {
                                        style = style.add_modifier(m);
                                    }
                                }
                            }
                            Some(Span::styled(text.to_string(), style))
                        })
                        .collect(),
                    Err(_) => vec![Span::raw(line)],
                }
            }
        }
    }
}

/// The style of one diff line by its first character.
pub fn diff_style(line: &str, theme: &Theme) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme.dim
    } else if line.starts_with('+') {
        theme.diff_add
    } else if line.starts_with('-') {
        theme.diff_del
    } else if line.starts_with("@@") {
        theme.diff_hunk
    } else {
        theme.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax_theme::{parse_style, SyntaxTheme};

    fn colour_of(spans: &[Span<'static>], word: &str) -> Option<Style> {
        spans
            .iter()
            .find(|s| s.content.trim() == word)
            .map(|s| s.style)
    }

    #[test]
    fn a_themes_syntax_keys_colour_the_code() {
        let plain = Theme::new(ColorDepth::TrueColor);
        let mut themed = plain.clone();
        themed.syntax = Some(std::sync::Arc::new(SyntaxTheme {
            base: None,
            rules: vec![
                ("keyword", parse_style("#ff0000 bold").unwrap()),
                ("comment", parse_style("#00ff00").unwrap()),
            ],
            text: None,
        }));
        let line = "if x:  # note";
        let before = CodeHighlighter::new("python", &plain).line(line, &plain);
        let after = CodeHighlighter::new("python", &themed).line(line, &themed);
        let kw = colour_of(&after, "if").unwrap();
        assert_eq!(kw.fg, Some(Color::Rgb(0xff, 0, 0)));
        assert!(kw.add_modifier.contains(ratatui::style::Modifier::BOLD));
        assert_ne!(colour_of(&before, "if").and_then(|s| s.fg), kw.fg);
        let comment = after.iter().find(|s| s.content.contains("note")).unwrap();
        assert_eq!(comment.style.fg, Some(Color::Rgb(0, 0xff, 0)));
        // 256 colours: quantised like the rest of the theme.
        let mut q = themed.clone();
        q.depth = ColorDepth::Ansi256;
        let spans = CodeHighlighter::new("python", &q).line(line, &q);
        assert!(matches!(
            colour_of(&spans, "if").and_then(|s| s.fg),
            Some(Color::Indexed(_))
        ));
    }
}
