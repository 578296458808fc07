//! `python` with real interpreters: discovery (config, ./.venv, PATH),
//! output bounds, timeouts, children, stdin.

use std::path::{Path, PathBuf};

use serde_json::json;
use zut_tools::ToolContext;

use crate::common::*;

/// `python3` on PATH, or `None` (and a message) when missing outside CI.
fn python3() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("python3"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 is required in CI"
        );
        eprintln!("python3 not found: skipping");
    }
    found
}

async fn py(dir: &Path, code: &str, timeout: u64) -> zut_tools::ToolOutput {
    call("python", json!({"code": code, "timeout": timeout}), dir).await
}

fn full_output_path(text: &str) -> PathBuf {
    let start = text.find("(full output: ").expect("full output path") + "(full output: ".len();
    let end = text[start..].find(')').unwrap() + start;
    PathBuf::from(&text[start..end])
}

#[tokio::test]
async fn runs_code_and_reports_the_interpreter() {
    let Some(_) = python3() else { return };
    let d = tempfile::tempdir().unwrap();
    let out = py(
        d.path(),
        "import os, sys\nprint('cwd', os.getcwd())\nprint('err', file=sys.stderr)\n",
        10,
    )
    .await;
    let text = ok_text(&out);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("python 3."), "{text}");
    assert!(
        text.contains(&format!(
            "cwd {}",
            d.path().canonicalize().unwrap().display()
        )) || text.contains(&format!("cwd {}", d.path().display())),
        "{text}"
    );
    assert!(text.contains("\nerr\n"), "{text}");
    assert!(text.ends_with("\n\n[exit 0]"), "{text}");
    let out = py(d.path(), "raise SystemExit(3)", 10).await;
    assert!(err_text(&out).ends_with("[exit 3]"));
}

#[tokio::test]
async fn a_local_venv_is_preferred_over_path() {
    let Some(py3) = python3() else { return };
    let d = tempfile::tempdir().unwrap();
    let status = std::process::Command::new(&py3)
        .args(["-m", "venv", "--without-pip", ".venv"])
        .current_dir(d.path())
        .status()
        .unwrap();
    if !status.success() {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 -m venv failed in CI"
        );
        eprintln!("python3 -m venv unavailable: skipping");
        return;
    }
    if std::env::var_os("VIRTUAL_ENV").is_some() {
        eprintln!("VIRTUAL_ENV is set in the test environment: it wins; skipping");
        return;
    }
    let out = py(d.path(), "import sys; print(sys.prefix)", 20).await;
    let text = ok_text(&out);
    let venv = d.path().join(".venv");
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(&venv.join("bin/python").display().to_string()),
        "{text}"
    );
    assert!(text.contains(&venv.display().to_string()), "{text}");
    // A .venv without an interpreter is an error, not a fall-through.
    let broken = tempfile::tempdir().unwrap();
    std::fs::create_dir(broken.path().join(".venv")).unwrap();
    let text = err_text(&py(broken.path(), "print(1)", 10).await);
    assert!(text.starts_with("local .venv at"), "{text}");
    assert!(
        text.contains("zut never installs Python or packages"),
        "{text}"
    );
}

