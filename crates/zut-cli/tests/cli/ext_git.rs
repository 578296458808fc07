//! `zut ext install <git-url>` from real local bare repositories (L10).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A bare repository `<sources>/<name>.git` holding `work`'s files.
fn bare_repo(env: &TestEnv, name: &str, fill: impl FnOnce(&Path)) -> PathBuf {
    let work = source_dir(env, &format!("{name}-work"));
    fill(&work);
    git(&work, &["init", "-q"]);
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "init"]);
    let bare = work.parent().unwrap().join(format!("{name}.git"));
    git(
        work.parent().unwrap(),
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    bare
}

#[test]
fn l10_clone_from_local_bare_repository_keeps_dot_git() {
    let env = TestEnv::new();
    let repo = bare_repo(&env, "repo-dir", |w| {
        script_extension(w, "cloned-name", "run.sh", "#!/bin/sh\n");
        std::fs::write(w.join(".gitignore"), "*.log\n").unwrap();
    });
    let r = zut(&env, &["ext", "install", repo.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:?}");
    let dest = env.global_dir("cloned-name");
    assert!(
        r.stderr.contains(&format!("installed {}", dest.display())),
        "{r:?}"
    );
    assert!(dest.join(".git").is_dir());
    assert!(dest.join("run.sh").is_file());
    assert_eq!(mode(&dest.join("run.sh")) & 0o111, 0o111);
    assert!(r.stdout.is_empty(), "git output goes to stderr: {r:?}");
    assert!(staging_leftovers(&env).is_empty());
    assert_eq!(installed(&env), vec!["cloned-name"]);
    // Destination now exists.
    let r = zut(&env, &["ext", "install", repo.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("already exists; remove it first"),
        "{r:?}"
    );
    assert!(staging_leftovers(&env).is_empty());
}

#[test]
fn l10_relative_repository_path_resolves_against_cwd() {
    let env = TestEnv::new();
    let repo = bare_repo(&env, "rel", |w| {
        write_manifest(w, &json!({"name": "rel", "exec": "node"}));
    });
    let target = env.project.join("rel.git");
    std::fs::rename(&repo, &target).unwrap();
    let r = zut(&env, &["ext", "install", "rel.git"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(env.global_dir("rel").join("extension.json").is_file());
}

#[test]
fn l10_build_is_refused_for_git_urls() {
    let env = TestEnv::new();
    for (args, b) in [
        (&["--build=go", "https://example.invalid/x"][..], "go"),
        (&["x.git", "--build", "cargo"], "cargo"),
    ] {
        let mut full = vec!["ext", "install"];
        full.extend_from_slice(args);
        let r = zut(&env, &full);
        assert_install_failed(
            &env,
            &r,
            &format!("zut: --build={b} is currently supported only for local extension paths"),
        );
    }
    assert!(staging_leftovers(&env).is_empty());
}

#[test]
fn git_failures_roll_back() {
    let env = TestEnv::new();
    let missing = env.project.join("nope.git");
    let r = zut(&env, &["ext", "install", missing.to_str().unwrap()]);
    assert_install_failed(&env, &r, "zut: git clone: exit status");
    assert!(staging_leftovers(&env).is_empty());

    let no_manifest = bare_repo(&env, "nomanifest", |w| {
        std::fs::write(w.join("README"), "x").unwrap()
    });
    let r = zut(&env, &["ext", "install", no_manifest.to_str().unwrap()]);
    assert_install_failed(
        &env,
        &r,
        "zut: cloned extension: source lacks extension.json",
    );

    let bad_name = bare_repo(&env, "badname", |w| {
        write_manifest(w, &json!({"name": ".x", "exec": "node"}))
    });
    let r = zut(&env, &["ext", "install", bad_name.to_str().unwrap()]);
    assert_install_failed(
        &env,
        &r,
        "zut: cloned extension: manifest: invalid extension name \".x\"",
    );

    let missing_exec = bare_repo(&env, "noexec", |w| {
        write_manifest(w, &json!({"name": "m", "exec": "./bin/m"}))
    });
    let r = zut(&env, &["ext", "install", missing_exec.to_str().unwrap()]);
    assert_install_failed(&env, &r, "extension executable \"./bin/m\" is missing");
    assert!(staging_leftovers(&env).is_empty());
}
