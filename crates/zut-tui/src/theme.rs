//! Colours and text styles of the TUI. Every style the widgets use comes
//! from here, so `NO_COLOR` and 256-colour terminals are handled in one
//! place.

use ratatui::style::{Color, Modifier, Style};

/// How many colours the terminal shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorDepth {
    /// `NO_COLOR` is set: modifiers (bold, dim, italic...) only.
    None,
    /// 16 colours (`TERM=*-16color`, `linux`, `vt100`...).
    Ansi16,
    /// xterm 256 colours: RGB values are quantised.
    Ansi256,
    /// 24-bit colour (`COLORTERM=truecolor|24bit`).
    TrueColor,
}

impl ColorDepth {
    /// Detects the depth from `NO_COLOR`, `COLORTERM` and `TERM`.
    pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Self {
        if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            return Self::None;
        }
        let colorterm = env("COLORTERM").unwrap_or_default().to_ascii_lowercase();
        if colorterm == "truecolor" || colorterm == "24bit" {
            return Self::TrueColor;
        }
        let term = env("TERM").unwrap_or_default();
        if term.contains("256") || term.starts_with("tmux") || term.starts_with("screen") {
            Self::Ansi256
        } else if term.is_empty() || term == "dumb" || term == "linux" || term.starts_with("vt") {
            Self::Ansi16
        } else {
            Self::Ansi256
        }
    }
}

/// The styles of every visible element.
#[derive(Debug, Clone)]
pub struct Theme {
    /// Colour depth the styles were built for.
    pub depth: ColorDepth,
    /// Plain text.
    pub text: Style,
    /// Secondary text (hints, cwd, timestamps).
    pub dim: Style,
    /// Accent (prompt bar, spinner, selection).
    pub accent: Style,
    /// The user's own messages.
    pub user: Style,
    /// Errors.
    pub error: Style,
    /// Warnings.
    pub warn: Style,
    /// Success.
    pub success: Style,
    /// Headings.
    pub heading: Style,
    /// Inline code.
    pub code: Style,
    /// Links.
    pub link: Style,
    /// Block quotes.
    pub quote: Style,
    /// Tool box frame.
    pub border: Style,
    /// Tool names.
    pub tool_name: Style,
    /// Added diff lines.
    pub diff_add: Style,
    /// Removed diff lines.
    pub diff_del: Style,
    /// Diff hunk headers.
    pub diff_hunk: Style,
    /// Selected popup row.
    pub selected: Style,
    /// The working spinner.
    pub spinner: Style,
    /// Spinner frames (a theme's `spinner_frames`).
    pub spinner_frames: Vec<String>,
    /// Time per spinner frame (a theme's `spinner_interval_ms`).
    pub spinner_interval: std::time::Duration,
    /// The reasoning level at its highest (`high`, `max`, `xhigh`).
    pub thinking_max: Style,
    /// A theme's `background`, behind the floating panel and popups.
    pub panel_bg: Option<Color>,
    /// A theme's `syntax` block and `syntax_base_style` (`None`: the
    /// default highlighting).
    pub syntax: Option<std::sync::Arc<crate::syntax_theme::SyntaxTheme>>,
}

/// The built-in spinner frames.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// The built-in time per spinner frame.
pub const SPIN_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

impl Theme {
    /// The default dark theme at `depth`.
    pub fn new(depth: ColorDepth) -> Self {
        let c = |color: Color| -> Style {
            match depth {
                ColorDepth::None => Style::default(),
                _ => Style::default().fg(quantize(color, depth)),
            }
        };
        let none = depth == ColorDepth::None;
        Self {
            depth,
            text: Style::default(),
            dim: Style::default().add_modifier(Modifier::DIM),
            accent: c(Color::Rgb(0x5f, 0xaf, 0xff)),
            user: c(Color::Rgb(0xd7, 0xd7, 0xff)).add_modifier(Modifier::BOLD),
            error: c(Color::Rgb(0xff, 0x5f, 0x5f)),
            warn: c(Color::Rgb(0xff, 0xd7, 0x5f)),
            success: c(Color::Rgb(0x87, 0xd7, 0x87)),
            heading: c(Color::Rgb(0x5f, 0xd7, 0xff)).add_modifier(Modifier::BOLD),
            code: c(Color::Rgb(0xff, 0xaf, 0x87)),
            link: c(Color::Rgb(0x5f, 0xaf, 0xff)).add_modifier(Modifier::UNDERLINED),
            quote: c(Color::Rgb(0x9e, 0x9e, 0x9e)).add_modifier(Modifier::ITALIC),
            border: if none {
                Style::default().add_modifier(Modifier::DIM)
            } else {
                c(Color::Rgb(0x6c, 0x6c, 0x6c))
            },
            tool_name: c(Color::Rgb(0xaf, 0x87, 0xff)).add_modifier(Modifier::BOLD),
            diff_add: c(Color::Rgb(0x87, 0xd7, 0x87)),
            diff_del: c(Color::Rgb(0xff, 0x87, 0x87)),
            diff_hunk: c(Color::Rgb(0x5f, 0xd7, 0xd7)),
            selected: if none {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                c(Color::Rgb(0x5f, 0xaf, 0xff)).add_modifier(Modifier::BOLD)
            },
            spinner: c(Color::Rgb(0x5f, 0xaf, 0xff)),
            spinner_frames: SPINNER.iter().map(|s| (*s).to_string()).collect(),
            spinner_interval: SPIN_INTERVAL,
            thinking_max: c(Color::Rgb(0xff, 0x87, 0xd7)).add_modifier(Modifier::BOLD),
            panel_bg: None,
            syntax: None,
        }
    }

