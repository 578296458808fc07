//! `zut ext install <path>` (L1–L4, L6–L9) and its rollback guarantees.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

fn ok_install(env: &TestEnv, args: &[&str]) -> Run {
    let mut full = vec!["ext", "install"];
    full.extend_from_slice(args);
    let r = zut(env, &full);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(staging_leftovers(env).is_empty());
    r
}

#[test]
fn l1_install_dot_uses_the_manifest_name() {
    let env = TestEnv::new();
    let src = source_dir(&env, "some-other-dir-name");
    script_extension(&src, "real-name", "run.sh", "#!/bin/sh\n");
    let r = zut_cmd(&env, &["ext", "install", "."])
        .current_dir(&src)
        .output()
        .unwrap();
    let r = Run::from(r);
    assert_eq!(r.code, 0, "{r:?}");
    let dest = env.global_dir("real-name");
    assert!(
        r.stderr.contains(&format!("installed {}", dest.display())),
        "{r:?}"
    );
    assert!(dest.join("extension.json").is_file());
    assert_eq!(mode(&dest.join("run.sh")) & 0o111, 0o111);
    assert_eq!(installed(&env), vec!["real-name"]);
    assert!(r.stdout.is_empty());
}

#[test]
fn l2_path_command_and_theme_only() {
    let env = TestEnv::new();
    // $ZUT_HOME/extensions is created when missing.
    std::fs::remove_dir_all(env.home.join("extensions")).unwrap();
    let src = source_dir(&env, "goext");
    write_manifest(
        &src,
        &json!({"name": "goext", "exec": "go", "args": ["run", "."]}),
    );
    ok_install(&env, &[src.to_str().unwrap()]);
    let theme = source_dir(&env, "theme");
    write_manifest(&theme, &json!({"name": "nice-theme"}));
    std::fs::write(theme.join("theme.json"), "{}").unwrap();
    ok_install(&env, &[theme.to_str().unwrap()]);
    assert!(env.global_dir("nice-theme").join("theme.json").is_file());
    assert!(env
        .global_dir("nice-theme")
        .join("extension.json")
        .is_file());
}

