//! Themes (sessions-themes-skills.md §2): the built-in `auto`, `dark`,
//! `light` and `inherited` choices, `theme.json` files from
//! `$ZUT_HOME/themes/` and from loaded extensions, and `/theme`.
//!
//! A theme file overrides colours of the detected built-in palette: the
//! top-level keys, then `colors`, then `colors.dark` on a dark terminal
//! (`colors.light` when there is no dark block) or the reverse on a light
//! one. An invalid value skips only its key and is reported by name
//! (the Go original abandons the rest of the block); an unreadable or
//! invalid file is reported with its path and changes nothing. RGB values
//! are quantised to the terminal's depth by [`crate::theme::quantize`].

use std::path::{Path, PathBuf};

use ratatui::style::{Color, Modifier, Style};
use serde_json::Value;

use crate::app::{App, Effect};
use crate::theme::{quantize, ColorDepth, Theme};

/// The colours a theme can set (`None`: the built-in palette's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Palette {
    /// `fg`: plain text.
    pub fg: Option<Color>,
    /// `muted`: hints, footers, info notes.
    pub muted: Option<Color>,
    /// `accent`: prompt bar, headings, links, `[ext]` prefixes.
    pub accent: Option<Color>,
    /// `user`: the user's messages.
    pub user: Option<Color>,
    /// `tool`: tool names, success, added lines.
    pub tool: Option<Color>,
    /// `tool_out`: tool box frames.
    pub tool_out: Option<Color>,
    /// `error`.
    pub error: Option<Color>,
    /// `warning`.
    pub warning: Option<Color>,
    /// `selection_fg`.
    pub selection_fg: Option<Color>,
    /// `selection_bg`.
    pub selection_bg: Option<Color>,
    /// `user_bubble_fg`: the user's messages (over `user`).
    pub user_bubble_fg: Option<Color>,
    /// `user_bubble_bg`: behind the user's messages.
    pub user_bubble_bg: Option<Color>,
    /// `spinner`: the working spinner (else `accent`).
    pub spinner: Option<Color>,
    /// `thinking_max` (`thinkingMax`): the reasoning level at its highest.
    pub thinking_max: Option<Color>,
    /// `background`: behind the floating panel and the popups (the inline
    /// TUI never paints the terminal's own background).
    pub background: Option<Color>,
}

/// The built-in dark palette.
pub fn dark() -> Palette {
    Palette {
        fg: None,
        muted: None,
        accent: Some(Color::Rgb(0x5f, 0xaf, 0xff)),
        user: Some(Color::Rgb(0xd7, 0xd7, 0xff)),
        tool: Some(Color::Rgb(0x87, 0xd7, 0x87)),
        tool_out: Some(Color::Rgb(0x6c, 0x6c, 0x6c)),
        error: Some(Color::Rgb(0xff, 0x5f, 0x5f)),
        warning: Some(Color::Rgb(0xff, 0xd7, 0x5f)),
        selection_fg: Some(Color::Rgb(0x5f, 0xaf, 0xff)),
        selection_bg: None,
        thinking_max: Some(Color::Rgb(0xff, 0x87, 0xd7)),
        ..Palette::default()
    }
}

/// The built-in light palette (darker hues readable on white).
pub fn light() -> Palette {
    Palette {
        fg: None,
        muted: None,
        accent: Some(Color::Rgb(0x00, 0x5f, 0xaf)),
        user: Some(Color::Rgb(0x5f, 0x00, 0x87)),
        tool: Some(Color::Rgb(0x00, 0x87, 0x00)),
        tool_out: Some(Color::Rgb(0x9e, 0x9e, 0x9e)),
        error: Some(Color::Rgb(0xaf, 0x00, 0x00)),
        warning: Some(Color::Rgb(0x87, 0x5f, 0x00)),
        selection_fg: Some(Color::Rgb(0x00, 0x5f, 0xaf)),
        selection_bg: None,
        thinking_max: Some(Color::Rgb(0xaf, 0x00, 0x87)),
        ..Palette::default()
    }
}

/// Whether the terminal has a light background, from `COLORFGBG`
/// (`fg;bg`, background 7 or 15 = light); dark when unknown.
pub fn light_terminal(env: &dyn Fn(&str) -> Option<String>) -> bool {
    env("COLORFGBG")
        .and_then(|v| v.rsplit(';').next().and_then(|b| b.parse::<u8>().ok()))
        .is_some_and(|bg| bg == 7 || bg == 15)
}

