//! `zut ext remove|enable|disable|logs` (L13–L15) and path-traversal guards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;
use std::io::Read;
use std::process::Stdio;

#[test]
fn l13_enable_disable_round_trip_preserving_the_file() {
    let env = TestEnv::new();
    let dir = env.global_dir("x");
    std::fs::create_dir_all(&dir).unwrap();
    let original = "{\n  \"name\": \"x\",\n  \"zeta\": 1.50,\n  \"exec\": \"node\",\n  \"enabled\": false,\n  \"args\": [\"a\"]\n}\n";
    std::fs::write(dir.join("extension.json"), original).unwrap();
    let r = zut(&env, &["ext", "enable", "x"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stderr, "enabled x\n");
    let text = std::fs::read_to_string(dir.join("extension.json")).unwrap();
    assert_eq!(
        text,
        original.replace("\"enabled\": false", "\"enabled\": true")
    );
    // Idempotent.
    assert_eq!(zut(&env, &["ext", "enable", "x"]).code, 0);
    assert_eq!(
        std::fs::read_to_string(dir.join("extension.json")).unwrap(),
        text
    );
    let r = zut(&env, &["ext", "disable", "x"]);
    assert_eq!(r.stderr, "disabled x\n");
    assert_eq!(
        std::fs::read_to_string(dir.join("extension.json")).unwrap(),
        original
    );
    // Listed as disabled.
    assert!(zut(&env, &["ext", "list"]).stdout.contains(" no "));
}

#[test]
fn l13_missing_enabled_key_is_appended_in_style() {
    let env = TestEnv::new();
    let dir = env.project_dir("p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("extension.json"),
        "{\n    \"name\": \"p\",\n    \"exec\": \"node\"\n}",
    )
    .unwrap();
    assert_eq!(zut(&env, &["ext", "disable", "p"]).code, 0);
    assert_eq!(
        std::fs::read_to_string(dir.join("extension.json")).unwrap(),
        "{\n    \"name\": \"p\",\n    \"exec\": \"node\",\n    \"enabled\": false\n}\n"
    );
    assert_eq!(
        installed(&env),
        Vec::<String>::new(),
        "nothing written globally"
    );
    assert!(
        std::fs::read_dir(&dir).unwrap().count() == 1,
        "no temp file left"
    );
}

#[test]
fn l13_errors() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "enable", "x"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("zut: extension \"x\" not found"), "{r:?}");
    let r = zut(&env, &["ext", "disable"]);
    assert!(
        r.stderr.contains("zut: usage: zut ext disable <name>"),
        "{r:?}"
    );
    let r = zut(&env, &["ext", "enable"]);
    assert!(
        r.stderr.contains("zut: usage: zut ext enable <name>"),
        "{r:?}"
    );
    std::fs::create_dir_all(env.global_dir("bad")).unwrap();
    std::fs::write(env.global_dir("bad").join("extension.json"), "{oops").unwrap();
    let r = zut(&env, &["ext", "disable", "bad"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("zut: parse manifest:"), "{r:?}");
    assert_eq!(
        std::fs::read_to_string(env.global_dir("bad").join("extension.json")).unwrap(),
        "{oops"
    );
}

