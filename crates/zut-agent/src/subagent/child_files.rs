//! A child's files under `$ZUT_HOME/subagents/<id>/`: its session file
//! (`transcript.jsonl`, whose `meta` row names the parent), `result.json`,
//! and for `isolation: worktree` its git worktree and `patch.diff`.

use std::path::{Path, PathBuf};

use serde_json::json;
use zut_providers::Provider;

use crate::config::AgentConfig;
use crate::subagent::runtime::{clip, Child, ChildState, SpawnSpec, RESULT_BYTES};

/// `result.json`: the last turn's outcome, final text capped.
pub(super) fn write_result(
    child: &Child,
    state: ChildState,
    final_text: &str,
    error: Option<&str>,
) {
    let v = json!({
        "agent_id": child.id,
        "state": state.as_str(),
        "final": clip(final_text, RESULT_BYTES),
        "error": error,
        "transcript": child.transcript.display().to_string(),
    });
    let path = child.dir.join("result.json");
    if let Err(e) = std::fs::write(&path, format!("{v:#}\n")) {
        tracing::warn!("subagent {}: {}: {e}", child.id, path.display());
    }
}

/// Writes the `meta` row (the parent named in `parent`, the spawn in
/// `subagent`) and opens the file for the child's rows.
pub(super) fn create_session(
    path: &Path,
    id: &str,
    spec: &SpawnSpec,
    provider: &Provider,
    config: &AgentConfig,
    parent: Option<&(String, PathBuf)>,
) -> Result<(zut_session::SessionWriter, zut_session::Snapshot), String> {
    let mut meta = zut_session::Meta {
        id: uuid_like(),
        cwd: config.cwd.display().to_string(),
        model: provider.model().to_string(),
        provider: provider.name().to_string(),
        started: zut_session::now_rfc3339(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        title: zut_session::title_from_prompt(&spec.task),
        hide_from_sessions: true,
        ..Default::default()
    };
    if let Some((pid, _)) = parent {
        meta.parent = pid.clone();
    }
    meta.extra.insert(
        "subagent".to_string(),
        json!({
            "agent_id": id,
            "parent_session": parent.map(|(i, _)| i.clone()),
            "parent_path": parent.map(|(_, p)| p.display().to_string()),
            "profile": spec.profile.as_ref().map(|p| p.name.clone()),
            "task": spec.task,
            "workspace": if spec.worktree { "worktree" } else { "shared" },
        }),
    );
    let line = zut_session::Row::Meta(meta).to_line();
    std::fs::write(path, &line).map_err(|e| format!("subagent: {}: {e}", path.display()))?;
    zut_session::SessionWriter::open(path).map_err(|e| format!("subagent: {}: {e}", path.display()))
}

fn uuid_like() -> String {
    let a = short_random();
    let b = short_random();
    format!("{a}{b}-subagent")
}

/// Eight hex digits from the clock and a counter (ids need not be secret).
pub(super) fn short_random() -> String {
    use std::hash::{BuildHasher, Hasher};
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(N.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{:08x}", h.finish() as u32)
}

async fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = tokio::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|e| format!("git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// `git worktree add --detach <dir>/worktree HEAD` in the parent's repo.
pub(super) async fn add_worktree(cwd: &Path, dir: &Path) -> Result<PathBuf, String> {
    let top = git(cwd, &["rev-parse", "--show-toplevel"])
        .await
        .map_err(|e| format!("subagent: isolation worktree needs a git repository: {e}"))?;
    let top = PathBuf::from(top.trim());
    let path = dir.join("worktree");
    let p = path.display().to_string();
    git(&top, &["worktree", "add", "--detach", &p, "HEAD"])
        .await
        .map_err(|e| format!("subagent: git worktree add failed: {e}"))?;
    // The same place relative to the repository root.
    let rel = cwd.strip_prefix(&top).unwrap_or(Path::new(""));
    Ok(path.join(rel))
}

/// Records the worktree's changes as `patch.diff` (never applied).
pub(super) async fn capture_patch(child: &Child) {
    let wt = child.dir.join("worktree");
    let _ = git(&wt, &["add", "-A", "--intent-to-add"]).await;
    match git(&wt, &["diff", "--binary", "HEAD"]).await {
        Ok(diff) => {
            if let Err(e) = std::fs::write(child.dir.join("patch.diff"), diff) {
                tracing::warn!("subagent {}: patch.diff: {e}", child.id);
            }
        }
        Err(e) => tracing::warn!("subagent {}: git diff: {e}", child.id),
    }
}

/// The first (`meta`) row of a session file.
pub(super) fn read_meta(path: &Path) -> Option<zut_session::Meta> {
    use std::io::BufRead as _;
    let file = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file).read_line(&mut line).ok()?;
    match zut_session::Row::parse(line.trim_end().as_bytes()).ok()? {
        zut_session::Row::Meta(m) => Some(m),
        _ => None,
    }
}
