//! `zut update` (L17): no self-update channel in this build, then the
//! extension pass over `$ZUT_HOME/extensions` against real git
//! repositories — a bare upstream, a clone installed as the extension, and
//! a second clone that pushes new commits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment for every git run (tests and zut): no system or user
/// configuration, a fixed identity.
const GIT_ENV: [(&str, &str); 7] = [
    ("GIT_CONFIG_NOSYSTEM", "1"),
    ("GIT_CONFIG_GLOBAL", "/dev/null"),
    ("GIT_AUTHOR_NAME", "t"),
    ("GIT_AUTHOR_EMAIL", "t@t"),
    ("GIT_COMMITTER_NAME", "t"),
    ("GIT_COMMITTER_EMAIL", "t@t"),
    ("GIT_TERMINAL_PROMPT", "0"),
];

fn git_cmd(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args([
        "-c",
        "commit.gpgsign=false",
        "-c",
        "advice.detachedHead=false",
    ])
    .args(args)
    .current_dir(dir)
    .envs(GIT_ENV);
    cmd
}

/// Runs git, asserts success, returns trimmed stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_cmd(dir, args).output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A bare upstream repository and a working clone that pushes to it.
struct Upstream {
    bare: PathBuf,
    work: PathBuf,
}

impl Upstream {
    /// `<sources>/<name>.git` with one commit: an extension manifest
    /// (`manifest`) plus `files`.
    fn new(env: &TestEnv, name: &str, manifest: serde_json::Value, files: &[(&str, &str)]) -> Self {
        let work = source_dir(env, &format!("{name}-work"));
        write_manifest(&work, &manifest);
        for (file, body) in files {
            if file.ends_with(".sh") {
                write_executable(&work, file, body);
            } else {
                std::fs::write(work.join(file), body).unwrap();
            }
        }
        git(&work, &["init", "-q", "-b", "main"]);
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-m", "init"]);
        let bare = work.parent().unwrap().join(format!("{name}.git"));
        git(
            &work,
            &["clone", "-q", "--bare", ".", bare.to_str().unwrap()],
        );
        git(&work, &["remote", "add", "origin", bare.to_str().unwrap()]);
        git(&work, &["fetch", "-q", "origin"]);
        git(&work, &["branch", "-q", "--set-upstream-to=origin/main"]);
        Self { bare, work }
    }

    /// An ordinary extension called `name`.
    fn extension(env: &TestEnv, name: &str) -> Self {
        Self::new(
            env,
            name,
            json!({"name": name, "exec": "./run.sh"}),
            &[("run.sh", "#!/bin/sh\n"), ("notes.txt", "one\n")],
        )
    }

    /// Commits `body` to `file` and pushes it upstream.
    fn push(&self, file: &str, body: &str) -> String {
        std::fs::write(self.work.join(file), body).unwrap();
        git(&self.work, &["add", "-A"]);
        git(
            &self.work,
            &["commit", "-q", "-m", &format!("change {file}")],
        );
        git(&self.work, &["push", "-q", "origin", "main"]);
        git(&self.work, &["rev-parse", "HEAD"])
    }

    /// Clones upstream into `$ZUT_HOME/extensions/<dir_name>`.
    fn install(&self, env: &TestEnv, dir_name: &str) -> PathBuf {
        let dest = env.global_dir(dir_name);
        git(
            &env.home,
            &[
                "clone",
                "-q",
                self.bare.to_str().unwrap(),
                dest.to_str().unwrap(),
            ],
        );
        dest
    }
}

/// `zut <args>` with the test git environment.
fn zut_git(env: &TestEnv, args: &[&str]) -> Run {
    zut_cmd(env, args)
        .envs(GIT_ENV)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
        .into()
}

fn update(env: &TestEnv) -> Run {
    let r = zut_git(env, &["update"]);
    assert_eq!(r.code, 0, "the pass never errors: {r:?}");
    assert!(
        r.stderr
            .contains("self-update is not available in this build"),
        "{r:?}"
    );
    r
}

/// The line printed for `name`.
fn status_of<'a>(r: &'a Run, name: &str) -> &'a str {
    let prefix = format!("{name:<30} ");
    r.stdout
        .lines()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no line for {name:?} in {r:?}"))
}

fn summary(r: &Run) -> &str {
    r.stdout
        .lines()
        .last()
        .filter(|l| l.starts_with("zut update: extensions: "))
        .unwrap_or_else(|| panic!("no summary in {r:?}"))
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"])
}