    /// A foreground colour from outside (syntax highlighting), adapted to
    /// the depth; `None` under `NO_COLOR`.
    pub fn fg(&self, color: Color) -> Style {
        match self.depth {
            ColorDepth::None => Style::default(),
            d => Style::default().fg(quantize(color, d)),
        }
    }
}

/// `color` as the terminal can show it.
pub fn quantize(color: Color, depth: ColorDepth) -> Color {
    let Color::Rgb(r, g, b) = color else {
        return color;
    };
    match depth {
        ColorDepth::TrueColor | ColorDepth::None => color,
        ColorDepth::Ansi256 => Color::Indexed(xterm256(r, g, b)),
        ColorDepth::Ansi16 => ansi16(r, g, b),
    }
}

/// The nearest xterm-256 index (6x6x6 cube or grey ramp).
pub fn xterm256(r: u8, g: u8, b: u8) -> u8 {
    const STEPS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let level = |v: u8| -> usize {
        STEPS
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| (i32::from(**s) - i32::from(v)).abs())
            .map_or(0, |(i, _)| i)
    };
    let (ri, gi, bi) = (level(r), level(g), level(b));
    let cube = 16 + 36 * ri + 6 * gi + bi;
    let dist = |a: (u8, u8, u8)| -> i32 {
        let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2);
        d(a.0, r) + d(a.1, g) + d(a.2, b)
    };
    let cube_rgb = (STEPS[ri], STEPS[gi], STEPS[bi]);
    let avg = (u32::from(r) + u32::from(g) + u32::from(b)) / 3;
    let grey_i = ((avg.saturating_sub(8)) / 10).min(23) as u8;
    let grey_v = 8 + grey_i * 10;
    if dist((grey_v, grey_v, grey_v)) < dist(cube_rgb) {
        232 + grey_i
    } else {
        cube as u8
    }
}

fn ansi16(r: u8, g: u8, b: u8) -> Color {
    let bright = u16::from(r) + u16::from(g) + u16::from(b) > 382;
    let (r, g, b) = (r > 127, g > 127, b > 127);
    match (r, g, b, bright) {
        (false, false, false, _) => Color::DarkGray,
        (true, false, false, false) => Color::Red,
        (true, false, false, true) => Color::LightRed,
        (false, true, false, false) => Color::Green,
        (false, true, false, true) => Color::LightGreen,
        (true, true, false, false) => Color::Yellow,
        (true, true, false, true) => Color::LightYellow,
        (false, false, true, false) => Color::Blue,
        (false, false, true, true) => Color::LightBlue,
        (true, false, true, _) => Color::Magenta,
        (false, true, true, _) => Color::Cyan,
        (true, true, true, _) => Color::White,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_from_env() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            ColorDepth::detect(&env(&[("NO_COLOR", "1"), ("COLORTERM", "truecolor")])),
            ColorDepth::None
        );
        assert_eq!(
            ColorDepth::detect(&env(&[("COLORTERM", "truecolor")])),
            ColorDepth::TrueColor
        );
        assert_eq!(
            ColorDepth::detect(&env(&[("TERM", "xterm-256color")])),
            ColorDepth::Ansi256
        );
        assert_eq!(
            ColorDepth::detect(&env(&[("TERM", "linux")])),
            ColorDepth::Ansi16
        );
    }

    #[test]
    fn quantises_to_the_cube_and_grey_ramp() {
        assert_eq!(xterm256(255, 0, 0), 196);
        assert_eq!(xterm256(0, 0, 0), 16);
        assert_eq!(xterm256(128, 128, 128), 244);
        assert_eq!(
            quantize(Color::Rgb(255, 0, 0), ColorDepth::Ansi16),
            Color::Red
        );
    }
}
