//! Group I: one-way UI frames as the host forwards them, panels, chrome
//! cleanup on exit.

use std::time::Duration;

use zut_ext_host::UiKind;
use zut_protocol::PanelContent;
use zut_test_support::TestEnv;

use crate::common::*;

/// An extension that sends `frames` (Python list of dicts) after `ready`,
/// then serves. `/bye` makes it exit.
fn sender(env: &TestEnv, name: &str, frames: &str) -> std::path::PathBuf {
    py_ext(
        &env.global_dir(name),
        name,
        &format!(
            "hello()\nsend({{'type': 'register_command', 'name': 'bye'}})\nsend({{'type': 'ready'}})\n\
             for x in {frames}:\n    send(x)\n\
             send({{'type': 'notify', 'message': 'END'}})\n\
             def on(f):\n    if f['type'] == 'command_invoked':\n        sys.exit(0)\n\
             serve(on)"
        ),
    )
}

fn notify(level: &str, message: &str) -> UiKind {
    UiKind::Notify {
        level: level.into(),
        message: message.into(),
    }
}

/// Waits for the `END` marker note of `name`, then returns its UI events
/// without the marker.
async fn settled(run: &Run, name: &str) -> Vec<UiKind> {
    let n = name.to_string();
    assert!(
        run.ui
            .wait(Duration::from_secs(10), move |e| e
                .iter()
                .any(|e| e.extension == n && e.kind == notify("", "END")))
            .await,
        "no END from {name}"
    );
    run.ui
        .of(name)
        .into_iter()
        .filter(|k| *k != notify("", "END"))
        .collect()
}

#[tokio::test]
async fn i1_i2_i9_i13_i14_notes_alerts_submits() {
    let env = TestEnv::new();
    sender(
        &env,
        "kagi",
        "[{'type': 'notify', 'level': 'info', 'message': 'one'},\
           {'type': 'notify', 'level': 'success', 'message': 'two\\nlines'},\
           {'type': 'notify', 'message': ''},\
           {'type': 'clear_notes'},\
           {'type': 'alert', 'kind': 'bell', 'reason': 'question_ready'},\
           {'type': 'alert', 'kind': 'flash'},\
           {'type': 'submit', 'text': '  explain this repository briefly  '},\
           {'type': 'submit', 'text': '   '},\
           {'type': 'submit_slash', 'text': ' /reload-ext '},\
           {'type': 'submit_slash', 'text': 'reload-ext'}]",
    );
    let dir = sender(
        &env,
        "other",
        "[{'type': 'notify', 'level': 'warn', 'message': 'mine'}]",
    );
    let run = Run::start(env, |_| {}).await;
    let got = settled(&run, "kagi").await;
    assert_eq!(
        got,
        vec![
            notify("info", "one"),
            notify("success", "two\nlines"),
            notify("", ""),
            UiKind::ClearNotes,
            UiKind::Alert {
                kind: "bell".into(),
                reason: "question_ready".into()
            },
            UiKind::Submit {
                text: "explain this repository briefly".into()
            },
            UiKind::SubmitSlash {
                text: "/reload-ext".into()
            },
        ]
    );
    assert!(run
        .env
        .log("kagi")
        .contains("[zut] submit_slash refused (not a slash command): \"reload-ext\""));
    assert_eq!(settled(&run, "other").await, vec![notify("warn", "mine")]);
    drop(dir);
    run.stop().await;
}

#[tokio::test]
async fn i4_i6_status_and_widgets() {
    let env = TestEnv::new();
    sender(
        &env,
        "tasked",
        "[{'type': 'status', 'key': 'progress', 'level': 'success', 'text': '2/4 tasks checked'},\
           {'type': 'status', 'key': '  ', 'text': 'ignored'},\
           {'type': 'status', 'key': 'progress', 'text': '   '},\
           {'type': 'widget', 'id': 'plan', 'title': 'Tasked phases', 'lines': ['a', 'b'], 'position': 'right_bar'},\
           {'type': 'widget', 'id': '', 'title': 'ignored'},\
           {'type': 'widget', 'id': 'w2', 'position': 'weird'},\
           {'type': 'widget_clear', 'id': 'plan'}]",
    );
    let run = Run::start(env, |_| {}).await;
    let got = settled(&run, "tasked").await;
    assert_eq!(
        got,
        vec![
            UiKind::Status {
                key: "progress".into(),
                level: "success".into(),
                text: "2/4 tasks checked".into()
            },
            UiKind::Status {
                key: "progress".into(),
                level: String::new(),
                text: String::new()
            },
            UiKind::Widget {
                id: "plan".into(),
                position: "right_bar".into(),
                title: "Tasked phases".into(),
                lines: vec!["a".into(), "b".into()]
            },
            UiKind::Widget {
                id: "w2".into(),
                position: "weird".into(),
                title: String::new(),
                lines: vec![]
            },
            UiKind::WidgetClear { id: "plan".into() },
        ]
    );
    // I6: positions reach the embedder raw (RPC needs them) and every one
    // of them resolves to the same placement.
    for p in ["right_bar", "", "weird", "above_input"] {
        assert_eq!(zut_ext_host::widget_placement(p), "above_input");
    }
    run.stop().await;
}