fn stash_list(dir: &Path) -> String {
    git(dir, &["stash", "list"])
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn l17_empty_extensions_dir_prints_nothing() {
    let env = TestEnv::new();
    let r = update(&env);
    assert!(r.stdout.is_empty(), "{r:?}");

    // Dot directories and plain files are not extensions.
    std::fs::create_dir_all(env.global_dir(".hidden")).unwrap();
    std::fs::write(env.home.join("extensions/file.txt"), "x").unwrap();
    let r = update(&env);
    assert!(r.stdout.is_empty(), "{r:?}");

    // No extensions directory at all.
    std::fs::remove_dir_all(env.home.join("extensions")).unwrap();
    let r = update(&env);
    assert!(r.stdout.is_empty(), "{r:?}");
    assert_eq!(
        r.stderr.lines().count(),
        1,
        "only the self-update notice: {r:?}"
    );
}

#[test]
fn l17_skips_no_manifest_disabled_and_non_git_directories() {
    let env = TestEnv::new();
    // A git checkout without a manifest.
    let up = Upstream::extension(&env, "nomanifest");
    let nomanifest = up.install(&env, "nomanifest");
    std::fs::remove_file(nomanifest.join("extension.json")).unwrap();
    up.push("new.txt", "new\n");
    // A disabled git checkout with something new upstream.
    let up_disabled = Upstream::new(
        &env,
        "off",
        json!({"name": "off", "exec": "./run.sh", "enabled": false}),
        &[],
    );
    let disabled = up_disabled.install(&env, "off");
    let disabled_head = head(&disabled);
    up_disabled.push("new.txt", "new\n");
    // A copied (not cloned) extension.
    script_extension(&env.global_dir("plain"), "plain", "run.sh", "#!/bin/sh\n");

    let r = update(&env);
    assert_eq!(status_of(&r, "nomanifest"), "skipped: no extension.json");
    assert_eq!(status_of(&r, "off"), "skipped: disabled");
    assert_eq!(status_of(&r, "plain"), "skipped: not a git checkout");
    assert_eq!(
        summary(&r),
        "zut update: extensions: 0 updated, 0 up-to-date, 3 skipped, 0 failed"
    );
    assert!(!nomanifest.join("new.txt").exists());
    assert_eq!(head(&disabled), disabled_head);
    assert!(!disabled.join("new.txt").exists());
}

#[test]
fn l17_nothing_new_is_up_to_date_also_after_an_update() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "calm");
    let dir = up.install(&env, "calm");
    let r = update(&env);
    assert_eq!(
        r.stdout,
        format!(
            "\nzut update: updating extensions...\n{:<30} up-to-date\n\
             zut update: extensions: 0 updated, 1 up-to-date, 0 skipped, 0 failed\n",
            "calm"
        )
    );

    let new_head = up.push("notes.txt", "two\n");
    let r = update(&env);
    assert_eq!(status_of(&r, "calm"), "updated");
    assert_eq!(head(&dir), new_head);

    // A second pass has nothing new, although the reflog's previous entry
    // differs from HEAD.
    let r = update(&env);
    assert_eq!(status_of(&r, "calm"), "up-to-date", "{r:?}");
    assert_eq!(head(&dir), new_head);
}

#[test]
fn l17_new_upstream_commit_is_pulled_and_runtime_files_survive() {
    let env = TestEnv::new();
    let up = Upstream::new(
        &env,
        "busy",
        json!({"name": "busy", "exec": "./run.sh"}),
        &[
            ("run.sh", "#!/bin/sh\n"),
            (".gitignore", "*.log\n"),
            ("notes.txt", "one\n"),
            ("config.txt", "default\n"),
        ],
    );
    let dir = up.install(&env, "busy");
    // Runtime state: an untracked file and directory, an ignored file, and
    // a local edit to a file upstream does not touch.
    std::fs::write(dir.join("state.json"), "{\"count\": 3}\n").unwrap();
    std::fs::create_dir_all(dir.join("cache")).unwrap();
    std::fs::write(dir.join("cache/item"), "cached\n").unwrap();
    std::fs::write(dir.join("debug.log"), "log\n").unwrap();
    std::fs::write(dir.join("config.txt"), "local setting\n").unwrap();

    let new_head = up.push("feature.txt", "new feature\n");
    let r = update(&env);
    assert_eq!(status_of(&r, "busy"), "updated", "{r:?}");
    assert_eq!(
        summary(&r),
        "zut update: extensions: 1 updated, 0 up-to-date, 0 skipped, 0 failed"
    );
    assert_eq!(head(&dir), new_head);
    assert_eq!(read(&dir.join("feature.txt")), "new feature\n");
    assert_eq!(read(&dir.join("state.json")), "{\"count\": 3}\n");
    assert_eq!(read(&dir.join("cache/item")), "cached\n");
    assert_eq!(read(&dir.join("debug.log")), "log\n");
    assert_eq!(read(&dir.join("config.txt")), "local setting\n");
    assert_eq!(stash_list(&dir), "", "the stash entry was popped");
}

