//! Group B: manifests, discovery, shadowing, exec resolution, spawn
//! failures; plus the default timers.

use std::time::Duration;

use serde_json::json;
use zut_ext_host::{HostConfig, Planned, Scope, Timeouts, ZutHome};
use zut_test_support::{install_example, write_executable, write_manifest, TestEnv};

use crate::common::*;

/// The body of a sh extension answering every tool call with `reply`.
fn sh_tool(name: &str, reply: &str) -> String {
    format!(
        "echo '{{\"type\":\"hello\",\"protocol_version\":2,\"name\":\"{name}\"}}'\n\
         echo '{{\"type\":\"register_tool\",\"name\":\"{name}_t\"}}'\n\
         echo '{{\"type\":\"ready\"}}'\n\
         read ack\n\
         while read line; do\n  case \"$line\" in *tool_call*)\n\
         \x20   id=$(echo \"$line\" | sed 's/.*\"id\":\"\\([^\"]*\\)\".*/\\1/')\n\
         \x20   echo \"{{\\\"type\\\":\\\"tool_result\\\",\\\"id\\\":\\\"$id\\\",\\\"content\\\":[{{\\\"type\\\":\\\"text\\\",\\\"text\\\":\\\"{reply}\\\"}}]}}\";;\n\
         \x20 esac\ndone"
    )
}

#[test]
fn default_timeouts_match_the_spec() {
    let t = Timeouts::default();
    assert_eq!(t.hello, Duration::from_secs(10));
    assert_eq!(t.exit_before_hello, Duration::from_secs(1));
    assert_eq!(t.auto_ready_idle, Duration::from_millis(250));
    assert_eq!(t.ready, Duration::from_secs(3));
    assert_eq!(t.command, Duration::from_secs(30));
    assert_eq!(t.tool, Duration::from_secs(60));
    assert_eq!(t.intercept, Duration::from_secs(5));
    assert_eq!(t.shutdown_grace, Duration::from_secs(2));
    assert_eq!(t.term_to_kill, Duration::from_secs(1));
    let cfg = HostConfig::new(ZutHome::new("/h"), "/p");
    assert_eq!(cfg.timeouts.tool, Duration::from_secs(60));
}

#[tokio::test]
async fn b1_b8_global_sh_extension_runs_in_its_directory() {
    let env = TestEnv::new();
    let dir = env.global_dir("mock");
    write_executable(
        &dir,
        "run.sh",
        &format!("#!/bin/sh\npwd > where\n{}", sh_tool("mock", "from sh")),
    );
    write_manifest(&dir, &json!({"name": "mock", "exec": "./run.sh"}));
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    assert_eq!(
        std::fs::read_to_string(dir.join("where")).unwrap().trim(),
        dir.display().to_string()
    );
    assert_eq!(
        run.host.call_tool("mock_t", json!({})).await.text(),
        "from sh"
    );
    let r = run.report_of("mock");
    assert_eq!(r.scope, Scope::Global);
    assert_eq!(r.exec, "./run.sh");
    run.stop().await;
}

#[tokio::test]
async fn b8_exec_forms_and_args_without_shell_expansion() {
    let env = TestEnv::new();
    // bin/run relative to the directory, with args kept verbatim.
    let rel = env.global_dir("rel");
    write_executable(
        &rel.join("bin"),
        "run",
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > args\n{}",
            sh_tool("rel", "rel")
        ),
    );
    write_manifest(
        &rel,
        &json!({"name": "rel", "exec": "bin/run", "args": ["$HOME", "a b", "*"]}),
    );
    // Absolute exec.
    let abs = env.global_dir("abs");
    let script = write_executable(
        &env.project.join("elsewhere"),
        "abs.sh",
        &format!("#!/bin/sh\n{}", sh_tool("abs", "abs")),
    );
    write_manifest(
        &abs,
        &json!({"name": "abs", "exec": script.display().to_string()}),
    );
    // Bare word looked up on PATH (sh), script passed as an argument.
    let bare = env.global_dir("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(bare.join("ext.sh"), sh_tool("bare", "bare")).unwrap();
    write_manifest(
        &bare,
        &json!({"name": "bare", "exec": "sh", "args": ["ext.sh"]}),
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    assert_eq!(
        std::fs::read_to_string(rel.join("args")).unwrap(),
        "$HOME\na b\n*\n"
    );
    for n in ["rel", "abs", "bare"] {
        assert_eq!(
            run.host
                .call_tool(&format!("{n}_t"), json!({}))
                .await
                .text(),
            n
        );
    }
    run.stop().await;
}

#[tokio::test]
async fn b8_node_on_path_runs_the_clock_example() {
    if std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("node not installed; skipping");
        return;
    }
    let env = TestEnv::new();
    zut_test_support::install_script_example("clock", &env.global_dir("clock"));
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let reply = run.host.invoke_command("clock", "utc").await.unwrap();
    assert!(reply.response.display.contains("(UTC)"), "{reply:?}");
    let reply = run.host.invoke_command("timers", "").await.unwrap();
    assert_eq!(reply.response.display, "No timers running.");
    run.stop().await;
}

