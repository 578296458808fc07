//! `worktree` against a real git repository in a temp directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use zut_tools::ToolContext;

use crate::common::*;

fn git(dir: &Path, args: &[&str]) -> String {
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
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn has_git() -> bool {
    let ok = Command::new("git").arg("--version").output().is_ok();
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "git is required in CI");
        eprintln!("git not found: skipping");
    }
    ok
}

/// A repo with one commit, and a ZUT_HOME, both canonical.
fn repo() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().canonicalize().unwrap();
    let repo = root.join("My Repo");
    let home = root.join("home");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README"), "hi\n").unwrap();
    git(&repo, &["add", "README"]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    (d, repo, home)
}

fn path_line(text: &str) -> PathBuf {
    PathBuf::from(
        text.lines()
            .find_map(|l| l.strip_prefix("path: "))
            .expect("path line"),
    )
}

#[tokio::test]
async fn create_list_cleanup() {
    if !has_git() {
        return;
    }
    let (_d, repo, home) = repo();
    let ctx = ToolContext::new(&repo).with_zut_home(&home);
    let text = ok_text(
        &call_ctx(
            "worktree",
            json!({"action": "create", "branch": "feat/x"}),
            &ctx,
        )
        .await,
    );
    assert!(
        text.starts_with("created worktree\nbranch: feat/x\nbase: "),
        "{text}"
    );
    assert!(text.contains("root source: global default root"), "{text}");
    let wt = path_line(&text);
    assert!(wt.starts_with(home.join("worktrees")), "{text}");
    assert!(wt.to_string_lossy().contains("/my-repo-"), "{text}");
    assert!(wt.join("README").is_file());
    // The same branch again is refused.
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "create", "branch": "feat/x"}),
            &ctx,
        )
        .await,
    );
    assert!(text.contains("already exists"), "{text}");

    let text = ok_text(&call_ctx("worktree", json!({"action": "list"}), &ctx).await);
    assert!(text.starts_with("repository worktrees\n"), "{text}");
    assert!(
        text.contains(&format!("- {} [main]: primary worktree", repo.display())),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "- {} [feat/x]: clean and merged; cleanup eligible",
            wt.display()
        )),
        "{text}"
    );

    // Dirty: refused, nothing removed.
    std::fs::write(wt.join("new.txt"), "work\n").unwrap();
    let wt_s = wt.display().to_string();
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "cleanup", "paths": [wt_s]}),
            &ctx,
        )
        .await,
    );
    assert_eq!(
        text,
        format!("worktree: {wt_s:?} cannot be removed: uncommitted changes")
    );
    assert!(wt.join("new.txt").is_file());

    // Unmerged commit: refused.
    git(&wt, &["add", "new.txt"]);
    git(&wt, &["commit", "-q", "-m", "work"]);
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "cleanup", "paths": [wt_s]}),
            &ctx,
        )
        .await,
    );
    assert!(
        text.contains("branch is not merged into the current branch: feat/x"),
        "{text}"
    );
    assert!(wt.is_dir());

    // Merged: removed, the branch is kept.
    git(&repo, &["merge", "-q", "--ff-only", "feat/x"]);
    let text = ok_text(
        &call_ctx(
            "worktree",
            json!({"action": "cleanup", "paths": [wt_s]}),
            &ctx,
        )
        .await,
    );
    assert!(text.starts_with("remove worktrees\n"), "{text}");
    assert!(text.contains(&format!("selected:\n- {wt_s}\n")), "{text}");
    assert!(!wt.exists());
    assert!(git(&repo, &["branch", "--list", "feat/x"]).contains("feat/x"));
}

#[tokio::test]
async fn cleanup_refusals() {
    if !has_git() {
        return;
    }
    let (d, repo, home) = repo();
    let ctx = ToolContext::new(&repo).with_zut_home(&home);
    let repo_s = repo.display().to_string();
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "cleanup", "paths": [repo_s]}),
            &ctx,
        )
        .await,
    );
    assert!(
        text.ends_with("cannot be removed: primary worktree"),
        "{text}"
    );
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "cleanup", "paths": ["/tmp/nowhere"]}),
            &ctx,
        )
        .await,
    );
    assert_eq!(
        text,
        "worktree: \"/tmp/nowhere\" is not a registered worktree"
    );
    let text = err_text(&call_ctx("worktree", json!({"action": "cleanup"}), &ctx).await);
    assert_eq!(
        text,
        "worktree: cleanup requires at least one explicit path"
    );
    // Detached HEAD.
    let det = d.path().canonicalize().unwrap().join("det");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            &det.display().to_string(),
        ],
    );
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "cleanup", "paths": [det.display().to_string()]}),
            &ctx,
        )
        .await,
    );
    assert!(text.ends_with("cannot be removed: detached HEAD"), "{text}");
    assert!(det.is_dir());
    // Bad branches and no repository.
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "create", "branch": "-x"}),
            &ctx,
        )
        .await,
    );
    assert_eq!(text, "worktree: invalid branch \"-x\"");
    let text = err_text(
        &call_ctx(
            "worktree",
            json!({"action": "create", "branch": "a..b"}),
            &ctx,
        )
        .await,
    );
    assert_eq!(text, "worktree: invalid branch \"a..b\"");
    let text = err_text(&call_ctx("worktree", json!({"action": "create"}), &ctx).await);
    assert_eq!(text, "worktree: branch is required");
    let elsewhere = tempfile::tempdir().unwrap();
    let text = err_text(&call("worktree", json!({"action": "list"}), elsewhere.path()).await);
    assert_eq!(text, "worktree: working directory is not a Git repository");
}