#[test]
fn l3_missing_or_non_executable_exec_rolls_back() {
    let env = TestEnv::new();
    let src = source_dir(&env, "tasked");
    write_manifest(&src, &json!({"name": "tasked", "exec": "./tasked-phases"}));
    let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
    assert_install_failed(
        &env,
        &r,
        "extension executable \"./tasked-phases\" is missing",
    );
    assert!(
        r.stderr.contains("zut ext install --build=go <path>"),
        "{r:?}"
    );
    assert!(r.stderr.contains("--build=cargo"), "{r:?}");
    assert!(staging_leftovers(&env).is_empty());

    std::fs::write(src.join("tasked-phases"), "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(
        src.join("tasked-phases"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
    assert_install_failed(&env, &r, "is not executable; run chmod +x on it");
    assert!(staging_leftovers(&env).is_empty());

    std::fs::remove_file(src.join("tasked-phases")).unwrap();
    std::fs::create_dir(src.join("tasked-phases")).unwrap();
    let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
    assert_install_failed(&env, &r, "is a directory");
    assert!(staging_leftovers(&env).is_empty());
}

#[test]
fn l4_gitignore_and_dot_git_are_honoured() {
    let env = TestEnv::new();
    let src = source_dir(&env, "py");
    write_manifest(&src, &json!({"name": "py", "exec": "./bin/run"}));
    write_executable(&src.join("bin"), "run", "#!/bin/sh\n");
    std::fs::write(src.join("bin/other"), "x").unwrap();
    for d in [".venv/lib", "node_modules/pkg", ".git/objects", "src"] {
        std::fs::create_dir_all(src.join(d)).unwrap();
    }
    for f in [
        ".venv/lib/x.py",
        "node_modules/pkg/i.js",
        ".git/HEAD",
        "debug.log",
        "keep.log",
        "src/main.py",
    ] {
        std::fs::write(src.join(f), "x").unwrap();
    }
    // Ignoring the manifest and the exec directory must not drop them.
    std::fs::write(
        src.join(".gitignore"),
        ".venv/\nnode_modules/\n*.log\n!keep.log\nbin/\nextension.json\n",
    )
    .unwrap();
    ok_install(&env, &[src.to_str().unwrap()]);
    let d = env.global_dir("py");
    for f in [
        "extension.json",
        "bin/run",
        "keep.log",
        "src/main.py",
        ".gitignore",
    ] {
        assert!(d.join(f).exists(), "{f} missing");
    }
    for f in [".venv", "node_modules", ".git", "debug.log", "bin/other"] {
        assert!(!d.join(f).exists(), "{f} copied");
    }
    assert_eq!(mode(&d.join("bin/run")), 0o755);
}

#[test]
fn symlinks_are_recreated_not_followed() {
    let env = TestEnv::new();
    let src = source_dir(&env, "links");
    script_extension(&src, "links", "run.sh", "#!/bin/sh\n");
    std::os::unix::fs::symlink("run.sh", src.join("alias.sh")).unwrap();
    ok_install(&env, &[src.to_str().unwrap()]);
    let link = env.global_dir("links").join("alias.sh");
    assert_eq!(
        std::fs::read_link(link).unwrap(),
        std::path::PathBuf::from("run.sh")
    );
}

#[test]
fn l6_argument_parsing() {
    let env = TestEnv::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--build="],
            "--build requires a builder (currently: go, cargo)",
        ),
        (&["./ext", "--build"], "--build requires a builder"),
        (
            &["--build=go"],
            "usage: zut ext install [--build=go] <path|git-url>",
        ),
        (&["a", "b"], "usage: zut ext install"),
        (&[], "usage: zut ext install"),
        (&["--wat", "./ext"], "unknown ext install option \"--wat\""),
        (
            &["--build=make", "./ext"],
            "unsupported extension builder \"make\" (currently supported: go, cargo)",
        ),
        (
            &["--build=go", "--build", "cargo", "./ext"],
            "extension builder specified more than once",
        ),
    ];
    for (args, want) in cases {
        let mut full = vec!["ext", "install"];
        full.extend_from_slice(args);
        let r = zut(&env, &full);
        assert_eq!(r.code, 1, "{args:?}");
        assert!(
            r.stderr.contains(&format!("zut: {want}")),
            "{args:?}: {r:?}"
        );
    }
    // Accepted forms reach the source check (no such dir here).
    for args in [
        &["--build=go", "./ext"][..],
        &["./ext", "--build", "go"],
        &["./ext", "--build=CARGO"],
    ] {
        let mut full = vec!["ext", "install"];
        full.extend_from_slice(args);
        let r = zut(&env, &full);
        assert!(r.stderr.contains("stat ./ext"), "{args:?}: {r:?}");
    }
}

#[test]
fn l7_build_refuses_theme_only_and_path_commands() {
    let env = TestEnv::new();
    let theme = source_dir(&env, "theme");
    write_manifest(&theme, &json!({"name": "t"}));
    std::fs::write(theme.join("theme.json"), "{}").unwrap();
    for b in ["go", "cargo"] {
        let r = zut(
            &env,
            &[
                "ext",
                "install",
                &format!("--build={b}"),
                theme.to_str().unwrap(),
            ],
        );
        assert_install_failed(&env, &r, "cannot build a theme-only extension");
    }
    let node = source_dir(&env, "node");
    write_manifest(&node, &json!({"name": "n", "exec": "node"}));
    let r = zut(
        &env,
        &["ext", "install", "--build=go", node.to_str().unwrap()],
    );
    assert_install_failed(
        &env,
        &r,
        "is a PATH command: --build=go requires an extension-relative executable path",
    );
    let r = zut(
        &env,
        &["ext", "install", "--build=cargo", node.to_str().unwrap()],
    );
    assert_install_failed(
        &env,
        &r,
        "--build=cargo requires an extension-relative executable path",
    );
    let abs = source_dir(&env, "abs");
    write_manifest(&abs, &json!({"name": "a", "exec": "/bin/sh"}));
    let r = zut(
        &env,
        &["ext", "install", "--build=go", abs.to_str().unwrap()],
    );
    assert_install_failed(&env, &r, "\"/bin/sh\" is absolute: --build=go requires");
    assert!(staging_leftovers(&env).is_empty());
}