#[tokio::test]
async fn b2_b3_b5_b6_planning_disabled_invalid_shadowed_duplicates() {
    let env = TestEnv::new();
    write_manifest(
        &env.global_dir("off"),
        &json!({"name": "off", "exec": "./x", "enabled": false}),
    );
    write_manifest(&env.global_dir("noname"), &json!({"exec": "./x"}));
    std::fs::create_dir_all(env.global_dir("badjson")).unwrap();
    std::fs::write(env.global_dir("badjson").join("extension.json"), "{nope").unwrap();
    write_manifest(&env.global_dir("noexec"), &json!({"name": "noexec"}));
    std::fs::create_dir_all(env.global_dir("empty-dir")).unwrap();
    echo_ext(&env.global_dir(".hidden"), "hidden", &["hidden_t"]);
    // Same directory name in both scopes: the project one wins.
    echo_ext(&env.project_dir("dup"), "dup-project", &["p"]);
    echo_ext(&env.global_dir("dup"), "dup-global", &["g"]);
    // Same manifest name in two directories: first in load order wins.
    let first = echo_ext(&env.project_dir("same-a"), "same", &["sa"]);
    let second = echo_ext(&env.global_dir("same-b"), "same", &["sb"]);
    // A directory without a manifest shadows nothing.
    std::fs::create_dir_all(env.project_dir("ghost")).unwrap();
    echo_ext(&env.global_dir("ghost"), "ghost", &["gh"]);
    let run = Run::start(env, |_| {}).await;

    let errs = run.errors();
    assert_eq!(errs.len(), 3, "{errs:?}");
    let find = |dir: &str, needle: &str| {
        let d = run.env.global_dir(dir).display().to_string();
        assert!(
            errs.iter().any(|e| e.contains(&d) && e.contains(needle)),
            "{dir}: {needle} not in {errs:?}"
        );
    };
    find("noname", "name is required");
    find("badjson", "parse manifest");
    find("noexec", "exec is required");

    let mut names: Vec<String> = run.host.reports().into_iter().map(|r| r.name).collect();
    names.sort();
    assert_eq!(names, ["dup-project", "ghost", "same"]);
    assert!(!run.host.has_command("off"));
    assert!(run
        .report
        .planned
        .iter()
        .any(|p| matches!(p, Planned::Disabled(_, m) if m.name == "off")));
    assert!(run
        .report
        .planned
        .iter()
        .any(|p| matches!(p, Planned::Duplicate(c, m) if m.name == "same" && c.dir == second)));
    assert!(!run.report.planned.iter().any(|p| match p {
        Planned::Load(c, _)
        | Planned::Disabled(c, _)
        | Planned::Duplicate(c, _)
        | Planned::Invalid(c, _) => c.dir.ends_with(".hidden") || c.dir.ends_with("empty-dir"),
    }));
    assert_eq!(run.report.shadowed.len(), 1);
    assert_eq!(run.report.shadowed[0].dir, run.env.global_dir("dup"));
    assert_eq!(run.report_of("same").dir, first);
    assert!(
        !second.join("pid").exists(),
        "the duplicate was never spawned"
    );
    assert!(!run.env.global_dir("dup").join("pid").exists());
    assert_eq!(run.host.pids().len(), 3);
    run.stop().await;
}

#[tokio::test]
async fn b4_theme_only_extension_spawns_nothing() {
    let env = TestEnv::new();
    let dir = env.global_dir("theme");
    write_manifest(&dir, &json!({"name": "theme", "version": "2"}));
    std::fs::write(dir.join("theme.json"), "{\"name\": \"t\"}").unwrap();
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let r = run.report_of("theme");
    assert!(r.theme_only);
    assert_eq!(r.readiness, zut_ext_host::Readiness::Ready);
    assert!(r.log.is_none());
    assert!(run.host.pids().is_empty());
    assert!(!run.env.log_path("theme").exists());
    let report = {
        let mut run = run;
        let rep = run.host.reload().await;
        run.stop().await;
        rep
    };
    assert_eq!((report.stopped, report.loaded), (1, 1));
}

