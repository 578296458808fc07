//! Extension-provided text (notes, status, widget and panel lines) through
//! the TUI's sanitiser and SGR filter: never panics, and nothing that could
//! drive the terminal survives — no control character but `\n` after
//! `clean`, and after `keep` only `ESC [ <digits and ;> m` sequences.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ratatui::style::Style;

#[allow(dead_code)]
#[path = "../../src/sanitize.rs"]
mod sanitize;
#[allow(dead_code)]
#[path = "../../src/sgr.rs"]
mod sgr;
#[allow(dead_code)]
#[path = "../../src/theme.rs"]
mod theme;

use theme::{ColorDepth, Theme};

fn control(c: char) -> bool {
    (c < ' ' && c != '\n') || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c)
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let clean = sanitize::clean(s);
    assert!(!clean.chars().any(control), "clean left a control: {clean:?}");
    let line = sanitize::clean_line(s);
    assert!(!line.chars().any(|c| control(c) || c == '\n'), "{line:?}");

    let kept = sgr::keep(s);
    // Only SGR sequences remain: every ESC starts `[`, digits/`;`, `m`;
    // the text between them has no control but `\n`.
    let mut rest = kept.as_str();
    let mut plain = String::new();
    while let Some(at) = rest.find('\u{1b}') {
        plain.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let body = after.strip_prefix('[').unwrap_or_else(|| panic!("{kept:?}"));
        let end = body.find('m').unwrap_or_else(|| panic!("{kept:?}"));
        assert!(
            body[..end].chars().all(|c| c.is_ascii_digit() || c == ';'),
            "{kept:?}"
        );
        rest = &body[end + 1..];
    }
    plain.push_str(rest);
    assert!(!plain.chars().any(control), "{kept:?}");
    for depth in [ColorDepth::None, ColorDepth::Ansi16, ColorDepth::Ansi256, ColorDepth::TrueColor] {
        let theme = Theme::new(depth);
        for span in sgr::spans(&kept, Style::default(), &theme) {
            assert!(!span.content.contains('\u{1b}'), "{kept:?}");
        }
    }
});
