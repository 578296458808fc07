//! glob, ast and worktree under the jail: secret locations are neither
//! listed nor searched, rewrites and worktrees outside the writable scopes
//! are refused with the rule named (nothing written), and git run by
//! `worktree` — hooks included — runs inside the jail.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use zut_sandbox::{Network, Policy};

use crate::env::*;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn glob_and_ast_keep_out_of_secrets_and_refuse_outside_rewrites() {
    let env = Env::new();
    let vault = env.home.join("vault");
    std::fs::create_dir_all(&vault).unwrap();
    std::fs::write(vault.join("keys.py"), "token = load_secret(SECRET)\n").unwrap();
    std::fs::write(env.home.join("tool.py"), "x = load_secret(1)\n").unwrap();
    let mut spec = env.spec(Network::None);
    spec.extra_secrets.push(vault.clone());
    let ctx = env.ctx_with(Policy::jail(&spec));

    // glob: secret locations are neither entered nor listed.
    let out = tool(
        &ctx,
        "glob",
        json!({"pattern": "*", "path": env.home, "hidden": true}),
    )
    .await;
    let t = out.text_content();
    assert!(!out.is_error, "{t}");
    assert!(t.contains("notes.txt") && t.contains("tool.py"), "{t}");
    assert!(
        !t.contains("id_ed25519") && !t.contains("auth.json") && !t.contains("keys.py"),
        "{t}"
    );
    let out = tool(&ctx, "glob", json!({"pattern": "*", "path": vault})).await;
    let t = out.text_content();
    assert!(out.is_error && t.contains("secret location"), "{t}");

    // ast search: matches in a secret location are left out, with a note.
    let out = tool(
        &ctx,
        "ast",
        json!({"pattern": "load_secret($A)", "language": "python", "path": env.home}),
    )
    .await;
    let t = out.text_content();
    assert!(!out.is_error, "{t}");
    assert!(t.contains("tool.py:1"), "{t}");
    assert!(!t.contains("SECRET") && !t.contains("keys.py"), "{t}");
    assert!(
        t.contains("1 match in locations the jail keeps secret left out"),
        "{t}"
    );
    let out = tool(
        &ctx,
        "ast",
        json!({"pattern": "load_secret($A)", "language": "python", "path": vault}),
    )
    .await;
    assert!(out.is_error && out.text_content().contains("secret location"));

    // ast rewrite outside the writable scopes: refused, nothing written.
    std::fs::write(env.outside.join("victim.py"), "old_fn(1)\n").unwrap();
    let out = tool(
        &ctx,
        "ast",
        json!({"pattern": "old_fn($A)", "rewrite": "new_fn($A)", "language": "python",
               "path": env.outside}),
    )
    .await;
    let t = out.text_content();
    assert!(out.is_error, "{t}");
    assert!(
        t.contains("denied by the jail (writable:") && t.contains("nothing was written"),
        "{t}"
    );
    assert_eq!(read(&env.outside.join("victim.py")), "old_fn(1)\n");

    // Inside the workspace the rewrite is written.
    std::fs::write(env.ws.join("mine.py"), "old_fn(2)\n").unwrap();
    let out = tool(
        &ctx,
        "ast",
        json!({"pattern": "old_fn($A)", "rewrite": "new_fn($A)", "language": "python",
               "path": "."}),
    )
    .await;
    assert!(!out.is_error, "{}", out.text_content());
    assert_eq!(read(&env.ws.join("mine.py")), "new_fn(2)\n");
}

#[tokio::test]
async fn jailed_worktree_needs_a_writable_root_and_runs_git_jailed() {
    if Command::new("git").arg("--version").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "git is required in CI");
        eprintln!("git not found: skipping");
        return;
    }
    let env = Env::new();
    git(&env.ws, &["init", "-q", "-b", "main"]);
    std::fs::write(env.ws.join("README"), "hi\n").unwrap();
    git(&env.ws, &["add", "README"]);
    git(&env.ws, &["commit", "-q", "-m", "first"]);

    // The default root ($ZUT_HOME/worktrees) is outside the writable scopes.
    let mut ctx = env.ctx();
    ctx.zut_home = Some(env.zut_home.clone());
    let out = tool(
        &ctx,
        "worktree",
        json!({"action": "create", "branch": "feat"}),
    )
    .await;
    let t = out.text_content();
    assert!(out.is_error, "{t}");
    assert!(
        t.starts_with("worktree: write to") && t.contains("denied by the jail (writable:"),
        "{t}"
    );
    assert!(!env.zut_home.join("worktrees").exists());

    // A root the jail may write (config `sandbox.writable`): created, and
    // git's post-checkout hook ran inside the jail.
    let wt_root = env.outside.join("trees");
    std::fs::create_dir_all(&wt_root).unwrap();
    git(
        &env.ws,
        &[
            "config",
            "--local",
            "zut.worktrees.path",
            wt_root.to_str().unwrap(),
        ],
    );
    let hook = env.ws.join(".git/hooks/post-checkout");
    let escaped = env.outside.join("escaped.txt");
    let inside = env.ws.join("hook-ran.txt");
    std::fs::write(
        &hook,
        format!(
            "#!/bin/sh\necho hooked > '{}' 2>/dev/null\necho ran > '{}'\nexit 0\n",
            escaped.display(),
            inside.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut spec = env.spec(Network::None);
    spec.extra_writable.push(wt_root.clone());
    let mut ctx = env.ctx_with(Policy::jail(&spec));
    ctx.zut_home = Some(env.zut_home.clone());
    let out = tool(
        &ctx,
        "worktree",
        json!({"action": "create", "branch": "feat"}),
    )
    .await;
    let t = out.text_content();
    assert!(!out.is_error, "{t}");
    assert!(wt_root.join("feat/README").is_file(), "{t}");
    assert_eq!(read(&inside), "ran\n", "the hook did not run");
    if supported() {
        assert!(
            !escaped.exists(),
            "a git hook run by the worktree tool wrote outside the jail"
        );
    }

    // Cleanup of a path the jail may not write: refused by the jail.
    let other = env.outside.join("other");
    git(
        &env.ws,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "other",
            other.to_str().unwrap(),
        ],
    );
    let out = tool(
        &ctx,
        "worktree",
        json!({"action": "cleanup", "paths": [other]}),
    )
    .await;
    let t = out.text_content();
    assert!(out.is_error && t.contains("denied by the jail"), "{t}");
    assert!(other.join("README").is_file());
    // The one inside the writable root goes.
    let out = tool(
        &ctx,
        "worktree",
        json!({"action": "cleanup", "paths": [wt_root.join("feat")]}),
    )
    .await;
    assert!(!out.is_error, "{}", out.text_content());
    assert!(!wt_root.join("feat").exists());
}