#[tokio::test]
async fn b7_ext_paths_win_and_no_ext_skips_discovery() {
    let env = TestEnv::new();
    echo_ext(&env.global_dir("weather"), "weather", &["installed"]);
    echo_ext(&env.project_dir("proj"), "proj", &["p"]);
    let dev = env.project.join("dev");
    echo_ext(&dev, "weather", &["dev"]);
    let run = Run::start(env, |c| c.ext_paths = vec![dev.clone()]).await;
    let r = run.report_of("weather");
    assert_eq!(r.scope, Scope::Cli);
    assert_eq!(r.dir, dev);
    assert_eq!(
        received_of(&dev, "hello_ack")[0]["extension_dir"],
        dev.display().to_string()
    );
    assert!(run.host.tools().iter().any(|t| t.name == "dev"));
    assert!(!run.host.tools().iter().any(|t| t.name == "installed"));
    run.stop().await;
    let run = Run::start(run.env, |c| {
        c.ext_paths = vec![dev.clone()];
        c.no_ext = true;
    })
    .await;
    let names: Vec<String> = run.host.reports().into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["weather"]);
    run.stop().await;
}

#[tokio::test]
async fn b9_spawn_failures() {
    let env = TestEnv::new();
    let dir = env.global_dir("py");
    write_manifest(
        &dir,
        &json!({"name": "py", "exec": "zut-no-such-runtime-3", "language": "python"}),
    );
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(msg.starts_with("Extension py failed to start.\n"), "{msg}");
    assert!(
        msg.contains("exec: \"zut-no-such-runtime-3\" (declared language: \"python\")"),
        "{msg}"
    );
    assert!(msg.contains("executable file not found"), "{msg}");
    assert_eq!(msg.matches(&dir.display().to_string()).count(), 1, "{msg}");

    // $ZUT_HOME/logs is a regular file: nothing is spawned.
    let env = run.env;
    let other = env.global_dir("logless");
    py_ext(
        &other,
        "logless",
        "hello()\nsend({'type': 'ready'})\nserve()",
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::fs::remove_dir_all(env.home.join("logs"));
    std::fs::write(env.home.join("logs"), "not a dir").unwrap();
    let run = Run::start(env, |_| {}).await;
    let msg = run.errors().join("\n");
    assert!(msg.contains("open log"), "{msg}");
    assert!(msg.contains(&other.display().to_string()), "{msg}");
    assert!(!other.join("pid").exists(), "nothing spawned");
    assert!(run.host.reports().is_empty());
}

/// A global sh extension `busy` (tool `busy_t` answers `ok`) and an open
/// write handle on its executable.
fn busy_extension() -> (TestEnv, std::fs::File) {
    let env = TestEnv::new();
    let dir = env.global_dir("busy");
    let script = write_executable(
        &dir,
        "run.sh",
        &format!("#!/bin/sh\n{}", sh_tool("busy", "ok")),
    );
    write_manifest(&dir, &json!({"name": "busy", "exec": "./run.sh"}));
    let writer = std::fs::OpenOptions::new()
        .append(true)
        .open(&script)
        .unwrap();
    (env, writer)
}

#[tokio::test]
async fn an_executable_still_open_for_writing_is_retried_then_reported() {
    // Held open for writing during the whole start-up: ETXTBSY on every
    // try, then a load error that says why.
    let (env, writer) = busy_extension();
    let run = Run::start(env, |_| {}).await;
    drop(writer);
    let msg = run.errors().join("\n");
    assert!(msg.contains("Text file busy"), "{msg}");
    assert!(msg.contains("still open for writing"), "{msg}");
    let log = std::fs::read_to_string(run.env.home.join("logs/ext-busy.log")).unwrap();
    assert_eq!(log.matches("; retrying in ").count(), 6, "{log}");
    assert!(run.host.reports().is_empty());
    run.stop().await;

    // Closed shortly after start-up began: a retry (or the first try, if
    // the host started late) succeeds and the extension works.
    let (env, writer) = busy_extension();
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        drop(writer);
    });
    let run = Run::start(env, |_| {}).await;
    closer.join().unwrap();
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    assert_eq!(run.host.call_tool("busy_t", json!({})).await.text(), "ok");
    run.stop().await;
}

#[tokio::test]
async fn b10_xdg_state_home_locates_extensions_and_logs() {
    let env = TestEnv::new();
    let xdg = env.project.join("xdg");
    let home =
        ZutHome::from_vars(|k| (k == "XDG_STATE_HOME").then(|| xdg.clone().into_os_string()));
    echo_ext(&xdg.join("zut/extensions/x"), "x", &["xt"]);
    let mut cfg = config(&env);
    cfg.home = home;
    let (tx, rx) = zut_ext_host::ui_channel();
    drain_into(rx, Ui::default());
    let (host, report) = zut_ext_host::ExtensionHost::start(cfg, tx).await;
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(host.call_tool("xt", json!({})).await.text(), "xt:{}");
    host.shutdown().await;
    assert!(xdg.join("zut/logs/ext-x.log").is_file());
}

