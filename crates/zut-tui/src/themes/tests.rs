//! Tests of theme loading and resolution.
use super::*;

#[test]
fn colour_forms() {
    assert_eq!(parse_color(&serde_json::json!(33)), Ok(Color::Indexed(33)));
    assert_eq!(
        parse_color(&serde_json::json!("#81a1c1")),
        Ok(Color::Rgb(0x81, 0xa1, 0xc1))
    );
    assert_eq!(
        parse_color(&serde_json::json!({"mode": "xterm256", "index": 200})),
        Ok(Color::Indexed(200))
    );
    assert_eq!(
        parse_color(&serde_json::json!({"mode": "ansi", "index": 91})),
        Ok(Color::LightRed)
    );
    assert_eq!(
        parse_color(&serde_json::json!({"mode": "rgb", "r": 1, "g": 2, "b": 3})),
        Ok(Color::Rgb(1, 2, 3))
    );
    assert!(parse_color(&serde_json::json!("red")).is_err());
    assert!(parse_color(&serde_json::json!(300)).is_err());
    assert!(parse_color(&serde_json::json!({"mode": "hsl"})).is_err());
}

#[test]
fn only_dark_block_applies_on_a_light_terminal_and_bad_keys_are_named() {
    // N7: a theme with only `colors.dark` on a light terminal.
    let t = ThemeFile::parse(
        r##"{"accent": "#010101", "colors": {"error": 9, "dark": {"accent": "#ff0000", "warning": "nope", "tool": 2}}}"##,
        Path::new("/t/nord.json"),
    )
    .unwrap();
    assert_eq!(t.name, "nord");
    let (p, problems) = t.palette(true);
    assert_eq!(p.accent, Some(Color::Rgb(255, 0, 0)));
    assert_eq!(p.error, Some(Color::Indexed(9)));
    // The bad key is skipped, the keys after it still apply.
    assert_eq!(p.tool, Some(Color::Indexed(2)));
    assert_eq!(p.warning, light().warning);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].starts_with("colors.dark.warning:"),
        "{problems:?}"
    );
    // Truecolor keeps RGB, 256 colours quantise.
    let tc = build(ColorDepth::TrueColor, &p);
    assert_eq!(tc.accent.fg, Some(Color::Rgb(255, 0, 0)));
    let q = build(ColorDepth::Ansi256, &p);
    assert_eq!(q.accent.fg, Some(Color::Indexed(196)));
}

#[test]
fn bubble_spinner_thinking_and_background_keys_are_painted() {
    let t = ThemeFile::parse(
        r##"{"user_bubble_fg": "#102030", "user_bubble_bg": 236, "spinner": "#ff8800",
            "thinkingMax": {"mode": "ansi", "index": 95}, "background": "#0b0c0d",
            "spinner_frames": ["-", "\\", "|", "/"], "spinner_interval_ms": 120,
            "colors": {"dark": {"spinner": "orange"}}}"##,
        Path::new("/t/bubbles.json"),
    )
    .unwrap();
    let (p, problems) = t.palette(false);
    // The bad `spinner` of the dark block is named and skipped: the
    // top-level one stays.
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with("colors.dark.spinner:"),
        "{problems:?}"
    );
    let th = build(ColorDepth::TrueColor, &p);
    assert_eq!(th.user.fg, Some(Color::Rgb(0x10, 0x20, 0x30)));
    assert_eq!(th.user.bg, Some(Color::Indexed(236)));
    assert_eq!(th.spinner.fg, Some(Color::Rgb(0xff, 0x88, 0x00)));
    assert_eq!(th.thinking_max.fg, Some(Color::LightMagenta));
    assert_eq!(th.panel_bg, Some(Color::Rgb(0x0b, 0x0c, 0x0d)));
    // At 256 colours they are quantised like every other colour.
    let q = build(ColorDepth::Ansi256, &p);
    assert!(matches!(q.spinner.fg, Some(Color::Indexed(_))));
    let (frames, interval) = t.spinner(false).unwrap();
    assert_eq!(frames, ["-", "\\", "|", "/"]);
    assert_eq!(interval, std::time::Duration::from_millis(120));
    // Through the catalogue, the theme's spinner reaches the Theme.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bubbles.json");
    std::fs::write(&file, t_json(&t)).unwrap();
    let cat = Catalog::discover(Some(dir.path()), &[]);
    let (th, _) = cat.theme("bubbles", ColorDepth::TrueColor, false);
    assert_eq!(th.spinner_frames.len(), 4);
    assert_eq!(th.spinner_interval, std::time::Duration::from_millis(120));
}

#[test]
fn syntax_keys_reach_the_theme_and_bad_ones_are_named() {
    let t = ThemeFile::parse(
        r##"{"syntax": {"keyword": "#81a1c1 bold", "comment": "grey"},
            "colors": {"light": {"syntax_base_style": "solarized-light"}, "dark": {}}}"##,
        Path::new("/t/syn.json"),
    )
    .unwrap();
    let (syn, problems) = t.syntax(true);
    let syn = syn.unwrap();
    assert_eq!(syn.base, Some("Solarized (light)"));
    assert_eq!(syn.rules.len(), 1);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("syntax.comment:"), "{problems:?}");
    // On a dark terminal the dark block applies instead (§2.2).
    assert_eq!(t.syntax(false).0.unwrap().base, None);
    // No syntax keys: the default highlighting.
    let none = ThemeFile::parse(r#"{"accent": 1}"#, Path::new("/t/a.json")).unwrap();
    assert!(none.syntax(false).0.is_none());
}

fn t_json(t: &ThemeFile) -> String {
    serde_json::Value::Object(t.json.clone()).to_string()
}

#[test]
fn spinner_keys_fall_back_as_the_spec_says() {
    let parse = |j: &str| ThemeFile::parse(j, Path::new("/t/s.json")).unwrap();
    // Missing or invalid interval: 80 ms.
    let (_, i) = parse(r#"{"spinner_frames": ["a", "b"]}"#)
        .spinner(false)
        .unwrap();
    assert_eq!(i, std::time::Duration::from_millis(80));
    let (_, i) = parse(r#"{"spinner_frames": ["a"], "spinner_interval_ms": "fast"}"#)
        .spinner(false)
        .unwrap();
    assert_eq!(i, std::time::Duration::from_millis(80));
    // No frames, empty frames or a non-string frame: the built-in spinner.
    assert!(parse(r#"{"spinner_interval_ms": 50}"#)
        .spinner(false)
        .is_none());
    assert!(parse(r#"{"spinner_frames": []}"#).spinner(false).is_none());
    assert!(parse(r#"{"spinner_frames": ["a", 1]}"#)
        .spinner(false)
        .is_none());
    // Escapes in frames are stripped.
    let (f, _) = parse(r#"{"spinner_frames": ["\u001b[31mx"]}"#)
        .spinner(false)
        .unwrap();
    assert_eq!(f, ["x"]);
    // The mode block wins over the top level.
    let (f, _) =
        parse(r#"{"spinner_frames": ["a"], "colors": {"dark": {"spinner_frames": ["d"]}}}"#)
            .spinner(false)
            .unwrap();
    assert_eq!(f, ["d"]);
}

#[test]
fn invalid_files_name_the_file_and_line() {
    let e = ThemeFile::parse("{\n \"accent\": ,\n}", Path::new("/t/bad.json")).unwrap_err();
    assert!(e.starts_with("/t/bad.json:2:"), "{e}");
    assert!(light_terminal(
        &|k| (k == "COLORFGBG").then(|| "0;15".into())
    ));
    assert!(!light_terminal(&|_| None));
}