#[test]
fn lookup_project_first_then_manifest_name() {
    let env = TestEnv::new();
    write_manifest(
        &env.project_dir("same"),
        &json!({"name": "same", "exec": "node"}),
    );
    write_manifest(
        &env.global_dir("same"),
        &json!({"name": "same", "exec": "node"}),
    );
    assert_eq!(zut(&env, &["ext", "disable", "same"]).code, 0);
    let p: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.project_dir("same").join("extension.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(p["enabled"], json!(false));
    assert!(
        !std::fs::read_to_string(env.global_dir("same").join("extension.json"))
            .unwrap()
            .contains("enabled")
    );
    // Manifest name when no directory name matches.
    write_manifest(
        &env.global_dir("todo"),
        &json!({"name": "todo-panel", "exec": "node"}),
    );
    let r = zut(&env, &["ext", "remove", "-y", "todo-panel"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!env.global_dir("todo").exists());
}

#[test]
fn l14_remove_prompt_and_yes() {
    let env = TestEnv::new();
    let dir = env.global_dir("x");
    write_manifest(&dir, &json!({"name": "x", "exec": "node"}));
    for answer in ["n\n", "", "yes\n", "\n"] {
        let r = zut_stdin(&env, &["ext", "remove", "x"], answer);
        assert_eq!(r.code, 0, "{answer:?} {r:?}");
        assert!(
            r.stderr
                .contains(&format!("remove {} ? [y/N] ", dir.display())),
            "{r:?}"
        );
        assert!(r.stderr.contains("aborted"), "{r:?}");
        assert!(dir.is_dir());
    }
    let r = zut_stdin(&env, &["ext", "rm", "x"], "Y\n");
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains(&format!("removed {}", dir.display())));
    assert!(!dir.exists());
    write_manifest(&dir, &json!({"name": "x", "exec": "node"}));
    let r = zut(&env, &["ext", "remove", "x", "--yes"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stderr, format!("removed {}\n", dir.display()));
    assert!(!dir.exists());
    let r = zut(&env, &["ext", "remove"]);
    assert!(
        r.stderr
            .contains("zut: usage: zut ext remove <name> [--yes]"),
        "{r:?}"
    );
    let r = zut(&env, &["ext", "remove", "nope", "-y"]);
    assert!(
        r.stderr.contains("zut: extension \"nope\" not found"),
        "{r:?}"
    );
}

#[test]
fn path_traversal_is_refused() {
    let env = TestEnv::new();
    // A victim directory next to extensions/ that looks like an extension.
    let victim = env.home.join("victim");
    write_manifest(&victim, &json!({"name": "victim", "exec": "node"}));
    for name in ["../victim", "..", ".", "a/b", ".hidden"] {
        let r = zut(&env, &["ext", "remove", "-y", name]);
        assert_eq!(r.code, 1, "{name}: {r:?}");
        assert!(r.stderr.contains("invalid extension name"), "{r:?}");
        assert_eq!(zut(&env, &["ext", "disable", name]).code, 1);
    }
    assert!(victim.join("extension.json").is_file());
    assert!(!std::fs::read_to_string(victim.join("extension.json"))
        .unwrap()
        .contains("enabled"));
    // A symlinked directory in a scope is not an extension for lookup.
    std::os::unix::fs::symlink(&victim, env.global_dir("link")).unwrap();
    let r = zut(&env, &["ext", "remove", "-y", "link"]);
    assert!(r.stderr.contains("not found"), "{r:?}");
    assert!(victim.is_dir());
    // A manifest claiming the name ".." cannot be addressed either.
    write_manifest(
        &env.global_dir("evil"),
        &json!({"name": "..", "exec": "node"}),
    );
    assert_eq!(zut(&env, &["ext", "remove", "-y", ".."]).code, 1);
    assert!(env.global_dir("evil").is_dir() && env.home.join("extensions").is_dir());
    // logs ../x
    std::fs::create_dir_all(env.home.join("logs")).unwrap();
    std::fs::write(env.home.join("ext-x.log"), "secret").unwrap();
    let r = zut(&env, &["ext", "logs", "../x"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("invalid extension name"), "{r:?}");
    assert!(!r.stdout.contains("secret"));
}

#[test]
fn l15_logs() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "logs", "x"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains(&format!(
            "zut: no log for \"x\" at {}",
            env.log_path("x").display()
        )),
        "{r:?}"
    );
    std::fs::create_dir_all(env.home.join("logs")).unwrap();
    std::fs::write(env.log_path("x"), "line 1\nline 2\n").unwrap();
    let r = zut(&env, &["ext", "logs", "x"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "line 1\nline 2\n");
    let r = zut(&env, &["ext", "logs"]);
    assert!(
        r.stderr.contains("zut: usage: zut ext logs <name> [-f]"),
        "{r:?}"
    );
}

#[test]
fn l15_logs_follow_survives_truncation_and_recreation_and_ends_on_ctrl_c() {
    let env = TestEnv::new();
    std::fs::create_dir_all(env.home.join("logs")).unwrap();
    let log = env.log_path("x");
    let backlog: String = (1..=15).map(|i| format!("old {i}\n")).collect();
    std::fs::write(&log, backlog).unwrap();
    let mut child = zut_cmd(&env, &["ext", "logs", "x", "-f"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let collected = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = collected.clone();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => sink
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n])),
            }
        }
    });
    let seen = |s: &str| collected.lock().unwrap().contains(s);
    assert!(wait_until(10, || seen("old 15\n")));
    assert!(
        !seen("old 5\n"),
        "only the last 10 lines: {}",
        collected.lock().unwrap()
    );
    assert!(seen("old 6\n"));
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all(b"appended\n")
        .unwrap();
    assert!(wait_until(10, || seen("appended\n")));
    std::fs::write(&log, "after truncate\n").unwrap();
    assert!(wait_until(10, || seen("after truncate\n")));
    std::fs::remove_file(&log).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    std::fs::write(&log, "recreated\n").unwrap();
    assert!(
        wait_until(10, || seen("recreated\n")),
        "{}",
        collected.lock().unwrap()
    );
    send_signal(child.id(), "INT");
    assert!(
        wait_until(10, || child.try_wait().unwrap().is_some()),
        "follow did not stop"
    );
    assert_eq!(child.wait().unwrap().code(), Some(0));
    reader.join().unwrap();
}