#[test]
fn l17_an_older_stash_entry_of_the_user_is_left_alone() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "stashy");
    let dir = up.install(&env, "stashy");
    std::fs::write(dir.join("notes.txt"), "user's own stash\n").unwrap();
    git(&dir, &["stash", "push", "-q", "-m", "mine"]);
    std::fs::write(dir.join("runtime.db"), "data\n").unwrap();
    up.push("feature.txt", "f\n");

    let r = update(&env);
    assert_eq!(status_of(&r, "stashy"), "updated", "{r:?}");
    assert_eq!(read(&dir.join("runtime.db")), "data\n");
    assert_eq!(read(&dir.join("notes.txt")), "one\n");
    let list = stash_list(&dir);
    assert_eq!(list.lines().count(), 1, "{list}");
    assert!(list.ends_with(": mine"), "{list}");
}

#[test]
fn l17_diverged_history_fails_and_local_changes_are_put_back() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "forked");
    let dir = up.install(&env, "forked");
    std::fs::write(dir.join("local.txt"), "local commit\n").unwrap();
    git(&dir, &["add", "local.txt"]);
    git(&dir, &["commit", "-q", "-m", "local"]);
    let local_head = head(&dir);
    std::fs::write(dir.join("state.json"), "{}\n").unwrap();
    up.push("notes.txt", "upstream\n");

    let r = update(&env);
    let status = status_of(&r, "forked");
    assert_eq!(
        status, "failed: fatal: Not possible to fast-forward, aborting.",
        "{r:?}"
    );
    assert!(!status.contains("hint:"));
    assert_eq!(head(&dir), local_head);
    assert_eq!(read(&dir.join("state.json")), "{}\n");
    assert_eq!(read(&dir.join("notes.txt")), "one\n");
    assert_eq!(stash_list(&dir), "");
    assert_eq!(
        summary(&r),
        "zut update: extensions: 0 updated, 0 up-to-date, 0 skipped, 1 failed"
    );
}

#[test]
fn l17_missing_remote_or_upstream_fails() {
    let env = TestEnv::new();
    // The remote repository is gone.
    let up = Upstream::extension(&env, "gone");
    let gone = up.install(&env, "gone");
    std::fs::remove_dir_all(&up.bare).unwrap();
    std::fs::write(gone.join("state.json"), "{}\n").unwrap();
    // No remote at all.
    let lonely = env.global_dir("lonely");
    script_extension(&lonely, "lonely", "run.sh", "#!/bin/sh\n");
    git(&lonely, &["init", "-q", "-b", "main"]);
    git(&lonely, &["add", "-A"]);
    git(&lonely, &["commit", "-q", "-m", "init"]);

    let r = update(&env);
    let gone_status = status_of(&r, "gone");
    assert!(
        gone_status.starts_with("failed: ")
            && gone_status.contains("does not appear to be a git repository"),
        "{r:?}"
    );
    let lonely_status = status_of(&r, "lonely");
    assert!(lonely_status.starts_with("failed: "), "{r:?}");
    assert!(!lonely_status.contains("hint:"), "{r:?}");
    assert_eq!(
        summary(&r),
        "zut update: extensions: 0 updated, 0 up-to-date, 0 skipped, 2 failed"
    );
    assert_eq!(read(&gone.join("state.json")), "{}\n");
    assert_eq!(stash_list(&gone), "");
}