#[test]
fn l8_manifest_name_rules_and_other_manifest_errors() {
    let env = TestEnv::new();
    let cases = [
        (
            json!({"name": " whitespace-name ", "exec": "node"}),
            "manifest: extension name \" whitespace-name \" has leading or trailing whitespace",
        ),
        (
            json!({"name": ".example", "exec": "node"}),
            "manifest: invalid extension name \".example\"",
        ),
        (
            json!({"name": "..", "exec": "node"}),
            "manifest: invalid extension name \"..\"",
        ),
        (
            json!({"name": "a/b", "exec": "node"}),
            "manifest: invalid extension name",
        ),
        (
            json!({"name": "   ", "exec": "node"}),
            "manifest: name is required",
        ),
        (json!({"name": "x"}), "manifest: exec is required"),
        (
            json!({"name": "x", "exec": "../outside"}),
            "manifest: exec \"../outside\" escapes the extension directory",
        ),
        (
            json!({"name": "x", "exec": "./run", "args": "nope"}),
            "parse extension.json:",
        ),
    ];
    for (i, (manifest, want)) in cases.into_iter().enumerate() {
        let src = source_dir(&env, &format!("case{i}"));
        write_manifest(&src, &manifest);
        let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
        assert_install_failed(&env, &r, &format!("zut: source extension: {want}"));
        assert!(staging_leftovers(&env).is_empty());
    }
    let src = source_dir(&env, "nomanifest");
    let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
    assert_install_failed(
        &env,
        &r,
        "zut: source extension: source lacks extension.json",
    );
    std::fs::write(src.join("extension.json"), "{oops").unwrap();
    let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
    assert_install_failed(&env, &r, "zut: source extension: parse extension.json:");
}

#[test]
fn l9_existing_destination_is_untouched() {
    let env = TestEnv::new();
    let existing = env.global_dir("x");
    write_manifest(
        &existing,
        &json!({"name": "x", "exec": "node", "version": "old"}),
    );
    let src = source_dir(&env, "x-src");
    write_manifest(
        &src,
        &json!({"name": "x", "exec": "node", "version": "new"}),
    );
    let r = zut(&env, &["ext", "install", src.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    let want = format!(
        "zut: destination {} already exists; remove it first",
        existing.display()
    );
    assert!(r.stderr.contains(&want), "{r:?}");
    assert!(std::fs::read_to_string(existing.join("extension.json"))
        .unwrap()
        .contains("old"));
    assert_eq!(installed(&env), vec!["x"]);
}

#[test]
fn local_source_errors() {
    let env = TestEnv::new();
    let file = source_dir(&env, "d").join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let r = zut(&env, &["ext", "install", file.to_str().unwrap()]);
    assert_install_failed(&env, &r, &format!("not a directory: {}", file.display()));
    // http:// and ssh:// without .git are paths, not URLs.
    for src in ["http://example.invalid/x", "ssh://example.invalid/x"] {
        let r = zut(&env, &["ext", "install", src]);
        assert_install_failed(&env, &r, &format!("zut: stat {src}"));
    }
}

#[test]
fn installed_extension_shows_in_list() {
    let env = TestEnv::new();
    let src = source_dir(&env, "listed");
    script_extension(&src, "listed", "run.sh", "#!/bin/sh\n");
    ok_install(&env, &[src.to_str().unwrap()]);
    let r = zut(&env, &["ext", "list"]);
    assert!(r.stdout.contains("global        listed"), "{r:?}");
}