#[tokio::test]
async fn rust_sdk_examples_load_and_answer() {
    let env = TestEnv::new();
    install_example("hello", &env.global_dir("hello"));
    install_example("todo", &env.global_dir("todo"));
    zut_test_support::install_script_example("hello-py", &env.global_dir("hello-py"));
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let out = run.host.call_tool("greet", json!({"name": "Ada"})).await;
    assert_eq!(out.text(), "Hello, Ada!");
    assert!(run.host.has_command("hello"));
    let cwd = run.host.invoke_command("cwd", "").await.unwrap();
    assert_eq!(cwd.response.display, run.env.project.display().to_string());
    let py = run.host.invoke_command("HelloPy", "").await.unwrap();
    assert_eq!(py.response.action, "prompt");
    assert_eq!(py.extension, "hello-py");
    assert_eq!(
        run.report_of("todo-panel").readiness,
        zut_ext_host::Readiness::Ready
    );
    assert_eq!(
        run.report_of("hello-py").readiness,
        zut_ext_host::Readiness::Ready
    );
    run.stop().await;
}

#[tokio::test]
async fn unsafe_names_and_symlinked_directories_are_not_loaded() {
    let env = TestEnv::new();
    for (dir, name) in [
        ("ws", " whitespace-name "),
        ("dot", ".example"),
        ("slash", "a/b"),
    ] {
        write_manifest(&env.global_dir(dir), &json!({"name": name, "exec": "./x"}));
    }
    let real = echo_ext(&env.project.join("real"), "linked", &["l"]);
    std::os::unix::fs::symlink(&real, env.global_dir("link")).unwrap();
    let run = Run::start(env, |_| {}).await;
    let errs = run.errors();
    assert_eq!(errs.len(), 3, "{errs:?}");
    assert!(
        errs.iter()
            .any(|e| e.contains("leading or trailing whitespace")),
        "{errs:?}"
    );
    assert_eq!(
        errs.iter()
            .filter(|e| e.contains("invalid extension name"))
            .count(),
        2,
        "{errs:?}"
    );
    assert!(
        run.host.reports().is_empty(),
        "symlinked directories are not followed"
    );
    assert!(!real.join("pid").exists());
}

/// Issue 2 / N2 (host side): `skills` paths escaping the extension
/// directory are rejected with `skill:` warnings; the extension loads.
#[tokio::test]
async fn skill_paths_escaping_the_directory_are_warnings_not_failures() {
    let env = TestEnv::new();
    let dir = env.global_dir("bundle");
    let outside = env.home.join("outside");
    std::fs::create_dir_all(dir.join("skills/phases")).unwrap();
    std::fs::create_dir_all(dir.join("sneaky")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        dir.join("skills/phases/SKILL.md"),
        "---\nname: phases\n---\n",
    )
    .unwrap();
    std::fs::write(outside.join("SKILL.md"), "x").unwrap();
    std::os::unix::fs::symlink(outside.join("SKILL.md"), dir.join("sneaky/SKILL.md")).unwrap();
    echo_ext(&dir, "bundle", &["b"]);
    write_manifest(
        &dir,
        &json!({"name": "bundle", "exec": "./ext.py",
                "skills": ["skills", "../outside", "", "/abs", "sneaky"]}),
    );
    let run = Run::start(env, |_| {}).await;
    assert!(run.report.errors.is_empty(), "{:?}", run.errors());
    let r = run.report_of("bundle");
    assert_eq!(r.readiness, zut_ext_host::Readiness::Ready);
    let real = std::fs::canonicalize(&dir).unwrap();
    assert_eq!(r.skill_files, vec![real.join("skills/phases/SKILL.md")]);
    for needle in [
        "skill: skill path \"../outside\" escapes the extension directory",
        "skill: skill path \"\" must be a relative directory",
        "skill: skill path \"/abs\" must be a relative directory",
        "sneaky/SKILL.md: resolved path escapes bundled extension directory",
    ] {
        assert!(has_diag(&r, needle), "{needle}: {:?}", r.diagnostics);
        assert!(run.env.log("bundle").contains(needle), "{needle}");
    }
    assert_eq!(run.host.call_tool("b", json!({})).await.text(), "b:{}");
    run.stop().await;
}
