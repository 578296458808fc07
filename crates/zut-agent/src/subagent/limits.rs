//! Children's limits: how many turns run at once and how long one may
//! run — `ZUT_SUBAGENTS_MAX_CONCURRENT` / `ZUT_SUBAGENTS_TIMEOUT`, else
//! `config.json` `subagents` ([`Limits`]), else the defaults.

use std::time::Duration;

/// Default per-turn time budget of a child.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);

/// Children's limits from the configuration (`config.json` `subagents`);
/// `None`: the environment or the default decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// `subagents.max_concurrent`.
    pub max_concurrent: Option<usize>,
    /// `subagents.timeout`.
    pub timeout: Option<Duration>,
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
