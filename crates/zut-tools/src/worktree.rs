//! `worktree`: create, list and clean up git worktrees, through the `git`
//! CLI (never by reading git's files).
//!
//! `create` adds a worktree on a new branch at HEAD under the worktree root
//! (`zut.worktrees.path` from the repository's local git config when set,
//! which must be absolute, else `$ZUT_HOME/worktrees/<repo-id>`). `list`
//! shows every registered worktree with whether it may be removed.
//! `cleanup` removes only worktrees named by their exact path that are not
//! the primary worktree, exist, are on a branch, have no submodules, no
//! uncommitted or ignored files, and whose branch is merged into the
//! current branch; each is checked again just before it is removed, git
//! itself refuses dirty trees (no `--force`), and branches are never
//! deleted.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{parse_args, ToolContext, ToolOutput};

/// Git output kept per command.
const GIT_MAX_OUTPUT: usize = 64 * 1024;
/// Time allowed for one git command.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct WorktreeArgs {
    #[serde(default)]
    action: String,
    #[serde(default)]
    branch: Option<String>,
    #[serde(default)]
    paths: Option<Vec<String>>,
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: WorktreeArgs = match parse_args("worktree", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let result = match a.action.trim() {
        "" => Err("worktree: action is required".to_string()),
        "create" => create(a.branch.as_deref().unwrap_or_default(), ctx).await,
        "list" => list(ctx).await,
        "cleanup" => cleanup(a.paths.as_deref().unwrap_or_default(), ctx).await,
        _ => Err("worktree: unknown action".to_string()),
    };
    match result {
        Ok(text) => ToolOutput::text(text),
        Err(e) => ToolOutput::error(e),
    }
}

/// Output of one git command.
struct GitOut {
    ok: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `git <args>` in `dir`, without a shell, bounded in time and output,
/// through zut's launcher: jailed, git (and the hooks it runs, such as
/// `post-checkout`) runs inside the jail like `bash`.
async fn git(dir: &Path, args: &[&str], ctx: &ToolContext) -> Result<GitOut, String> {
    let mut launch = zut_process::Launch::new("git", dir)
        .args(args)
        .sandbox(ctx.jail.clone());
    launch.env = vec![
        ("GIT_TERMINAL_PROMPT".into(), "0".into()),
        ("LC_ALL".into(), "C".into()),
    ];
    launch.stdin = Stdio::null();
    launch.stdout = Stdio::piped();
    launch.stderr = Stdio::piped();
    launch.kill_on_drop = true;
    // The guard kills git's process group (hooks included) on timeout or
    // cancellation.
    let zut_process::Process {
        child,
        guard: _guard,
    } = zut_process::spawn(launch).map_err(|e| format!("worktree: cannot run git: {e}"))?;
    let out = tokio::select! {
        r = tokio::time::timeout(GIT_TIMEOUT, child.wait_with_output()) => match r {
            Ok(Ok(o)) => o,
            Ok(Err(e)) => return Err(format!("worktree: git {}: {e}", args.join(" "))),
            Err(_) => return Err(format!("worktree: git {} timed out", args.join(" "))),
        },
        _ = ctx.cancel.cancelled() => return Err("worktree: cancelled".to_string()),
    };
    let cut = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(GIT_MAX_OUTPUT)]).into_owned();
    Ok(GitOut {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: cut(&out.stdout),
        stderr: cut(&out.stderr),
    })
}

/// Runs git and returns its trimmed stdout, or an error with its stderr.
async fn git_ok(dir: &Path, args: &[&str], ctx: &ToolContext) -> Result<String, String> {
    let o = git(dir, args, ctx).await?;
    if o.ok {
        Ok(o.stdout.trim().to_string())
    } else {
        let why = o.stderr.trim();
        Err(format!(
            "worktree: git {} failed: {}",
            args.join(" "),
            if why.is_empty() { "no message" } else { why }
        ))
    }
}

/// The repository around the working directory.
struct Repo {
    /// `git rev-parse --show-toplevel`, canonical.
    top: PathBuf,
    /// `git rev-parse --git-common-dir`, canonical.
    common: PathBuf,
}