#[tokio::test]
async fn the_configured_interpreter_fails_closed() {
    let Some(py3) = python3() else { return };
    let d = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(d.path()).with_python_interpreter("missing/python");
    let out = call_ctx("python", json!({"code": "print(1)", "timeout": 5}), &ctx).await;
    let text = err_text(&out);
    assert!(text.starts_with("python_interpreter \""), "{text}");
    assert!(
        text.contains("is not usable: executable not found"),
        "{text}"
    );
    // Not Python 3: a script that answers like Python 2.
    let fake = d.path().join("py2");
    std::fs::write(&fake, "#!/bin/sh\necho '[2, 7, 18]'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ctx = ToolContext::new(d.path()).with_python_interpreter(&fake);
    let text = err_text(&call_ctx("python", json!({"code": "print(1)", "timeout": 5}), &ctx).await);
    assert!(text.contains("not Python 3"), "{text}");
    let ctx = ToolContext::new(d.path()).with_python_interpreter(&py3);
    let text =
        ok_text(&call_ctx("python", json!({"code": "print(6*7)", "timeout": 5}), &ctx).await);
    assert!(text.contains("\n42\n"), "{text}");
}

#[tokio::test]
async fn an_endless_loop_times_out() {
    let Some(_) = python3() else { return };
    let d = tempfile::tempdir().unwrap();
    let out = py(
        d.path(),
        "print('start', flush=True)\nwhile True: pass\n",
        5,
    )
    .await;
    let text = err_text(&out);
    assert!(text.contains("start"), "{text}");
    assert!(text.ends_with("[timed out after 5 seconds]"), "{text}");
}

#[tokio::test]
async fn a_flood_of_output_is_bounded_and_saved() {
    let Some(_) = python3() else { return };
    let d = tempfile::tempdir().unwrap();
    let code =
        "import sys\nline = 'x' * 99 + '\\n'\nfor _ in range(1_000_000): sys.stdout.write(line)\n";
    let out = py(d.path(), code, 120).await;
    let text = ok_text(&out);
    assert!(text.len() < 60 * 1024, "{}", text.len());
    assert!(
        text.contains("... [truncated at 51200 bytes]"),
        "{}",
        &text[text.len() - 300..]
    );
    let path = full_output_path(&text);
    let size = std::fs::metadata(&path).unwrap().len();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(size, 32 * 1024 * 1024, "the saved output is capped");
    // Many short lines: the line cap.
    let out = py(d.path(), "for i in range(2500): print(i)", 30).await;
    let text = ok_text(&out);
    assert!(
        text.contains("\n1999\n... [truncated at 2000 lines]\n"),
        "{}",
        &text[text.len() - 300..]
    );
    let path = full_output_path(&text);
    let saved = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(saved.ends_with("2499\n"));
}

#[tokio::test]
async fn children_are_killed_and_stdin_is_empty() {
    let Some(_) = python3() else { return };
    let d = tempfile::tempdir().unwrap();
    let pidfile = d.path().join("child.pid");
    let code = format!(
        "import subprocess, sys\n\
         print(repr(sys.stdin.read()))\n\
         p = subprocess.Popen(['sleep', '300'], stdout=subprocess.DEVNULL)\n\
         open({:?}, 'w').write(str(p.pid) + '\\n')\n\
         print('spawned', flush=True)\n",
        pidfile.display().to_string()
    );
    let out = py(d.path(), &code, 20).await;
    let text = ok_text(&out);
    assert!(text.contains("\n''\nspawned\n"), "{text}");
    assert!(text.contains("[exit 0] [cleanup: "), "{text}");
    let pid: i32 = wait_for_line(&pidfile).await.parse().unwrap();
    assert_process_dies(pid).await;

    // A child that keeps the output pipe open and a timeout: all killed.
    let pidfile = d.path().join("child2.pid");
    let code = format!(
        "import subprocess, time\n\
         p = subprocess.Popen(['sleep', '300'])\n\
         open({:?}, 'w').write(str(p.pid) + '\\n')\n\
         time.sleep(300)\n",
        pidfile.display().to_string()
    );
    let out = py(d.path(), &code, 2).await;
    assert!(err_text(&out).contains("[timed out after 2 seconds]"));
    let pid: i32 = wait_for_line(&pidfile).await.parse().unwrap();
    assert_process_dies(pid).await;
}

#[tokio::test]
async fn argument_errors_use_the_go_texts() {
    let d = tempfile::tempdir().unwrap();
    let text = err_text(&call("python", json!({"code": " ", "timeout": 5}), d.path()).await);
    assert_eq!(text, "code is required");
    let text = err_text(&call("python", json!({"code": "print(1)"}), d.path()).await);
    assert!(text.contains("timeout"), "{text}");
    let text = err_text(
        &call(
            "python",
            json!({"code": "print(1)", "timeout": 0}),
            d.path(),
        )
        .await,
    );
    assert!(text.contains("timeout"), "{text}");
}
