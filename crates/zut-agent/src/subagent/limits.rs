//! Children's limits: how many turns run at once and how long one may
//! run — `ZUT_SUBAGENTS_MAX_CONCURRENT` / `ZUT_SUBAGENTS_TIMEOUT`, else
//! `config.json` `subagents` ([`Limits`]), else the defaults — and the
//! configured ceiling: how long a turn may wait for a slot
//! (`queue_timeout`), the tools a child may get (`allowed_tools`) and the
//! directories it may work from (`allowed_roots`).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default per-turn time budget of a child.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// Children's limits from the configuration (`config.json` `subagents`);
/// `None`: the environment or the default decides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limits {
    /// `subagents.max_concurrent`.
    pub max_concurrent: Option<usize>,
    /// `subagents.timeout`.
    pub timeout: Option<Duration>,
    /// `subagents.queue_timeout`: a turn that waits longer for a slot
    /// fails (`None`: it waits as long as it takes).
    pub queue_timeout: Option<Duration>,
    /// `subagents.allowed_tools`: the only tools a child may get (the web
    /// tools by `web_search`); `None`: no ceiling.
    pub allowed_tools: Option<Vec<String>>,
    /// `subagents.allowed_roots` (absolute): a child's workspace must be
    /// in one of them; `None`: anywhere.
    pub allowed_roots: Option<Vec<PathBuf>>,
}

impl Limits {
    /// Whether `allowed_tools` lets a child have tool `name`.
    pub fn allows_tool(&self, name: &str) -> bool {
        let Some(allowed) = &self.allowed_tools else {
            return true;
        };
        let name = if zut_web::is_web_tool(name) {
            "web_search"
        } else {
            name
        };
        allowed.iter().any(|a| a == name)
    }

    /// `Ok` when `dir` (a child's workspace, or the repository its
    /// worktree is made from) is inside one of `allowed_roots`; symbolic
    /// links are resolved on both sides.
    pub fn check_root(&self, dir: &Path) -> Result<(), String> {
        let Some(roots) = &self.allowed_roots else {
            return Ok(());
        };
        let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let d = real(dir);
        if roots.iter().any(|r| d.starts_with(real(r))) {
            return Ok(());
        }
        Err(format!(
            "subagent: workspace {} is outside subagents.allowed_roots ({})",
            dir.display(),
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// `ZUT_SUBAGENTS_MAX_CONCURRENT`, else `configured`, else the CPU count.
pub fn max_concurrent_from_env(configured: Option<usize>) -> usize {
    std::env::var("ZUT_SUBAGENTS_MAX_CONCURRENT")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
        .or(configured.filter(|n| *n > 0))
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(usize::from)
                .unwrap_or(4)
        })
}

/// `ZUT_SUBAGENTS_TIMEOUT` (seconds), else `configured`, else
/// [`DEFAULT_TIMEOUT`].
pub fn timeout_from_env(configured: Option<Duration>) -> Duration {
    std::env::var("ZUT_SUBAGENTS_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|n| *n > 0)
        .map(Duration::from_secs)
        .or(configured.filter(|d| !d.is_zero()))
        .unwrap_or(DEFAULT_TIMEOUT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceiling() {
        let open = Limits::default();
        assert!(open.allows_tool("bash") && open.check_root(Path::new("/x")).is_ok());
        let l = Limits {
            allowed_tools: Some(vec!["read".into(), "web_search".into()]),
            allowed_roots: Some(vec![PathBuf::from("/srv/work")]),
            ..Default::default()
        };
        assert!(l.allows_tool("read") && !l.allows_tool("bash"));
        assert!(l.allows_tool("web_open"), "the web tools go by web_search");
        assert!(l.check_root(Path::new("/srv/work/a/b")).is_ok());
        let e = l.check_root(Path::new("/srv/workshop")).unwrap_err();
        assert!(
            e.contains("outside subagents.allowed_roots (/srv/work)"),
            "{e}"
        );
    }
}