async fn find_repo(ctx: &ToolContext) -> Result<Repo, String> {
    let cwd = std::fs::canonicalize(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone());
    if !cwd.ancestors().any(|d| d.join(".git").exists()) {
        return Err("worktree: working directory is not a Git repository".into());
    }
    let top = git_ok(&cwd, &["rev-parse", "--show-toplevel"], ctx).await?;
    let top = canonical(&cwd.join(top));
    let common = git_ok(&cwd, &["rev-parse", "--git-common-dir"], ctx).await?;
    let common = canonical(&cwd.join(common));
    Ok(Repo { top, common })
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// `<slug>-<12 hex of sha256(common dir)>`.
fn repo_id(common: &Path) -> String {
    let name = match common.file_name().map(|n| n.to_string_lossy().into_owned()) {
        Some(n) if n == ".git" => common
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        Some(n) => n.strip_suffix(".git").unwrap_or(&n).to_string(),
        None => String::new(),
    };
    let mut slug = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let mut slug: String = slug.trim_matches('-').chars().take(40).collect();
    slug = slug.trim_matches('-').to_string();
    if slug.is_empty() {
        slug = "repo".into();
    }
    let digest = Sha256::digest(common.to_string_lossy().replace('\\', "/").as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("{slug}-{hex}")
}

async fn create(branch: &str, ctx: &ToolContext) -> Result<String, String> {
    let branch = branch.trim();
    if branch.is_empty() {
        return Err("worktree: branch is required".into());
    }
    if branch.starts_with('-') || branch.contains("@{") {
        return Err(format!("worktree: invalid branch {branch:?}"));
    }
    let repo = find_repo(ctx).await?;
    jail_check(ctx, &[&repo.top, &repo.common])?;
    let checked = git(&repo.top, &["check-ref-format", "--branch", branch], ctx).await?;
    if !checked.ok || checked.stdout.trim() != branch {
        return Err(format!("worktree: invalid branch {branch:?}"));
    }
    let base = git_ok(&repo.top, &["rev-parse", "--verify", "HEAD^{commit}"], ctx)
        .await
        .map_err(|_| {
            "worktree: the repository has no commit to branch from (HEAD is unborn)".to_string()
        })?;
    let configured = git(
        &repo.top,
        &["config", "--local", "--get", "zut.worktrees.path"],
        ctx,
    )
    .await?;
    let (root, source) = if configured.ok && !configured.stdout.trim().is_empty() {
        let p = PathBuf::from(configured.stdout.trim());
        if !p.is_absolute() {
            return Err(format!(
                "worktree: the local Git config zut.worktrees.path ({}) must be an absolute path; \
                 unset the legacy relative value with `git config --local --unset zut.worktrees.path`",
                p.display()
            ));
        }
        (p, "local Git config")
    } else {
        let Some(home) = &ctx.zut_home else {
            return Err(
                "worktree: no worktree root: set zut.worktrees.path in the repository's Git config"
                    .into(),
            );
        };
        (
            home.join("worktrees").join(repo_id(&repo.common)),
            "global default root",
        )
    };
    match std::fs::symlink_metadata(&root) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(format!(
                "worktree: worktree root {} is a symlink",
                root.display()
            ))
        }
        Ok(m) if !m.is_dir() => {
            return Err(format!(
                "worktree: worktree root {} is not a directory",
                root.display()
            ))
        }
        _ => {}
    }
    let root_c = canonical_or_lexical(&root);
    if root_c.starts_with(&repo.top) {
        return Err(format!(
            "worktree: worktree root {} is inside the repository; choose a root outside it",
            root.display()
        ));
    }
    let path = root.join(branch);
    if !lexically_inside(&path, &root) {
        return Err(format!("worktree: invalid branch {branch:?}"));
    }
    jail_check(ctx, &[&root, &path])?;
    if path.exists() {
        return Err(format!("worktree: path {} already exists", path.display()));
    }
    let exists = git(
        &repo.top,
        &[
            "show-ref",
            "--verify",
            "--quiet",
            &format!("refs/heads/{branch}"),
        ],
        ctx,
    )
    .await?;
    if exists.ok {
        return Err(format!("worktree: branch {branch:?} already exists"));
    }
    ctx.report_progress("Creating Git worktree...");
    let parent = path.parent().unwrap_or(&root).to_path_buf();
    let created = first_missing_ancestor(&parent);
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("worktree: cannot create {}: {e}", parent.display()))?;
    let path_s = path.to_string_lossy().into_owned();
    let added = git(
        &repo.top,
        &["worktree", "add", "-b", branch, &path_s, &base],
        ctx,
    )
    .await;
    let failure = match added {
        Ok(o) if o.ok => None,
        Ok(o) => Some(o.stderr.trim().to_string()),
        Err(e) => Some(e),
    };
    if let Some(why) = failure {
        // Roll back what this call made.
        let _ = git(&repo.top, &["worktree", "remove", "--force", &path_s], ctx).await;
        let _ = git(&repo.top, &["worktree", "prune"], ctx).await;
        if let Some(dir) = created {
            let _ = std::fs::remove_dir_all(dir);
        }
        return Err(format!("worktree: git worktree add failed: {why}"));
    }
    Ok(format!(
        "created worktree\nbranch: {branch}\nbase: {base}\nworktree root: {}\nroot source: {source}\npath: {}\n",
        root.display(),
        path.display()
    ))
}