/// The styles for `palette` at `depth`.
pub fn build(depth: ColorDepth, palette: &Palette) -> Theme {
    let mut t = Theme::new(depth);
    if depth == ColorDepth::None {
        return t;
    }
    let fg = |c: Option<Color>| match c {
        Some(c) => Style::default().fg(quantize(c, depth)),
        None => Style::default(),
    };
    t.text = fg(palette.fg);
    t.dim = match palette.muted {
        Some(_) => fg(palette.muted),
        None => Style::default().add_modifier(Modifier::DIM),
    };
    t.accent = fg(palette.accent);
    t.heading = fg(palette.accent).add_modifier(Modifier::BOLD);
    t.link = fg(palette.accent).add_modifier(Modifier::UNDERLINED);
    t.user = fg(palette.user).add_modifier(Modifier::BOLD);
    t.tool_name = fg(palette.tool).add_modifier(Modifier::BOLD);
    t.success = fg(palette.tool);
    t.diff_add = fg(palette.tool);
    t.border = fg(palette.tool_out);
    t.error = fg(palette.error);
    t.diff_del = fg(palette.error);
    t.warn = fg(palette.warning);
    t.selected = fg(palette.selection_fg).add_modifier(Modifier::BOLD);
    if let Some(bg) = palette.selection_bg {
        t.selected = t.selected.bg(quantize(bg, depth));
    }
    if palette.user_bubble_fg.is_some() {
        t.user = fg(palette.user_bubble_fg).add_modifier(Modifier::BOLD);
    }
    if let Some(bg) = palette.user_bubble_bg {
        t.user = t.user.bg(quantize(bg, depth));
    }
    t.spinner = fg(palette.spinner.or(palette.accent));
    t.thinking_max = fg(palette.thinking_max).add_modifier(Modifier::BOLD);
    if let Some(bg) = palette.background {
        t.panel_bg = Some(quantize(bg, depth));
    }
    t
}

/// `inherited`: the terminal's own colours, modifiers only.
pub fn inherited(depth: ColorDepth) -> Theme {
    let mut t = Theme::new(ColorDepth::None);
    t.depth = depth;
    t
}

/// A colour value of a theme file (§2.2 forms), or why not.
pub fn parse_color(v: &Value) -> Result<Color, String> {
    let index = |v: Option<&Value>| -> Result<u8, String> {
        v.and_then(Value::as_u64)
            .and_then(|n| u8::try_from(n).ok())
            .ok_or_else(|| "index must be 0..255".to_string())
    };
    match v {
        Value::Number(_) => Ok(Color::Indexed(index(Some(v))?)),
        Value::String(s) => {
            let hex = s
                .strip_prefix('#')
                .filter(|h| h.len() == 6 && h.chars().all(|c| c.is_ascii_hexdigit()))
                .ok_or_else(|| format!("{s:?} is not #rrggbb"))?;
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap_or(0);
            Ok(Color::Rgb(byte(0), byte(2), byte(4)))
        }
        Value::Object(m) => {
            let mode = m.get("mode").and_then(Value::as_str).unwrap_or("");
            match mode {
                "" | "256" | "color256" | "xterm256" => Ok(Color::Indexed(index(m.get("index"))?)),
                "ansi" => ansi(index(m.get("index"))?),
                "rgb" | "truecolor" => Ok(Color::Rgb(
                    index(m.get("r"))?,
                    index(m.get("g"))?,
                    index(m.get("b"))?,
                )),
                other => Err(format!("unknown mode {other:?}")),
            }
        }
        other => Err(format!("{other} is not a colour")),
    }
}

/// An SGR foreground code (30–37, 90–97) as a colour.
fn ansi(sgr: u8) -> Result<Color, String> {
    const BASE: [Color; 8] = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
    ];
    const BRIGHT: [Color; 8] = [
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    match sgr {
        30..=37 => Ok(BASE[usize::from(sgr - 30)]),
        90..=97 => Ok(BRIGHT[usize::from(sgr - 90)]),
        0..=7 => Ok(BASE[usize::from(sgr)]),
        8..=15 => Ok(BRIGHT[usize::from(sgr - 8)]),
        n => Err(format!("ansi index {n} is not 30-37 or 90-97")),
    }
}