#[test]
fn l17_conflicting_restore_is_a_warning_and_keeps_the_stash() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "clash");
    let dir = up.install(&env, "clash");
    std::fs::write(dir.join("notes.txt"), "local edit\n").unwrap();
    let new_head = up.push("notes.txt", "upstream edit\n");

    let r = update(&env);
    let status = status_of(&r, "clash");
    assert!(status.starts_with("warning: "), "{r:?}");
    assert!(
        status.contains("restoring local changes conflicted"),
        "{r:?}"
    );
    assert!(status.contains("zut-update-"), "{r:?}");
    assert_eq!(
        summary(&r),
        "zut update: extensions: 1 updated, 0 up-to-date, 0 skipped, 0 failed"
    );
    assert_eq!(head(&dir), new_head);
    let notes = read(&dir.join("notes.txt"));
    assert!(
        notes.contains("<<<<<<<") && notes.contains("local edit"),
        "{notes}"
    );
    assert!(stash_list(&dir).contains("zut-update-"));
}

#[test]
fn l17_summary_counts_every_kind_in_name_order() {
    let env = TestEnv::new();
    let a = Upstream::extension(&env, "a-new");
    a.install(&env, "a-new");
    a.push("x.txt", "x\n");
    Upstream::extension(&env, "b-same").install(&env, "b-same");
    std::fs::create_dir_all(env.global_dir("c-empty")).unwrap();
    let d = Upstream::extension(&env, "d-gone");
    d.install(&env, "d-gone");
    std::fs::remove_dir_all(&d.bare).unwrap();
    script_extension(&env.global_dir("e-copied"), "e", "run.sh", "#!/bin/sh\n");

    let r = update(&env);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "", "{r:?}");
    assert_eq!(lines[1], "zut update: updating extensions...");
    let names: Vec<&str> = lines[2..7]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, ["a-new", "b-same", "c-empty", "d-gone", "e-copied"]);
    assert_eq!(lines[2], format!("{:<30} updated", "a-new"));
    assert_eq!(lines[3], format!("{:<30} up-to-date", "b-same"));
    assert_eq!(
        lines[4],
        format!("{:<30} skipped: no extension.json", "c-empty")
    );
    assert!(lines[5].starts_with(&format!("{:<30} failed: ", "d-gone")));
    assert_eq!(
        lines[6],
        format!("{:<30} skipped: not a git checkout", "e-copied")
    );
    assert_eq!(
        lines[7..],
        ["zut update: extensions: 1 updated, 1 up-to-date, 2 skipped, 1 failed"]
    );
}

#[test]
fn l17_invalid_json_manifest_counts_as_enabled() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "broken");
    let dir = up.install(&env, "broken");
    // Invalid JSON (and it mentions "enabled": false) — still pulled.
    std::fs::write(dir.join("extension.json"), "{\"enabled\": false,,").unwrap();
    git(
        &dir,
        &["update-index", "--assume-unchanged", "extension.json"],
    );
    let new_head = up.push("feature.txt", "f\n");
    let r = update(&env);
    assert_eq!(status_of(&r, "broken"), "updated", "{r:?}");
    assert_eq!(head(&dir), new_head);
}

#[test]
fn l17_git_file_checkout_is_a_checkout() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "sep");
    let dest = env.global_dir("sep");
    let gitdir = source_dir(&env, "sep-gitdir");
    std::fs::remove_dir_all(&gitdir).unwrap();
    git(
        &env.home,
        &[
            "clone",
            "-q",
            "--separate-git-dir",
            gitdir.to_str().unwrap(),
            up.bare.to_str().unwrap(),
            dest.to_str().unwrap(),
        ],
    );
    assert!(dest.join(".git").is_file());
    up.push("feature.txt", "f\n");
    let r = update(&env);
    assert_eq!(status_of(&r, "sep"), "updated", "{r:?}");
    assert!(dest.join("feature.txt").is_file());
}

#[test]
fn l17_extension_installed_with_zut_ext_install_is_updated() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "viazut");
    let url = format!("file://{}", up.bare.display());
    let r = zut_git(&env, &["ext", "install", &url]);
    assert_eq!(r.code, 0, "{r:?}");
    let dir = env.global_dir("viazut");
    assert!(dir.join(".git").is_dir());
    std::fs::write(dir.join("runtime.txt"), "kept\n").unwrap();

    let r = update(&env);
    assert_eq!(status_of(&r, "viazut"), "up-to-date", "{r:?}");
    let new_head = up.push("feature.txt", "f\n");
    let r = update(&env);
    assert_eq!(status_of(&r, "viazut"), "updated", "{r:?}");
    assert_eq!(head(&dir), new_head);
    assert_eq!(read(&dir.join("runtime.txt")), "kept\n");
}