/// Jailed: every path must be readable and writable (so the repository,
/// its git directory and the worktree root must be inside the jail's
/// writable scopes); the first refusal is the error.
fn jail_check(ctx: &ToolContext, paths: &[&Path]) -> Result<(), String> {
    for p in paths {
        if let Some(why) =
            crate::jail::read_denied(ctx, p).or_else(|| crate::jail::write_denied(ctx, p))
        {
            return Err(format!("worktree: {why}"));
        }
    }
    Ok(())
}

/// The topmost directory on the way to `p` that does not exist yet.
fn first_missing_ancestor(p: &Path) -> Option<PathBuf> {
    let mut missing = None;
    for a in p.ancestors() {
        if a.exists() {
            break;
        }
        missing = Some(a.to_path_buf());
    }
    missing
}

/// The canonical path of `p`, or of its longest existing ancestor with the
/// rest appended.
fn canonical_or_lexical(p: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = p;
    loop {
        if let Ok(c) = std::fs::canonicalize(cur) {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                cur = parent;
            }
            _ => return p.to_path_buf(),
        }
    }
}

fn lexically_inside(path: &Path, root: &Path) -> bool {
    use std::path::Component;
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    rel.components().all(|c| matches!(c, Component::Normal(_))) && rel.components().next().is_some()
}

/// One registered worktree and whether it may be removed.
#[derive(Debug, Clone)]
struct Entry {
    path: PathBuf,
    head: Option<String>,
    branch: Option<String>,
    primary: bool,
    prunable: bool,
    detached: bool,
    /// Why it may not be removed; `None`: clean and merged.
    blocked_by: Option<String>,
}

fn parse_porcelain(text: &str) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for line in text.lines() {
        if let Some(p) = line.strip_prefix("worktree ") {
            out.push(Entry {
                path: PathBuf::from(p),
                head: None,
                branch: None,
                primary: out.is_empty(),
                prunable: false,
                detached: false,
                blocked_by: None,
            });
            continue;
        }
        let Some(e) = out.last_mut() else {
            continue;
        };
        if let Some(h) = line.strip_prefix("HEAD ") {
            e.head = Some(h.to_string());
        } else if let Some(b) = line.strip_prefix("branch ") {
            e.branch = Some(b.strip_prefix("refs/heads/").unwrap_or(b).to_string());
        } else if line == "detached" {
            e.detached = true;
        } else if line == "prunable" || line.starts_with("prunable ") {
            e.prunable = true;
        }
    }
    out
}

async fn inventory(repo: &Repo, ctx: &ToolContext) -> Result<Vec<Entry>, String> {
    let text = git_ok(&repo.top, &["worktree", "list", "--porcelain"], ctx).await?;
    let mut entries = parse_porcelain(&text);
    for e in &mut entries {
        e.blocked_by = blocking_reason(e, repo, ctx).await;
    }
    Ok(entries)
}

async fn blocking_reason(e: &Entry, repo: &Repo, ctx: &ToolContext) -> Option<String> {
    if e.primary {
        return Some("primary worktree".into());
    }
    if e.prunable || !e.path.is_dir() {
        return Some("missing worktree; prune metadata instead".into());
    }
    if e.detached || e.branch.is_none() {
        return Some("detached HEAD".into());
    }
    if e.path.join(".gitmodules").exists() {
        return Some("worktree contains submodules".into());
    }
    let status = match git(
        &e.path,
        &["status", "--porcelain", "--ignored=matching"],
        ctx,
    )
    .await
    {
        Ok(o) if o.ok => o.stdout,
        Ok(o) => return Some(format!("status unavailable: {}", o.stderr.trim())),
        Err(err) => return Some(format!("status unavailable: {err}")),
    };
    if !status.trim().is_empty() {
        let only_ignored = status.lines().all(|l| l.starts_with("!! "));
        return Some(if only_ignored {
            "ignored files present (build output, caches); remove them first".into()
        } else {
            "uncommitted changes".into()
        });
    }
    let head = e.head.clone().unwrap_or_default();
    let branch = e.branch.clone().unwrap_or_default();
    match git(
        &repo.top,
        &["merge-base", "--is-ancestor", &head, "HEAD"],
        ctx,
    )
    .await
    {
        Ok(o) if o.ok => None,
        Ok(o) if o.code == Some(1) => Some(format!(
            "branch is not merged into the current branch: {branch}"
        )),
        Ok(o) => Some(format!(
            "branch is not merged into the current branch: {branch} ({})",
            o.stderr.trim()
        )),
        Err(err) => Some(format!(
            "branch is not merged into the current branch: {branch} ({err})"
        )),
    }
}