/// Applies the override keys of one block; returns the problems.
fn apply_block(p: &mut Palette, block: &serde_json::Map<String, Value>, at: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for (key, v) in block {
        let slot = match key.as_str() {
            "fg" => &mut p.fg,
            "muted" => &mut p.muted,
            "accent" => &mut p.accent,
            "user" => &mut p.user,
            "tool" => &mut p.tool,
            "tool_out" => &mut p.tool_out,
            "error" => &mut p.error,
            "warning" => &mut p.warning,
            "selection_fg" => &mut p.selection_fg,
            "selection_bg" => &mut p.selection_bg,
            "user_bubble_fg" => &mut p.user_bubble_fg,
            "user_bubble_bg" => &mut p.user_bubble_bg,
            "spinner" => &mut p.spinner,
            "thinking_max" | "thinkingMax" => &mut p.thinking_max,
            "background" => &mut p.background,
            // Other keys (`spinner_frames`, `spinner_interval_ms`: see
            // [`ThemeFile::spinner`]; `syntax`, `syntax_base_style`: see
            // [`ThemeFile::syntax`]) and the metadata.
            _ => continue,
        };
        match parse_color(v) {
            Ok(c) => *slot = Some(c),
            Err(e) => problems.push(format!("{at}{key}: {e} (key ignored)")),
        }
    }
    problems
}

/// A parsed theme file.
#[derive(Debug, Clone)]
pub struct ThemeFile {
    /// `name`, else the file stem.
    pub name: String,
    /// `description`.
    pub description: String,
    json: serde_json::Map<String, Value>,
}

impl ThemeFile {
    /// Reads and parses `path`; the error names the file (and line for
    /// JSON errors).
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Self::parse(&text, path)
    }

    /// Parses theme JSON read from `path`.
    pub fn parse(text: &str, path: &Path) -> Result<Self, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| {
            format!(
                "{}:{}:{}: invalid JSON: {e}",
                path.display(),
                e.line(),
                e.column()
            )
        })?;
        let Value::Object(json) = v else {
            return Err(format!("{}: a theme is a JSON object", path.display()));
        };
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text_of = |k: &str| json.get(k).and_then(Value::as_str).map(str::to_string);
        Ok(Self {
            name: text_of("name")
                .filter(|n| !n.trim().is_empty())
                .unwrap_or(stem),
            description: text_of("description").unwrap_or_default(),
            json,
        })
    }

    /// `spinner_frames` and `spinner_interval_ms` (the last block that
    /// sets them wins, in the palette's order); `None` for the built-in
    /// spinner. Frames must be a non-empty array of strings; a missing or
    /// invalid interval is 80 ms (§2.2).
    pub fn spinner(&self, light: bool) -> Option<(Vec<String>, std::time::Duration)> {
        let blocks: Vec<_> = self.blocks(light).into_iter().map(|(_, b)| b).collect();
        let mut frames = None;
        let mut interval = None;
        for b in blocks {
            if let Some(Value::Array(a)) = b.get("spinner_frames") {
                let f: Vec<String> = a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|f| crate::sanitize::clean(f).into_owned())
                    .filter(|s| !s.is_empty())
                    .collect();
                if !f.is_empty() && f.len() == a.len() {
                    frames = Some(f);
                }
            }
            if let Some(ms) = b.get("spinner_interval_ms") {
                interval = Some(
                    ms.as_u64()
                        .filter(|ms| (1..=10_000).contains(ms))
                        .unwrap_or(80),
                );
            }
        }
        let frames = frames?;
        Some((
            frames,
            std::time::Duration::from_millis(interval.unwrap_or(80)),
        ))
    }

    /// The palette on a `light` or dark terminal, with the ignored keys.
    pub fn palette(&self, light: bool) -> (Palette, Vec<String>) {
        let mut p = if light { self::light() } else { dark() };
        let mut problems = Vec::new();
        for (at, block) in self.blocks(light) {
            problems.extend(apply_block(&mut p, block, &at));
        }
        (p, problems)
    }

    /// The `syntax` keys and `syntax_base_style` on a `light` or dark
    /// terminal (`None` when the theme sets none), with the ignored keys.
    pub fn syntax(&self, light: bool) -> (Option<crate::syntax_theme::SyntaxTheme>, Vec<String>) {
        let mut t = crate::syntax_theme::SyntaxTheme::default();
        let mut problems = Vec::new();
        for (at, block) in self.blocks(light) {
            problems.extend(crate::syntax_theme::apply_block(&mut t, block, &at));
        }
        ((!t.is_empty()).then_some(t), problems)
    }

    /// The blocks that apply, in order, with the prefix naming their keys:
    /// the top level, `colors`, then the mode block (§2.2).
    fn blocks(&self, light: bool) -> Vec<(String, &serde_json::Map<String, Value>)> {
        let mut out = vec![(String::new(), &self.json)];
        if let Some(Value::Object(colors)) = self.json.get("colors") {
            out.push(("colors.".to_string(), colors));
            let (first, second) = if light {
                ("light", "dark")
            } else {
                ("dark", "light")
            };
            let mode = colors
                .get(first)
                .map(|b| (first, b))
                .or_else(|| colors.get(second).map(|b| (second, b)));
            if let Some((name, Value::Object(b))) = mode {
                out.push((format!("colors.{name}."), b));
            }
        }
        out
    }
}