#[test]
fn l17_stash_works_without_a_configured_git_identity() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "anon");
    let dir = up.install(&env, "anon");
    std::fs::write(dir.join("state.json"), "{}\n").unwrap();
    let new_head = up.push("feature.txt", "f\n");
    // No identity anywhere and git may not guess one.
    let no_identity = |cmd: &mut Command| {
        for var in [
            "GIT_AUTHOR_NAME",
            "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME",
            "GIT_COMMITTER_EMAIL",
            "EMAIL",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &env.project)
            .env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "user.useConfigOnly")
            .env("GIT_CONFIG_VALUE_0", "true");
    };
    let mut probe = git_cmd(&dir, &["var", "GIT_COMMITTER_IDENT"]);
    no_identity(&mut probe);
    assert!(
        !probe.output().unwrap().status.success(),
        "precondition: git has no identity"
    );

    let mut cmd = zut_cmd(&env, &["update"]);
    cmd.envs(GIT_ENV);
    no_identity(&mut cmd);
    let r: Run = cmd
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
        .into();
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(status_of(&r, "anon"), "updated", "{r:?}");
    assert_eq!(head(&dir), new_head);
    assert_eq!(read(&dir.join("state.json")), "{}\n");
}

#[test]
fn l17_check_never_touches_extensions() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "still");
    let dir = up.install(&env, "still");
    let old_head = head(&dir);
    std::fs::write(dir.join("state.json"), "{}\n").unwrap();
    up.push("feature.txt", "f\n");

    let r = zut_git(&env, &["update", "--check"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("no update channel"), "{r:?}");
    assert!(!r.stdout.contains("updating extensions"), "{r:?}");
    assert!(!r.stderr.contains("updating extensions"), "{r:?}");
    assert_eq!(head(&dir), old_head);
    assert!(!dir.join("feature.txt").exists());
    assert_eq!(
        git(&dir, &["reflog"]).lines().count(),
        1,
        "no git command ran"
    );
    assert_eq!(stash_list(&dir), "");
}

