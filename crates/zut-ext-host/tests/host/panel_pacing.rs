//! `panel_key` pacing (issue 18 item 7): one key per panel in flight until
//! the extension draws the panel or the pace passes, the others queued in
//! order; closing from the front end never waits.

use std::time::Duration;

use zut_ext_host::UiKind;
use zut_protocol::Event;
use zut_test_support::TestEnv;

use crate::common::*;

/// What the user "types": runes, a backspace, more runes.
const TYPED: &[(&str, &str)] = &[
    ("rune", "h"),
    ("rune", "e"),
    ("rune", "l"),
    ("rune", "l"),
    ("rune", "o"),
    ("rune", " "),
    ("rune", "w"),
    ("rune", "x"),
    ("backspace", ""),
    ("rune", "o"),
    ("rune", "r"),
    ("rune", "l"),
    ("rune", "d"),
    ("rune", "!"),
    ("rune", " "),
    ("rune", "é"),
    ("rune", "t"),
    ("rune", "é"),
];
const TYPED_TEXT: &str = "hello world! été";

/// The last line the panel `id` was drawn with.
fn last_drawn(ui: &Ui, ext: &str) -> Option<String> {
    ui.of(ext).into_iter().rev().find_map(|k| match k {
        UiKind::PanelRender { lines, .. } => lines.first().cloned(),
        _ => None,
    })
}

/// Like a Go-SDK extension: every frame handled on its own thread, after a
/// random delay (0–30 ms), and the panel redrawn with the text so far.
/// Without pacing, keys overtake each other and the text comes out
/// scrambled.
#[tokio::test]
async fn keys_reach_a_concurrent_extension_in_order() {
    let env = TestEnv::new();
    py_ext(
        &env.global_dir("editor"),
        "editor",
        "import random\n\
         hello()\nsend({'type': 'ready'})\n\
         send({'type': 'open_panel', 'panel': {'id': 'ed', 'title': 'Edit', 'lines': ['']}})\n\
         BUF = []\n\
         def on(f):\n\
         \x20   if f['type'] != 'panel_key':\n        return None\n\
         \x20   time.sleep(random.random() * 0.03)\n\
         \x20   with LOCK:\n\
         \x20       if f['key'] == 'rune':\n            BUF.append(f['text'])\n\
         \x20       elif f['key'] == 'backspace' and BUF:\n            BUF.pop()\n\
         \x20       text = ''.join(BUF)\n\
         \x20   return {'type': 'panel_render', 'panel_id': 'ed', 'lines': [text]}\n\
         serve_threaded(on)",
    );
    // A long pace: only the extension's frames release keys, so the test
    // does not depend on how fast this machine runs Python threads.
    let run = Run::start(env, |c| c.timeouts.panel_key_pace = Duration::from_secs(30)).await;
    assert!(
        run.ui
            .wait(Duration::from_secs(10), |e| e
                .iter()
                .any(|e| matches!(e.kind, UiKind::OpenPanel(_))))
            .await,
        "{:?}",
        run.errors()
    );
    for (key, text) in TYPED {
        run.host.panel_key("editor", "ed", key, text);
    }
    let renders = |ui: &Ui| {
        ui.of("editor")
            .iter()
            .filter(|k| matches!(k, UiKind::PanelRender { .. }))
            .count()
    };
    let ui = run.ui.clone();
    assert!(
        eventually(Duration::from_secs(20), || renders(&ui) >= TYPED.len()).await,
        "only {} of {} keys drawn; last: {:?}",
        renders(&run.ui),
        TYPED.len(),
        last_drawn(&run.ui, "editor")
    );
    assert_eq!(last_drawn(&run.ui, "editor").as_deref(), Some(TYPED_TEXT));
    run.stop().await;
}

/// An extension that never draws its panel: with a long pace, one key is
/// written and the rest wait (an event written after them overtakes
/// them); closing the panel writes the queued keys in order, then
/// `panel_close`, at once.
#[tokio::test]
async fn an_extension_that_never_draws_keeps_keys_queued_and_close_is_immediate() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("mute"),
        "mute",
        "hello()\nsend({'type': 'subscribe', 'events': ['turn_end']})\nsend({'type': 'ready'})\n\
         send({'type': 'open_panel', 'panel': {'id': 'm', 'title': 'Mute'}})\nserve()",
    );
    let run = Run::start(env, |c| {
        c.timeouts.panel_key_pace = Duration::from_secs(600)
    })
    .await;
    assert!(
        run.ui
            .wait(Duration::from_secs(10), |e| !e.is_empty())
            .await,
        "{:?}",
        run.errors()
    );
    for c in ["a", "b", "c", "d"] {
        run.host.panel_key("mute", "m", "rune", c);
    }
    run.host.emit(&Event {
        event: "turn_end".into(),
        ..Event::default()
    });
    assert!(
        eventually(Duration::from_secs(10), || !received_of(&dir, "event")
            .is_empty())
        .await
    );
    let keys = |d: &std::path::Path| -> Vec<String> {
        received_of(d, "panel_key")
            .iter()
            .map(|k| k["text"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    // Frames are written in order, so everything written before the event
    // has arrived: only the first key was.
    assert_eq!(keys(&dir), ["a"]);
    // Esc: the queued keys and the close go now, not after the pace.
    run.host.panel_close("mute", "m");
    assert!(
        eventually(Duration::from_secs(10), || !received_of(
            &dir,
            "panel_close"
        )
        .is_empty())
        .await
    );
    assert_eq!(keys(&dir), ["a", "b", "c", "d"]);
    let kinds: Vec<String> = received(&dir)
        .iter()
        .map(|f| f["type"].as_str().unwrap_or_default().to_string())
        .filter(|t| t.starts_with("panel_"))
        .collect();
    assert_eq!(kinds.last().map(String::as_str), Some("panel_close"));
    run.stop().await;
}

/// With the default pace, keys to an extension that never draws still all
/// arrive, one per pace, in order.
#[tokio::test]
async fn the_pace_releases_keys_of_a_silent_panel_in_order() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("slow"),
        "slow",
        "hello()\nsend({'type': 'ready'})\nserve()",
    );
    let run = Run::start(env, |c| {
        c.timeouts.panel_key_pace = zut_ext_host::PANEL_KEY_PACE;
    })
    .await;
    assert!(run.errors().is_empty(), "{:?}", run.errors());
    let typed: Vec<String> = (0..20).map(|i| format!("{}", i % 10)).collect();
    for c in &typed {
        run.host.panel_key("slow", "s", "rune", c);
    }
    assert!(
        eventually(Duration::from_secs(20), || received_of(&dir, "panel_key")
            .len()
            == typed.len())
        .await
    );
    let got: Vec<String> = received_of(&dir, "panel_key")
        .iter()
        .map(|k| k["text"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(got, typed);
    run.stop().await;
}