/// One entry of `/theme`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// What `/theme <value>` and config `theme` take (a built-in name, a
    /// user theme's file stem, an extension theme's absolute path).
    pub value: String,
    /// Shown name.
    pub label: String,
    /// `from extension <name> — <description>`, or the problem.
    pub description: String,
    /// The file, for theme files.
    pub path: Option<PathBuf>,
}

/// Every theme to choose from.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Built-ins, then user themes (by stem), then extension themes.
    pub choices: Vec<Choice>,
    /// The value in use.
    pub current: String,
    /// `config.json`, where `/theme` stores the choice.
    pub config_path: Option<PathBuf>,
    /// The terminal has a light background.
    pub light: bool,
}

/// Built-in theme names.
const BUILTIN: [(&str, &str); 4] = [
    ("auto", "dark or light, from the terminal (COLORFGBG)"),
    ("dark", "the default colours for dark terminals"),
    ("light", "colours for light terminals"),
    ("inherited", "the terminal's own colours only"),
];

impl Catalog {
    /// Built-ins, `<user_dir>/*.json` (case-insensitive extension, sorted
    /// by stem; unreadable or invalid files skipped) and `extension`
    /// themes given as (extension name, file), sorted by extension.
    pub fn discover(user_dir: Option<&Path>, extension: &[(String, PathBuf)]) -> Self {
        let mut choices: Vec<Choice> = BUILTIN
            .iter()
            .map(|(v, d)| Choice {
                value: (*v).to_string(),
                label: (*v).to_string(),
                description: (*d).to_string(),
                path: None,
            })
            .collect();
        let mut user: Vec<PathBuf> = user_dir
            .and_then(|d| std::fs::read_dir(d).ok())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("json"))
                    && p.is_file()
            })
            .collect();
        user.sort();
        for p in user {
            if let Ok(t) = ThemeFile::load(&p) {
                let stem = p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let (_, problems) = t.palette(false);
                choices.push(Choice {
                    value: stem,
                    label: t.name.clone(),
                    description: describe(&t.description, &problems),
                    path: Some(p),
                });
            }
        }
        let mut ext: Vec<&(String, PathBuf)> = extension.iter().collect();
        ext.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, p) in ext {
            if let Ok(t) = ThemeFile::load(p) {
                let (_, problems) = t.palette(false);
                let value = p.display().to_string();
                let mut description = format!("from extension {name}");
                let more = describe(&t.description, &problems);
                if !more.is_empty() {
                    description.push_str(" — ");
                    description.push_str(&more);
                }
                choices.push(Choice {
                    label: if t.name.is_empty() {
                        value.clone()
                    } else {
                        t.name
                    },
                    value,
                    description,
                    path: Some(p.clone()),
                });
            }
        }
        Self {
            choices,
            current: "auto".into(),
            config_path: None,
            light: false,
        }
    }

    /// The choice for a configured `value` (aliases of the built-ins
    /// included); `None` when it no longer exists.
    pub fn find(&self, value: &str) -> Option<&Choice> {
        let v = match value.trim() {
            "" | "default" | "system" => "auto",
            "terminal" | "terminal-inherited" => "inherited",
            v => v,
        };
        self.choices.iter().find(|c| c.value == v).or_else(|| {
            self.choices
                .iter()
                .find(|c| c.label == v && c.path.is_some())
        })
    }

    /// The styles for `value` at `depth` on a `light` or dark terminal,
    /// with what is wrong with it (a missing theme falls back to `auto`).
    pub fn theme(&self, value: &str, depth: ColorDepth, light: bool) -> (Theme, Vec<String>) {
        let Some(choice) = self.find(value) else {
            return (
                build(depth, &if light { self::light() } else { dark() }),
                vec![format!("theme {value:?} not found; using auto")],
            );
        };
        match (choice.value.as_str(), &choice.path) {
            ("dark", None) => (build(depth, &dark()), Vec::new()),
            ("light", None) => (build(depth, &self::light()), Vec::new()),
            ("inherited", None) => (inherited(depth), Vec::new()),
            (_, None) => (
                build(depth, &if light { self::light() } else { dark() }),
                Vec::new(),
            ),
            (_, Some(p)) => match ThemeFile::load(p) {
                Ok(t) => {
                    let (palette, problems) = t.palette(light);
                    let mut problems = problems;
                    let mut theme = build(depth, &palette);
                    if let Some((frames, interval)) = t.spinner(light) {
                        theme.spinner_frames = frames;
                        theme.spinner_interval = interval;
                    }
                    let (syntax, syntax_problems) = t.syntax(light);
                    theme.syntax = syntax.map(std::sync::Arc::new);
                    problems.extend(syntax_problems);
                    (theme, problems)
                }
                Err(e) => (
                    build(depth, &if light { self::light() } else { dark() }),
                    vec![e],
                ),
            },
        }
    }
}

