//! `api_key_command` with real programs, `auth.json` saving (atomic, under
//! a lock, never over a broken file) and the model list probe against the
//! scripted server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};
use zut_providers::credentials::{self, Stored};
use zut_providers::key_command::KeyCommand;
use zut_providers::model_list::list_models;
use zut_providers::{resolve, ProviderError, ProviderOptions};

fn write_auth(home: &Path, value: &Value) {
    let path = home.join("auth.json");
    std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn sh(script: &str, timeout_ms: Option<u64>) -> KeyCommand {
    KeyCommand {
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        timeout_ms,
    }
}

fn opts(provider: &str) -> ProviderOptions {
    ProviderOptions {
        provider: Some(provider.into()),
        ..ProviderOptions::default()
    }
}

#[test]
fn key_command_first_line_cached_once() {
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("runs");
    // Prints the key, then a second line (pass's metadata), and counts runs.
    let cmd = sh(
        &format!(
            "echo run >> '{}'; printf 'sk-from-command\\r\\nuser: me\\n'",
            count.display()
        ),
        None,
    );
    assert_eq!(cmd.resolve().unwrap(), "sk-from-command");
    assert_eq!(cmd.resolve().unwrap(), "sk-from-command");
    let runs = std::fs::read_to_string(&count).unwrap();
    assert_eq!(runs.lines().count(), 1, "the command ran once: {runs:?}");
}

#[test]
fn key_command_that_hangs_is_killed_at_its_timeout() {
    // The grandchild `sleep` holds stdout open: the whole group is killed.
    let cmd = sh("sleep 30 & sleep 30; echo late-key", Some(300));
    let t = Instant::now();
    let e = cmd.run().unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(e.contains("did not finish within 300 ms"), "{e}");
    assert!(!e.contains("late-key"), "{e}");
}

#[test]
fn key_command_printing_nothing_too_much_or_failing_is_a_clear_error() {
    let e = sh("true", None).run().unwrap_err();
    assert!(e.contains("printed no key"), "{e}");
    let e = sh("echo; echo second-line", None).run().unwrap_err();
    assert!(e.contains("printed no key"), "{e}");
    // 1 MB of output.
    let t = Instant::now();
    let e = sh("head -c 1048576 /dev/zero | tr '\\0' k", None)
        .run()
        .unwrap_err();
    assert!(e.contains("more than 64 KiB"), "{e}");
    assert!(!e.contains("kkkk"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
    let e = sh("echo sk-secret-printed; exit 3", None)
        .run()
        .unwrap_err();
    assert!(e.contains("exited with status 3"), "{e}");
    assert!(!e.contains("sk-secret-printed"), "{e}");
    let e = KeyCommand {
        program: "/nonexistent/zut-key-helper".into(),
        args: vec![],
        timeout_ms: None,
    }
    .run()
    .unwrap_err();
    assert!(e.contains("cannot start"), "{e}");
}

#[test]
fn key_command_descriptions_are_checked() {
    let at = "openai.api_key_command";
    for (bad, key) in [
        (json!("op read x"), "openai.api_key_command"),
        (json!({"args": ["x"]}), "openai.api_key_command.program"),
        (
            json!({"program": "op", "args": "read x"}),
            "openai.api_key_command.args",
        ),
        (
            json!({"program": "op", "args": [1]}),
            "openai.api_key_command.args[0]",
        ),
        (
            json!({"program": "op", "timeout_ms": -5}),
            "openai.api_key_command.timeout_ms",
        ),
    ] {
        let e = KeyCommand::from_json(&bad, at).unwrap_err();
        assert!(e.starts_with(key), "{e}");
    }
    let ok = KeyCommand::from_json(
        &json!({"program": "op", "args": ["read", "op://x"], "timeout_ms": 5000}),
        at,
    )
    .unwrap();
    assert_eq!(ok.args, vec!["read", "op://x"]);
    assert_eq!(ok.timeout(), Duration::from_secs(5));
}

#[test]
fn resolve_runs_the_command_of_auth_json_and_errors_hold_no_key() {
    let home = tempfile::tempdir().unwrap();
    write_auth(
        home.path(),
        &json!({
            "anthropic": {"api_key": "ignored", "api_key_command": {
                "program": "sh", "args": ["-c", "echo sk-ant-cmd"]}},
            "additional_api_key_creds": {
                "openrouter": {"api_key": "sk-or-stored"},
                "groq": {"api_key_command": {"program": "sh",
                    "args": ["-c", "echo sk-groq-leak; exit 1"]}}
            }
        }),
    );
    let none = |_: &str| None;
    let cfg = resolve(&opts("anthropic"), &none, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("sk-ant-cmd"));
    let cfg = resolve(&opts("openrouter"), &none, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("sk-or-stored"));
    let e = resolve(&opts("groq"), &none, home.path()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("auth.json"), "{text}");
    assert!(text.contains("\"groq\""), "{text}");
    assert!(text.contains("exited with status 1"), "{text}");
    assert!(!text.contains("sk-groq-leak"), "{text}");
    assert!(!format!("{e:?}").contains("sk-groq-leak"));
    // Without a provider, a stored command counts as a login without running.
    let cfg = resolve(&ProviderOptions::default(), &none, home.path()).unwrap();
    assert_eq!(cfg.provider, "anthropic");
}

#[test]
fn save_keeps_other_entries_is_0600_and_logout_removes() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().join("nested-home");
    let path = credentials::save_key(&h, "anthropic", " sk-ant-1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    credentials::save_key(&h, "openrouter", "sk-or-1").unwrap();
    // Unknown keys (another tool's OAuth entry, web search keys) survive.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["kimi"] = json!({"oauth": {"access_token": "t"}});
    v["brave"] = json!({"api_key": "b"});
    write_auth(&h, &v);
    credentials::save_key(&h, "anthropic", "sk-ant-2").unwrap();
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["anthropic"]["api_key"], "sk-ant-2");
    assert_eq!(
        v["additional_api_key_creds"]["openrouter"]["api_key"],
        "sk-or-1"
    );
    assert_eq!(v["kimi"]["oauth"]["access_token"], "t");
    assert_eq!(v["brave"]["api_key"], "b");
    // Saving a key replaces a key command.
    let mut v = v;
    v["openai"] = json!({"api_key_command": {"program": "op"}});
    write_auth(&h, &v);
    credentials::save_key(&h, "openai", "sk-oa").unwrap();
    let list = credentials::list(&h).unwrap();
    assert!(list.contains(&("openai".into(), Stored::Key("sk-oa".into()))));
    assert!(credentials::remove(&h, "openrouter").unwrap());
    assert!(!credentials::remove(&h, "openrouter").unwrap());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(v.get("additional_api_key_creds").is_none(), "{v}");
    assert!(!credentials::has_stored(&h, "openrouter").unwrap());
    assert!(credentials::save_key(&h, "x", "  ").is_err());
}

#[test]
fn a_broken_auth_json_is_never_overwritten() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join("auth.json");
    for text in ["{\"anthropic\": {\"api_key\": \"sk-half", "[1, 2]"] {
        std::fs::write(&path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let e = credentials::save_key(home.path(), "openai", "sk-new").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("auth.json"), "{m}");
        assert!(!m.contains("sk-half"), "{m}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(credentials::remove(home.path(), "anthropic").is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
    // World-readable: refused for reading and writing.
    std::fs::write(&path, "{}").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = credentials::save_key(home.path(), "openai", "sk-new").unwrap_err();
    assert!(e.to_string().contains("chmod 600"), "{e}");
}

#[test]
fn concurrent_saves_lose_nothing() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_path_buf();
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let h = h.clone();
            std::thread::spawn(move || {
                for round in 0..5 {
                    credentials::save_key(&h, &format!("p{i}"), &format!("k{i}-{round}")).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let list = credentials::list(&h).unwrap();
    assert_eq!(list.len(), 16, "{list:?}");
    for i in 0..16 {
        assert!(list.contains(&(format!("p{i}"), Stored::Key(format!("k{i}-4")))));
    }
    let leftovers: Vec<_> = std::fs::read_dir(&h)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn model_list_probe_sends_the_key_and_reports_rejection() {
    let server = LlmServer::start().await.unwrap();
    server.push(Script::json(
        200,
        r#"{"data":[{"id":"claude-a","type":"model"},{"id":"claude-b"}],"has_more":false}"#,
    ));
    server.push(Script::json(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    ));
    server.push(Script::raw_sse("<html><body>Sign in</body></html>").with_status(200));
    let none = |_: &str| None;
    let home = tempfile::tempdir().unwrap();
    let mut o = opts("anthropic");
    o.base_url = Some(server.url());
    o.api_key = Some("sk-ant-probe".into());
    let cfg = resolve(&o, &none, home.path()).unwrap();
    let models = list_models(&cfg, Duration::from_secs(5)).await.unwrap();
    assert_eq!(models.len(), 2);
    let req = &server.requests()[0];
    assert_eq!(req.method, "GET");
    assert!(req.path.starts_with("/v1/models"), "{}", req.path);
    assert_eq!(req.header("x-api-key"), Some("sk-ant-probe"));
    match list_models(&cfg, Duration::from_secs(5)).await {
        Err(ProviderError::Http {
            status: 401,
            message,
            ..
        }) => {
            assert!(message.contains("invalid x-api-key"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let e = list_models(&cfg, Duration::from_secs(5)).await.unwrap_err();
    assert!(e.to_string().contains("not JSON"), "{e}");
}