#[test]
fn ctrl_c_kills_git_puts_local_changes_back_and_stops_the_pass() {
    let env = TestEnv::new();
    let up = Upstream::extension(&env, "a-hangs");
    let dir = up.install(&env, "a-hangs");
    git(
        &dir,
        &["remote", "set-url", "origin", "ssh://example.invalid/x.git"],
    );
    std::fs::write(dir.join("state.json"), "{}\n").unwrap();
    Upstream::extension(&env, "b-never").install(&env, "b-never");
    // An ssh that never answers and tells us its pid.
    let pid_file = env.project.join("ssh.pid");
    let ssh = write_executable(
        &env.project,
        "fake-ssh",
        &format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 30\n",
            pid_file.display()
        ),
    );

    let started = std::time::Instant::now();
    let mut child = zut_cmd(&env, &["update"])
        .envs(GIT_ENV)
        .env("GIT_SSH_COMMAND", &ssh)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    assert!(
        wait_until(20, || std::fs::read_to_string(&pid_file)
            .is_ok_and(|p| p.ends_with('\n'))),
        "git never reached the remote"
    );
    send_signal(child.id(), "INT");
    assert!(
        wait_until(20, || child.try_wait().unwrap().is_some()),
        "zut did not stop"
    );
    let r: Run = child.wait_with_output().unwrap().into();
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stderr.contains("zut: interrupted"), "{r:?}");
    assert_eq!(
        status_of(&r, "a-hangs"),
        "failed: git: interrupted",
        "{r:?}"
    );
    assert!(!r.stdout.contains("b-never"), "the pass stopped: {r:?}");
    assert_eq!(
        summary(&r),
        "zut update: extensions: 0 updated, 0 up-to-date, 0 skipped, 1 failed"
    );
    assert_eq!(read(&dir.join("state.json")), "{}\n");
    assert_eq!(stash_list(&dir), "");
    // Dead or a zombie nobody reaped yet (PID 1 in a container may not).
    let ssh_pid = read(&pid_file).trim().to_string();
    let running = || {
        std::fs::read_to_string(format!("/proc/{ssh_pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        })
    };
    let alive = !wait_until(5, || !running());
    assert!(!alive, "git's ssh outlived the interrupt");
}

#[test]
fn update_help_and_unknown_arguments() {
    let env = TestEnv::new();
    let r = zut_git(&env, &["update", "--help"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("usage: zut update [--check]"), "{r:?}");
    let r = zut_git(&env, &["update", "--force"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("zut: unknown update argument: --force"),
        "{r:?}"
    );
}

/// `zut update <args>` in a terminal (`script` gives it a pty), typing
/// `input`; everything it printed.
fn update_in_terminal(env: &TestEnv, args: &str, input: &str) -> Option<String> {
    use std::io::Write;
    if Command::new("script").arg("--version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "script (util-linux) is required in CI"
        );
        eprintln!("skipping: no `script`");
        return None;
    }
    let line = format!("{} update {args}", env!("CARGO_BIN_EXE_zut"));
    let mut child = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("ZUT_HOME", &env.home)
        .envs(GIT_ENV)
        .current_dir(&env.project)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Typed once the question is up (the pty keeps it until read).
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Some(String::from_utf8_lossy(&out.stdout).replace('\r', ""))
}

/// An update that changes an extension's declared permissions: printed
/// before anything is pulled; in a terminal the user is asked and "no"
/// leaves the extension as it was; `--yes` and scripts (no terminal)
/// go ahead.
#[test]
fn an_update_that_changes_permissions_is_shown_and_asked_first() {
    let env = TestEnv::new();
    let manifest = json!({"name": "perm", "exec": "./run.sh",
        "permissions": {"fs": {"read": ["${cwd}"]}, "network": "none"}});
    let up = Upstream::new(&env, "perm", manifest, &[("run.sh", "#!/bin/sh\n")]);
    let dir = up.install(&env, "perm");
    let old_head = head(&dir);
    let wider = json!({"name": "perm", "exec": "./run.sh",
        "permissions": {"fs": {"read": ["${cwd}"], "write": ["${home}"]}, "network": ["api.example.com"]}});
    let new_head = up.push("extension.json", &wider.to_string());

    // In a terminal, "n": nothing pulled.
    if let Some(out) = update_in_terminal(&env, "", "n\n") {
        assert!(
            out.contains("perm: the update changes its permissions:")
                && out.contains("permissions + fs.write ${home}")
                && out.contains("permissions + network api.example.com")
                && out.contains("permissions - network none"),
            "{out}"
        );
        assert!(out.contains("update perm? [y/N]"), "{out}");
        assert!(
            out.contains("skipped: permissions change declined"),
            "{out}"
        );
        assert!(out.contains("0 updated, 0 up-to-date, 1 skipped"), "{out}");
        assert_eq!(head(&dir), old_head, "declined: nothing pulled");
        assert_eq!(stash_list(&dir), "");

        // --yes: no question.
        let out = update_in_terminal(&env, "--yes", "").unwrap();
        assert!(!out.contains("[y/N]"), "{out}");
        assert!(
            out.contains("permissions + network api.example.com"),
            "{out}"
        );
        assert_eq!(head(&dir), new_head);
    }

    // Without a terminal (scripts): shown, then updated.
    let newer = json!({"name": "perm", "exec": "./run.sh",
        "permissions": {"fs": {"read": ["${cwd}"], "write": ["${home}"]}, "network": "any"}});
    let newest = up.push("extension.json", &newer.to_string());
    let r = update(&env);
    let shown = r
        .stdout
        .find("permissions + network any")
        .unwrap_or_else(|| panic!("{r:?}"));
    let status = r.stdout.find(&format!("{:<30} updated", "perm")).unwrap();
    assert!(
        shown < status,
        "the differences come before the pull: {r:?}"
    );
    assert_eq!(head(&dir), newest);
    // Unchanged permissions print nothing more.
    up.push("notes.txt", "x\n");
    let r = update(&env);
    assert!(!r.stdout.contains("permissions"), "{r:?}");
    assert_eq!(status_of(&r, "perm"), "updated");

    // Upstream permissions that do not parse are named (that version
    // would not start); dropping `permissions` shows "unconfined".
    let bad = json!({"name": "perm", "exec": "./run.sh", "permissions": {"network": "sometimes"}});
    up.push("extension.json", &bad.to_string());
    let r = update(&env);
    assert!(
        r.stdout
            .contains("permissions ! manifest: permissions: network")
            && r.stdout.contains("would not start"),
        "{r:?}"
    );
    let plain = json!({"name": "perm", "exec": "./run.sh"});
    up.push("extension.json", &plain.to_string());
    let r = update(&env);
    assert!(
        r.stdout
            .contains("permissions + unconfined (full user privileges)"),
        "{r:?}"
    );
    assert_eq!(status_of(&r, "perm"), "updated");
}