fn describe(description: &str, problems: &[String]) -> String {
    let mut out = description.to_string();
    if !problems.is_empty() {
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&problems.join("; "));
    }
    out
}

/// `/theme`: without an argument, the choices; with one, switch to it and
/// store it in `config.json`.
pub fn command(app: &mut App, args: &str) -> Vec<Effect> {
    let now = std::time::Instant::now();
    let arg = args.trim();
    if arg.is_empty() {
        let mut text = String::from("themes (/theme <name> switches and saves):");
        for c in &app.themes.choices {
            let mark = if Some(c) == app.themes.find(&app.themes.current) {
                "●"
            } else {
                " "
            };
            text.push_str(&format!("\n{mark} {}", c.value));
            if c.label != c.value {
                text.push_str(&format!(" ({})", c.label));
            }
            if !c.description.is_empty() {
                text.push_str(&format!(" — {}", c.description));
            }
        }
        app.transcript.notice(&text, app.theme.text);
        return Vec::new();
    }
    let Some(choice) = app.themes.find(arg).cloned() else {
        app.push_status(
            "error",
            format!("unknown theme {arg:?}; /theme lists them"),
            now,
        );
        return Vec::new();
    };
    let (theme, problems) = app
        .themes
        .theme(&choice.value, app.theme.depth, app.themes.light);
    app.theme = theme;
    app.themes.current = choice.value.clone();
    for p in problems {
        app.push_note("warn", format!("theme: {p}"));
    }
    let saved = match &app.themes.config_path {
        Some(cfg) => match save(cfg, &choice.value) {
            Ok(()) => " (saved)".to_string(),
            Err(e) => {
                app.push_note("error", format!("theme not saved: {e}"));
                String::new()
            }
        },
        None => String::new(),
    };
    app.push_status("ok", format!("✓ theme: {}{saved}", choice.label), now);
    vec![Effect::Redraw]
}

/// Sets up `app`'s themes at start: discovery of user themes, the
/// configured one applied (problems shown as notes; a theme that no
/// longer exists falls back to `auto`).
pub fn start(app: &mut App, configured: &str, user_dir: Option<&Path>, config: Option<PathBuf>) {
    let light = light_terminal(&|k| std::env::var(k).ok());
    app.themes = Catalog::discover(user_dir, &[]);
    app.themes.light = light;
    app.themes.config_path = config;
    apply_configured(app, configured);
}

/// Extension themes arrived (after a (re)load): rediscovered, and the
/// configured theme applied again when it is one of them.
pub fn extension_themes(app: &mut App, user_dir: Option<&Path>, files: &[(String, PathBuf)]) {
    let (config, light, current) = (
        app.themes.config_path.take(),
        app.themes.light,
        app.themes.current.clone(),
    );
    app.themes = Catalog::discover(user_dir, files);
    app.themes.config_path = config;
    app.themes.light = light;
    apply_configured(app, &current);
}

fn apply_configured(app: &mut App, value: &str) {
    let value = if value.trim().is_empty() {
        "auto"
    } else {
        value
    };
    // An extension theme is only known once extensions are loaded: keep
    // the value, show auto until then.
    let (theme, problems) = app.themes.theme(value, app.theme.depth, app.themes.light);
    app.theme = theme;
    app.themes.current = value.to_string();
    let pending = Path::new(value).is_absolute() && app.themes.find(value).is_none();
    if !pending {
        for p in problems {
            app.push_note("warn", format!("theme: {p}"));
        }
    }
}

/// Writes `theme: value` into `config.json` (other keys kept; created when
/// missing; see [`crate::config_write`]).
pub fn save(config: &Path, value: &str) -> Result<(), String> {
    crate::config_write::set(config, &[("theme", Value::String(value.to_string()))])
}

#[cfg(test)]
mod tests;