fn entry_line(e: &Entry) -> String {
    let branch = e
        .branch
        .as_deref()
        .map(|b| format!(" [{b}]"))
        .unwrap_or_default();
    let state = e
        .blocked_by
        .as_deref()
        .unwrap_or("clean and merged; cleanup eligible");
    format!("- {}{branch}: {state}\n", e.path.display())
}

async fn list(ctx: &ToolContext) -> Result<String, String> {
    let repo = find_repo(ctx).await?;
    let entries = inventory(&repo, ctx).await?;
    let mut text = "repository worktrees\n".to_string();
    for e in &entries {
        text.push_str(&entry_line(e));
    }
    Ok(text)
}

async fn cleanup(paths: &[String], ctx: &ToolContext) -> Result<String, String> {
    let paths: Vec<&str> = paths
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .collect();
    if paths.is_empty() {
        return Err("worktree: cleanup requires at least one explicit path".into());
    }
    let repo = find_repo(ctx).await?;
    jail_check(ctx, &[&repo.top, &repo.common])?;
    let entries = inventory(&repo, ctx).await?;
    let mut selected: Vec<Entry> = Vec::new();
    for p in &paths {
        let want = canonical(&ctx.resolve(p));
        let Some(e) = entries.iter().find(|e| canonical(&e.path) == want) else {
            return Err(format!("worktree: {p:?} is not a registered worktree"));
        };
        if let Some(why) = &e.blocked_by {
            return Err(format!("worktree: {p:?} cannot be removed: {why}"));
        }
        jail_check(ctx, &[&e.path])?;
        if !selected.iter().any(|s| s.path == e.path) {
            selected.push(e.clone());
        }
    }
    let mut text = "remove worktrees\n".to_string();
    for e in &entries {
        text.push_str(&entry_line(e));
    }
    text.push_str("selected:\n");
    for e in &selected {
        text.push_str(&format!("- {}\n", e.path.display()));
    }
    let mut removed: Vec<String> = Vec::new();
    for e in &selected {
        ctx.report_progress(&format!("Removing worktree {}...", e.path.display()));
        // Checked again just before removal: the tree may have changed.
        let fresh = inventory(&repo, ctx).await?;
        let now = fresh.iter().find(|f| f.path == e.path);
        let why = match now {
            None => Some("it is no longer registered".to_string()),
            Some(f) if f.head != e.head => Some("its HEAD moved since it was checked".to_string()),
            Some(f) => f.blocked_by.clone(),
        };
        if let Some(why) = why {
            return Err(already(
                format!(
                    "worktree: {:?} cannot be removed: {why}",
                    e.path.display().to_string()
                ),
                &removed,
            ));
        }
        let path_s = e.path.to_string_lossy().into_owned();
        if let Err(err) = git_ok(&repo.top, &["worktree", "remove", &path_s], ctx).await {
            return Err(already(err, &removed));
        }
        removed.push(path_s);
    }
    let _ = git(&repo.top, &["worktree", "prune"], ctx).await;
    text.push_str(&format!(
        "removed {} worktree{} (branches are kept)\n",
        removed.len(),
        if removed.len() == 1 { "" } else { "s" }
    ));
    Ok(text)
}

fn already(err: String, removed: &[String]) -> String {
    if removed.is_empty() {
        err
    } else {
        format!("{err} (already removed: {})", removed.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_ids() {
        let id = repo_id(Path::new("/home/u/My Project/.git"));
        assert!(id.starts_with("my-project-"), "{id}");
        assert_eq!(id.len(), "my-project-".len() + 12);
        assert!(repo_id(Path::new("/srv/thing.git")).starts_with("thing-"));
        assert!(repo_id(Path::new("/srv/!!!.git")).starts_with("repo-"));
    }

    #[test]
    fn porcelain() {
        let t = "worktree /r\nHEAD aaa\nbranch refs/heads/main\n\nworktree /w\nHEAD bbb\ndetached\n\nworktree /gone\nHEAD ccc\nbranch refs/heads/x\nprunable gitdir file points to non-existent location\n";
        let e = parse_porcelain(t);
        assert_eq!(e.len(), 3);
        assert!(e[0].primary && !e[1].primary);
        assert_eq!(e[0].branch.as_deref(), Some("main"));
        assert!(e[1].detached);
        assert!(e[2].prunable);
    }

    #[test]
    fn inside() {
        assert!(lexically_inside(Path::new("/r/a/b"), Path::new("/r")));
        assert!(!lexically_inside(Path::new("/r/../x"), Path::new("/r")));
        assert!(!lexically_inside(Path::new("/r"), Path::new("/r")));
    }
}
