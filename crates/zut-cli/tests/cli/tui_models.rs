//! `/model` across providers, `/login` and `/logout` in the interactive
//! TUI (issue 20 items 4 and 5): the real binary in tmux against the local
//! LLM server. The picker lists the models of every provider with a key;
//! switching mid-session sends the same conversation to the other
//! provider with its stored key; `/login` checks a typed key with the
//! model list and saves it only when accepted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::tmux::*;
use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

fn wait_screen(t: &Tmux, what: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let s = t.screen();
        if ok(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "timed out: {what}\n{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn write_private(path: &std::path::Path, v: &Value) {
    std::fs::write(path, v.to_string()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_picker_switches_provider_and_keeps_the_conversation() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    // openai has a stored key and points at the local server; groq has
    // no key, so its models are not offered.
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"openai": {"baseUrl": server.openai_base_url()}}}).to_string(),
    )
    .unwrap();
    write_private(
        &env.home.join("auth.json"),
        &json!({"openai": {"api_key": "sk-oa-stored"}}),
    );
    server.push(Script::anthropic_text("First answer from Claude."));
    let t = Tmux::start(
        &env,
        &server,
        &["--no-ext", "remember the word kiwi"],
        110,
        32,
    );
    t.wait_for("First answer from Claude.", 10);

    t.typ("/model");
    t.keys(&["Enter"]);
    let s = t.wait_for("openai/gpt-5-mini", 10);
    assert!(s.contains("anthropic/test-model"), "{s}");
    assert!(!s.contains("groq/"), "{s}");
    // Filter across providers, with context window and prices shown.
    t.typ("gpt-5-mini");
    let s = wait_screen(&t, "filtered", |s| {
        s.lines()
            .any(|l| l.contains("› ") && l.contains("openai/gpt-5-mini"))
    });
    let row = s.lines().find(|l| l.contains("openai/gpt-5-mini")).unwrap();
    assert!(
        row.contains("ctx") && row.contains('$') && row.contains("reasoning"),
        "{row}"
    );
    t.keys(&["Enter"]);
    t.wait_for("model: openai/gpt-5-mini (the conversation is kept)", 10);
    wait_screen(&t, "status bar", |s| s.contains("(openai) gpt-5-mini"));

    server.push(Script::openai_text("Second answer from GPT."));
    t.typ("which word?");
    t.keys(&["Enter"]);
    t.wait_for("Second answer from GPT.", 10);
    let req = server.requests().into_iter().last().unwrap();
    assert!(req.path.ends_with("/chat/completions"), "{}", req.path);
    assert_eq!(req.header("authorization"), Some("Bearer sk-oa-stored"));
    assert_eq!(req.body["model"], "gpt-5-mini");
    let body = req.body.to_string();
    assert!(body.contains("remember the word kiwi"), "{body}");
    assert!(body.contains("First answer from Claude."), "{body}");
    // The switch is in the session file (a repeated meta row), so a
    // resume goes on with it.
    let mut files = Vec::new();
    for d in std::fs::read_dir(env.home.join("sessions"))
        .unwrap()
        .flatten()
    {
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            files.push(f.path());
        }
    }
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let last_meta: Value = text
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "meta")
        .unwrap();
    assert_eq!(last_meta["meta"]["provider"], "openai", "{text}");
    assert_eq!(last_meta["meta"]["model"], "gpt-5-mini");

    // Back by its full name: the run's own flags (base URL, key) again.
    t.typ("/model anthropic/test-model");
    t.keys(&["Enter"]);
    wait_screen(&t, "back", |s| s.contains("(anthropic) test-model"));
    server.push(Script::anthropic_text("Third answer."));
    t.typ("and now?");
    t.keys(&["Enter"]);
    t.wait_for("Third answer.", 10);
    let req = server.requests().into_iter().last().unwrap();
    assert!(req.path.ends_with("/v1/messages"), "{}", req.path);
    assert_eq!(req.header("x-api-key"), Some("sk-test"));
    assert!(req.body.to_string().contains("Second answer from GPT."));

    // A provider without a key: a clear error, nothing switched.
    t.typ("/model groq/llama-3.3-70b-versatile");
    t.keys(&["Enter"]);
    t.wait_for("no API key for provider groq", 10);
    let s = t.screen();
    assert!(s.contains("(anthropic) test-model"), "{s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_dialog_checks_the_key_and_saves_it_only_when_accepted() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    std::fs::write(
        env.home.join("models.json"),
        json!({"providers": {"openrouter": {"baseUrl": server.openai_base_url()}}}).to_string(),
    )
    .unwrap();
    let t = Tmux::start(&env, &server, &["--no-ext"], 110, 32);
    started(&t);
    // A key the provider rejects: not saved.
    server.push(Script::json(
        401,
        r#"{"error":{"message":"No auth credentials found","code":401}}"#,
    ));
    t.typ("/login");
    t.keys(&["Enter"]);
    t.wait_for("enter type its key", 10);
    t.typ("openrouter");
    t.keys(&["Enter"]);
    t.wait_for("login: openrouter", 10);
    t.typ("sk-or-BADKEY");
    let s = wait_screen(&t, "masked", |s| s.contains("key: ••••••••••••"));
    assert!(!s.contains("BADKEY"), "{s}");
    t.keys(&["Enter"]);
    t.wait_for("openrouter rejected the key", 10);
    assert!(!env.home.join("auth.json").exists());
    assert!(!t.all().contains("BADKEY"));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-or-BADKEY")
    );
    // An accepted key: saved (0600), never shown.
    server.push(Script::json(
        200,
        r#"{"data":[{"id":"a/b"},{"id":"found/by-login","pricing":{"prompt":"0.000002","completion":"0.00001"}},{"id":"e/f"}]}"#,
    ));
    t.typ("/login openrouter");
    t.keys(&["Enter"]);
    t.wait_for("login: openrouter", 10);
    t.typ("sk-or-GOODKEY");
    t.keys(&["Enter"]);
    t.wait_for("saved the key for openrouter", 10);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("auth.json")).unwrap())
            .unwrap();
    assert_eq!(
        saved["additional_api_key_creds"]["openrouter"]["api_key"],
        "sk-or-GOODKEY"
    );
    assert_eq!(mode(&env.home.join("auth.json")), 0o600);
    assert!(!t.all().contains("GOODKEY"));
    // Its models are offered now, the ones its list answered with
    // included (cached by the key check, priced from the list): no
    // restart needed.
    t.typ("/model");
    t.keys(&["Enter"]);
    t.wait_for("openrouter/", 10);
    let s = wait_screen(&t, "discovered model", |s| {
        s.contains("openrouter/found/by-login")
    });
    assert!(s.contains("$2/$10"), "{s}");
    let cache: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("models-cache.json")).unwrap())
            .unwrap();
    assert_eq!(
        cache["providers"]["openrouter"]["models"]
            .as_array()
            .map(Vec::len),
        Some(3),
        "{cache}"
    );
    t.keys(&["Escape"]);
    wait_screen(&t, "picker closed", |s| !s.contains("openrouter/"));
    // Esc then `/` at once would read as Alt+/.
    std::thread::sleep(Duration::from_millis(100));
    // /logout removes it.
    t.typ("/logout");
    t.keys(&["Enter"]);
    t.wait_for("enter remove its stored key", 10);
    t.keys(&["Enter"]);
    t.wait_for("removed the key for openrouter", 10);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("auth.json")).unwrap())
            .unwrap();
    assert!(saved.get("additional_api_key_creds").is_none(), "{saved}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}

/// Figure: the first TUI frame does not wait for discovery. The run's
/// provider opts into discovery (`"discover": true` on the preset in
/// models.json) and its model list endpoint sleeps 5 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_frame_does_not_wait_for_a_slow_model_list() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    let mut took = Vec::new();
    for slow in [false, true] {
        std::fs::write(
            env.home.join("models.json"),
            json!({"providers": {"anthropic": {"discover": slow}}}).to_string(),
        )
        .unwrap();
        if slow {
            server.push(Script::json(200, r#"{"data":[{"id":"late"}]}"#).delay_ms(5000));
        }
        let t0 = Instant::now();
        let t = Tmux::start(&env, &server, &["--no-ext"], 100, 30);
        started(&t);
        took.push(t0.elapsed());
        t.keys(&["C-d"]);
        t.wait_for("EXIT:0", 5);
    }
    eprintln!(
        "figure: first TUI frame {:?} without discovery, {:?} with a 5 s model list",
        took[0], took[1]
    );
    assert!(took[1] < Duration::from_secs(3), "{took:?}");
    // The list was asked (in the background).
    assert!(server
        .requests()
        .iter()
        .any(|r| r.method == "GET" && r.path.starts_with("/v1/models")));
}
