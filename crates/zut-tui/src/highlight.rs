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
                Some(HighlightLines::new(syntax, &a.theme))
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
                            Some(Span::styled(text.to_string(), theme.fg(fg)))
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
