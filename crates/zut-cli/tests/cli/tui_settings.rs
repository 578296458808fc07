//! `/settings` writes what it changes into `$ZUT_HOME/config.json` (issue
//! 20 item 7), as the Go original does: the terminal alerts toggle, the
//! reasoning level and the model (provider and id), every other key of
//! the file kept with its indentation. The real binary in tmux against
//! the local LLM server; the next run reads the saved values.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use serde_json::Value;
use zut_llm_server::LlmServer;

/// Waits (up to 10 s) until no picker is on screen.
fn wait_closed(t: &Tmux) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while t.screen().contains("esc close") || t.screen().contains("· esc") {
        assert!(
            std::time::Instant::now() < deadline,
            "a picker stays open: {}",
            t.screen()
        );
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
}

fn config(env: &TestEnv) -> (String, Value) {
    let text = std::fs::read_to_string(env.home.join("config.json")).unwrap();
    let v = serde_json::from_str(&text).unwrap();
    (text, v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_model_and_reasoning_are_written_to_config_json() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // The user's file: four-space indentation, a key zut does not know,
    // one of the Go original's.
    std::fs::write(
        env.home.join("config.json"),
        "{\n    \"wat\": {\"keep\": [1, 2]},\n    \"fast_mode\": true\n}\n",
    )
    .unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 32);
    started(&t);

    t.typ("/settings");
    t.keys(&["Enter"]);
    t.wait_for("alerts and approvals ring the bell (config.json)", 10);
    t.keys(&["Down", "Down", "Enter"]);
    t.wait_for("terminal alerts  off (config.json)", 10);
    let (text, v) = config(&env);
    assert_eq!(v["terminal_alerts_enabled"], Value::Bool(false), "{text}");
    assert_eq!(v["wat"]["keep"][1], 2, "{text}");
    assert_eq!(v["fast_mode"], Value::Bool(true), "{text}");
    // Unchanged values keep their text, the file its indentation.
    assert!(
        text.starts_with("{\n    \"wat\": {\"keep\": [1, 2]},\n    \"fast_mode\": true,\n    \""),
        "{text}"
    );
    t.keys(&["Escape"]);
    wait_closed(&t);

    t.typ("/reasoning high");
    t.keys(&["Enter"]);
    t.wait_for("reasoning: high · saved", 10);
    assert_eq!(config(&env).1["reasoning"], "high");

    t.typ("/model anthropic/claude-haiku-4-5");
    t.keys(&["Enter"]);
    t.wait_for("model: anthropic/claude-haiku-4-5", 10);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while config(&env).1["model"] != "claude-haiku-4-5" {
        assert!(std::time::Instant::now() < deadline, "{}", config(&env).0);
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (text, v) = config(&env);
    assert_eq!(v["provider"], "anthropic", "{text}");
    // Still every other key.
    assert_eq!(v["terminal_alerts_enabled"], Value::Bool(false), "{text}");
    assert_eq!(v["wat"]["keep"][0], 1, "{text}");

    // A config.json broken meanwhile is never overwritten: the change
    // holds for this run and the error names the file.
    std::fs::write(env.home.join("config.json"), "{\"theme\": ").unwrap();
    t.typ("/settings");
    t.keys(&["Enter"]);
    t.wait_for("off (config.json)", 10);
    t.keys(&["Down", "Down", "Enter"]);
    t.wait_for(
        "terminal alerts  on: alerts and approvals ring the bell (config.json)",
        10,
    );
    t.keys(&["Escape"]);
    t.wait_for("terminal alerts not saved", 10);
    t.wait_for("not valid JSON", 10);
    assert_eq!(
        std::fs::read_to_string(env.home.join("config.json")).unwrap(),
        "{\"theme\": "
    );
    std::fs::write(env.home.join("config.json"), text).unwrap();
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);

    // The next run starts with them.
    let r = zut(&env, &["config"]);
    assert!(
        r.stdout.contains("reasoning       high  [file "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("model           claude-haiku-4-5  [file "),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("terminal alerts off  [file "),
        "{}",
        r.stdout
    );
}

/// `/settings`' quick-model slots: a slot row opens the real `/model`
/// picker for that slot; the pick is written to `quick_model_shortcuts`
/// (not switched to); `/model slot:N` (what Ctrl+N sends) then switches,
/// with the slot's reasoning when it has one (the Go original's profiles).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_assign_quick_model_slots_in_config_json() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    std::fs::write(
        env.home.join("config.json"),
        r#"{"quick_model_shortcuts": [null, {"provider": "anthropic", "model": "claude-sonnet-4-5", "reasoning": "high"}]}"#,
    )
    .unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 32);
    started(&t);

    t.typ("/settings");
    t.keys(&["Enter"]);
    t.wait_for("Ctrl+2 model     anthropic/claude-sonnet-4-5", 10);
    t.keys(&["Down", "Down", "Down", "Enter"]);
    t.wait_for("model for Ctrl+1", 10);
    t.typ("haiku-4-5");
    t.keys(&["Enter"]);
    // The settings come back with the slot's new model.
    t.wait_for("Ctrl+1 model     anthropic/claude-haiku-4-5", 10);
    let (text, v) = config(&env);
    assert_eq!(
        v["quick_model_shortcuts"][0],
        serde_json::json!({"provider": "anthropic", "model": "claude-haiku-4-5"}),
        "{text}"
    );
    assert_eq!(v["quick_model_shortcuts"][1]["reasoning"], "high", "{text}");
    // Not switched to.
    assert!(v.get("model").is_none(), "{text}");
    t.keys(&["Escape"]);
    wait_closed(&t);
    t.wait_for("Ctrl+1: anthropic/claude-haiku-4-5 (saved)", 10);

    t.typ("/model slot:2");
    t.keys(&["Enter"]);
    t.wait_for("model: anthropic/claude-sonnet-4-5", 10);
    t.wait_for("reasoning high", 10);
    t.typ("/model slot:1");
    t.keys(&["Enter"]);
    t.wait_for("model: anthropic/claude-haiku-4-5", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