#[tokio::test]
async fn i7_exit_clears_only_own_chrome_and_commands() {
    let env = TestEnv::new();
    sender(
        &env,
        "leaver",
        "[{'type': 'status', 'key': 'k', 'text': 'x'}]",
    );
    let stayer = py_ext(
        &env.global_dir("stayer"),
        "stayer",
        "hello()\nsend({'type': 'register_command', 'name': 'stay'})\nsend({'type': 'ready'})\n\
         send({'type': 'status', 'key': 'k', 'text': 'y'})\n\
         serve(lambda f: {'type': 'command_response', 'id': f['id'], 'action': 'display', 'display': 'here'} if f['type'] == 'command_invoked' else None)",
    );
    let run = Run::start(env, |_| {}).await;
    settled(&run, "leaver").await;
    let err = run.host.invoke_command("bye", "").await.unwrap_err();
    assert!(
        matches!(err, zut_ext_host::CommandError::Disconnected { .. }),
        "{err:?}"
    );
    assert!(run.ui.wait_chrome_clear("leaver").await);
    assert!(!run.host.has_command("bye"));
    assert!(!run.ui.of("stayer").contains(&UiKind::ChromeClear));
    let reply = run.host.invoke_command("stay", "").await.unwrap();
    assert_eq!(reply.response.display, "here");
    assert!(run.report_of("stayer").alive);
    assert!(!run.report_of("leaver").alive);
    assert!(run
        .env
        .log("leaver")
        .contains("[zut] extension leaver read loop exited at 20"));
    drop(stayer);
    run.stop().await;
}

#[tokio::test]
async fn i10_i11_i12_panels() {
    let env = TestEnv::new();
    let dir = py_ext(
        &env.global_dir("panel"),
        "panel",
        "hello()\nsend({'type': 'ready'})\n\
         send({'type': 'open_panel', 'panel': {'id': 'gate', 'title': 'Approve?', 'lines': ['l1', 'l2'], 'footer': 'y/n'}})\n\
         def on(f):\n    if f['type'] == 'panel_key':\n\
         \x20       return {'type': 'panel_render', 'panel_id': 'gate', 'title': '', 'lines': ['key ' + f['key'] + ' ' + f.get('text', '')]}\n\
         \x20   if f['type'] == 'panel_close':\n        return {'type': 'notify', 'message': 'closed ' + f['panel_id']}\n\
         serve(on)",
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.ui.wait(Duration::from_secs(5), |e| !e.is_empty()).await);
    assert_eq!(
        run.ui.of("panel")[0],
        UiKind::OpenPanel(PanelContent {
            id: "gate".into(),
            title: "Approve?".into(),
            lines: vec!["l1".into(), "l2".into()],
            footer: "y/n".into()
        })
    );
    run.host.panel_key("panel", "gate", "rune", "x");
    run.host.panel_key("panel", "gate", "down", "");
    run.host.panel_close("panel", "gate");
    assert!(run.ui.wait(Duration::from_secs(5), |e| e.len() >= 4).await);
    let got = run.ui.of("panel");
    assert_eq!(
        got[1],
        UiKind::PanelRender {
            panel_id: "gate".into(),
            title: String::new(),
            lines: vec!["key rune x".into()],
            footer: String::new()
        }
    );
    assert!(
        matches!(&got[2], UiKind::PanelRender { lines, .. } if lines == &vec!["key down ".to_string()])
    );
    assert_eq!(got[3], notify("", "closed gate"));
    let keys = received_of(&dir, "panel_key");
    assert_eq!(
        keys[0],
        serde_json::json!({"type": "panel_key", "panel_id": "gate", "key": "rune", "text": "x"})
    );
    assert!(
        keys[1].get("text").is_none(),
        "text only for runes: {}",
        keys[1]
    );
    // Keys for an unknown extension go nowhere and do not panic.
    run.host.panel_key("nobody", "gate", "up", "");
    run.stop().await;
}
