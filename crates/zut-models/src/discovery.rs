//! Live model discovery: after start-up, on a thread of its own that
//! nothing waits for (the first frame and a `-p` turn never do), zut asks
//! the model list of
//!
//! * the run's provider, when it uses the preset's own base URL (a hosted
//!   provider, or a local server at its default address; not a
//!   `--base-url` or a base URL variable), and
//! * every `models.json` provider with `"discover": true` whose key is a
//!   literal (the environment or `auth.json`; an `api_key_command` is only
//!   run for the provider in use),
//!
//! and caches the answer in `$ZUT_HOME/models-cache.json` for 24 hours
//! (per provider and base URL). The `/model` picker and `--list-models`
//! add the cached models they do not already know. Failures (a server that
//! hangs, an HTML page, a refused key) never reach the screen: they are
//! appended to `$ZUT_HOME/logs/discovery.log`, without the key, and
//! recorded in the cache's `failures` (a negative cache): a provider whose
//! list failed is not asked again before its `retry_at` — 5 minutes after
//! the first failure, doubling with each further one up to 24 hours — so
//! a server that is down or refuses the key is not hit on every start.
//! A success (or another base URL) clears the record. A process that
//! stays open asks again when a list goes stale ([`refresh`]).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use zut_providers::ProviderConfig;

/// The cache file under `$ZUT_HOME`.
pub const CACHE_FILE: &str = zut_providers::model_list::CACHE_FILE;
/// How long a provider's list stays fresh.
pub const TTL: Duration = Duration::from_secs(24 * 3600);
/// Longest a model list request may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// Most models kept per provider.
const MAX_MODELS: usize = 20_000;
/// Wait after a first failure; doubled by each further one.
pub const BACKOFF_FIRST: Duration = Duration::from_secs(5 * 60);
/// Longest wait between two attempts at a failing list.
pub const BACKOFF_MAX: Duration = Duration::from_secs(24 * 3600);
/// Longest error text kept in the cache.
const MAX_ERROR: usize = 300;

/// The cache file's contents.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    /// Format version (1).
    #[serde(default)]
    pub version: u32,
    /// By provider id.
    #[serde(default)]
    pub providers: BTreeMap<String, Entry>,
    /// Lists that failed, by provider id (the negative cache).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failures: BTreeMap<String, Failure>,
}

/// A provider whose model list failed: not asked again before `retry_at`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// The base URL that failed (another one is asked at once).
    pub base_url: String,
    /// Failures in a row.
    pub attempts: u32,
    /// The last failure (seconds since the Unix epoch).
    pub failed_at: u64,
    /// Not asked again before (seconds since the Unix epoch).
    pub retry_at: u64,
    /// What went wrong (never the key).
    pub error: String,
}

/// The wait after `attempts` failures in a row: [`BACKOFF_FIRST`],
/// doubled each time, at most [`BACKOFF_MAX`].
pub fn backoff(attempts: u32) -> Duration {
    let doubled = BACKOFF_FIRST
        .as_secs()
        .saturating_mul(1u64 << attempts.saturating_sub(1).min(20));
    Duration::from_secs(doubled.min(BACKOFF_MAX.as_secs()))
}

/// One provider's cached list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// When it was fetched (seconds since the Unix epoch).
    pub fetched_at: u64,
    /// The base URL it was fetched from (another one is refetched).
    pub base_url: String,
    /// The models, in the provider's order.
    pub models: Vec<CachedModel>,
}

/// One discovered model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedModel {
    /// Model id.
    pub id: String,
    /// Context window, when the list says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Output limit, when the list says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output: Option<u64>,
    /// Prices per million tokens, when the list says (OpenRouter's
    /// `pricing`; read back by `zut_providers::model_list::cached_prices`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prices: Option<zut_providers::Prices>,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The cache path under `home`.
pub fn cache_path(home: &Path) -> PathBuf {
    home.join(CACHE_FILE)
}

/// Reads the cache (empty when missing or unreadable: it is only a cache).
pub fn load(home: &Path) -> Cache {
    std::fs::read_to_string(cache_path(home))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

impl Cache {
    /// Whether `provider`'s list from `base_url` is younger than [`TTL`].
    pub fn is_fresh(&self, provider: &str, base_url: &str, now: u64) -> bool {
        self.providers.get(provider).is_some_and(|e| {
            e.base_url == base_url && now >= e.fetched_at && now - e.fetched_at < TTL.as_secs()
        })
    }

    /// Whether `provider`'s list from `base_url` failed and must not be
    /// asked before its `retry_at`.
    pub fn backing_off(&self, provider: &str, base_url: &str, now: u64) -> bool {
        self.failures
            .get(provider)
            .is_some_and(|f| f.base_url == base_url && now < f.retry_at)
    }

    /// Records a failure of `provider`'s list from `base_url` at `now`.
    pub fn record_failure(&mut self, provider: &str, base_url: &str, error: &str, now: u64) {
        let attempts = match self.failures.get(provider) {
            Some(f) if f.base_url == base_url => f.attempts.saturating_add(1),
            _ => 1,
        };
        let error: String = error.chars().take(MAX_ERROR).collect();
        self.failures.insert(
            provider.to_string(),
            Failure {
                base_url: base_url.to_string(),
                attempts,
                failed_at: now,
                retry_at: now.saturating_add(backoff(attempts).as_secs()),
                error,
            },
        );
    }
}

/// What to discover for this run (see the module docs).
pub fn targets(home: &Path, settings: &zut_config::Settings) -> Vec<ProviderConfig> {
    let mut out: Vec<ProviderConfig> = Vec::new();
    let models = settings.models_file.as_ref();
    if let Ok(current) = &settings.provider {
        let opted_in = models
            .and_then(|m| m.provider(&current.provider))
            .is_some_and(|e| e.discover);
        let preset_url = matches!(settings.base_url.origin, zut_config::Origin::Default(_));
        if (opted_in || preset_url) && zut_providers::model_list::models_url(current).is_ok() {
            out.push(current.clone());
        }
    }
    let Some(models) = models else {
        return out;
    };
    let stored = zut_providers::credentials::list(home).unwrap_or_default();
    for entry in models.providers.iter().filter(|e| e.discover) {
        if out.iter().any(|c| c.provider == entry.name) {
            continue;
        }
        // Never run a key command in the background.
        let command = stored.iter().any(|(p, s)| {
            p == &entry.name && matches!(s, zut_providers::credentials::Stored::Command(_))
        });
        if command {
            continue;
        }
        let flags = zut_config::Flags {
            provider: Some(entry.name.clone()),
            model: Some(
                entry
                    .models
                    .first()
                    .map_or_else(|| "discover".to_string(), |m| m.id.clone()),
            ),
            ..zut_config::Flags::default()
        };
        let env = |k: &str| std::env::var(k).ok();
        if let Ok(s) = zut_config::resolve(
            &flags,
            &env,
            home,
            settings.config_file.clone(),
            Some(models.clone()),
        ) {
            if let Ok(c) = s.provider {
                if zut_providers::model_list::models_url(&c).is_ok() {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// The run's targets, once the first discovery chose them (for
/// [`refresh`]).
static TARGETS: OnceLock<(PathBuf, Vec<ProviderConfig>)> = OnceLock::new();
/// A discovery thread is running (at most one at a time).
static RUNNING: AtomicBool = AtomicBool::new(false);

/// Clears [`RUNNING`] when the discovery thread ends, however it ends.
struct Running;

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.store(false, Ordering::SeqCst);
    }
}

/// Starts `work` on the discovery thread unless one is running.
fn start(work: impl FnOnce() + Send + 'static) {
    if RUNNING.swap(true, Ordering::SeqCst) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("zut-discovery".into())
        .spawn(move || {
            let _running = Running;
            work();
        });
    if spawned.is_err() {
        RUNNING.store(false, Ordering::SeqCst);
    }
}

/// Starts discovery for this run's settings on a thread of its own (the
/// targets are chosen there too); returns at once. `ZUT_NO_DISCOVERY`
/// turns it off.
pub fn spawn(home: PathBuf, settings: zut_config::Settings) {
    if std::env::var_os("ZUT_NO_DISCOVERY").is_some() {
        return;
    }
    // Without a models.json the choice is one check of the settings: made
    // here, so a run with nothing to discover starts no thread.
    if settings.models_file.is_none() {
        let targets = choose(&home, &settings);
        if !targets.is_empty() {
            start(move || run(&home, targets));
        }
        return;
    }
    start(move || {
        let targets = choose(&home, &settings);
        run(&home, targets)
    });
}

/// This run's [`targets`], recorded for [`refresh`].
fn choose(home: &Path, settings: &zut_config::Settings) -> Vec<ProviderConfig> {
    let targets = targets(home, settings);
    let _ = TARGETS.set((home.to_path_buf(), targets.clone()));
    targets
}

/// The live refresh, for processes that outlive the cache (a TUI, RPC or
/// ACP session left open for days): given the cache just read for the
/// `/model` picker or RPC `get_models`, starts the run's discovery again in
/// the background when one of its lists went stale (older than [`TTL`])
/// or its back-off ended; returns at once. The answer shows the next time
/// the list is asked for. Nothing happens before the start-up discovery
/// chose its targets, or while a discovery runs.
pub fn refresh(cache: &Cache) {
    let mut targets: Vec<(PathBuf, ProviderConfig)> = TARGETS
        .get()
        .map(|(h, t)| t.iter().map(|c| (h.clone(), c.clone())).collect())
        .unwrap_or_default();
    targets.extend(lock_logged_in().iter().cloned());
    let now = now_secs();
    let due = targets.iter().any(|(_, c)| {
        !cache.is_fresh(&c.provider, &c.base_url, now)
            && !cache.backing_off(&c.provider, &c.base_url, now)
    });
    let Some(home) = targets.first().map(|(h, _)| h.clone()) else {
        return;
    };
    if due {
        start(move || run(&home, targets.into_iter().map(|(_, c)| c).collect()));
    }
}

/// Providers logged into while this process ran (kept fresh by
/// [`refresh`] like the start-up targets).
static LOGGED_IN: Mutex<Vec<(PathBuf, ProviderConfig)>> = Mutex::new(Vec::new());

fn lock_logged_in() -> std::sync::MutexGuard<'static, Vec<(PathBuf, ProviderConfig)>> {
    LOGGED_IN.lock().unwrap_or_else(|e| e.into_inner())
}

/// A key for `config`'s provider was just saved after its model list
/// answered with `list` (`/login`, `zut auth login`): the list is cached
/// at once, so the provider's models are in `/model`, RPC `get_models` and
/// `--list-models` without a restart (an open process re-reads the cache
/// each time), and the provider is refreshed like the start-up targets
/// from then on. Only presets and models.json providers with `"discover":
/// true` are cached, as at start-up.
pub fn after_login(
    home: &Path,
    config: &ProviderConfig,
    list: Vec<zut_providers::model_list::ListedModel>,
) {
    let preset = zut_providers::preset(&config.provider).is_some();
    let opted_in = || {
        zut_config::ModelsFile::load(&zut_config::ModelsFile::path_in(home))
            .ok()
            .flatten()
            .and_then(|m| m.provider(&config.provider).map(|e| e.discover))
            .unwrap_or(false)
    };
    if !preset && !opted_in() {
        return;
    }
    store(home, config, list);
    let mut logged_in = lock_logged_in();
    logged_in.retain(|(_, c)| c.provider != config.provider);
    logged_in.push((home.to_path_buf(), config.clone()));
}

/// Fetches every target whose cache entry is stale and saves the cache.
pub fn run(home: &Path, targets: Vec<ProviderConfig>) {
    let cache = load(home);
    let now = now_secs();
    let stale: Vec<ProviderConfig> = targets
        .into_iter()
        .filter(|c| !cache.is_fresh(&c.provider, &c.base_url, now))
        .filter(|c| !cache.backing_off(&c.provider, &c.base_url, now))
        .collect();
    if stale.is_empty() {
        return;
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return log(home, &format!("cannot start the runtime: {e}")),
    };
    for config in stale {
        let result = rt.block_on(zut_providers::model_list::list_models(
            &config,
            FETCH_TIMEOUT,
        ));
        match result {
            Ok(list) => store(home, &config, list),
            // Errors of the model list never hold the key (redacted there).
            Err(e) => {
                let error = e.to_string();
                let (provider, base) = (config.provider.clone(), config.base_url.clone());
                let mut next = None;
                let saved = update(home, |cache| {
                    cache.record_failure(&provider, &base, &error, now_secs());
                    next = cache
                        .failures
                        .get(&provider)
                        .map(|f| (f.attempts, f.retry_at));
                });
                let note = match (saved, next) {
                    (Ok(()), Some((n, at))) => {
                        format!(" (failure {n} in a row; not asked again before {at})")
                    }
                    (Err(w), _) => format!(" (cannot write the cache: {w})"),
                    _ => String::new(),
                };
                log(home, &format!("{}: {error}{note}", config.provider));
            }
        }
    }
}

/// Saves `config`'s model list (just fetched) in the cache; a failure to
/// write is logged. Also used after a login, whose key check fetched the
/// list already: the provider's models are offered at once, without a
/// restart (docs/config.md).
pub fn store(
    home: &Path,
    config: &ProviderConfig,
    list: Vec<zut_providers::model_list::ListedModel>,
) {
    let models: Vec<CachedModel> = list
        .into_iter()
        .take(MAX_MODELS)
        .map(|m| CachedModel {
            id: m.id,
            context_window: m.context_window,
            max_output: m.max_output,
            prices: m.prices,
        })
        .collect();
    let entry = Entry {
        fetched_at: now_secs(),
        base_url: config.base_url.clone(),
        models,
    };
    let provider = config.provider.clone();
    let saved = update(home, |cache| {
        cache.failures.remove(&provider);
        cache.providers.insert(provider.clone(), entry);
    });
    if let Err(e) = saved {
        log(
            home,
            &format!("{}: cannot write the cache: {e}", config.provider),
        );
    }
}

/// Re-reads the cache, applies `change` and replaces the file (temporary
/// file + rename, so readers never see half a file), under an exclusive
/// lock on `models-cache.json.lock`: two zut processes (or two discovery
/// threads) updating at once each keep the other's providers.
fn update(home: &Path, change: impl FnOnce(&mut Cache)) -> std::io::Result<()> {
    std::fs::create_dir_all(home)?;
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(home.join(format!("{CACHE_FILE}.lock")))?;
    lock.lock()?;
    let mut cache = load(home);
    cache.version = 1;
    change(&mut cache);
    let text = serde_json::to_vec(&cache).map_err(std::io::Error::other)?;
    let path = cache_path(home);
    let tmp = home.join(format!(".{CACHE_FILE}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Appends a line to `$ZUT_HOME/logs/discovery.log`.
fn log(home: &Path, message: &str) {
    if home.as_os_str().is_empty() {
        return;
    }
    let dir = home.join("logs");
    let _ = std::fs::create_dir_all(&dir);
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("discovery.log"))
    {
        let _ = writeln!(f, "{} discovery: {message}", now_secs());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn freshness_follows_the_ttl_and_the_base_url() {
        let mut c = Cache::default();
        c.providers.insert(
            "openai".into(),
            Entry {
                fetched_at: 1000,
                base_url: "https://api.openai.com/v1".into(),
                models: vec![],
            },
        );
        assert!(c.is_fresh("openai", "https://api.openai.com/v1", 1000 + 3600));
        assert!(!c.is_fresh("openai", "https://api.openai.com/v1", 1000 + 24 * 3600));
        assert!(!c.is_fresh("openai", "http://127.0.0.1:1/v1", 1001));
        assert!(!c.is_fresh("groq", "x", 1001));
    }

    #[test]
    fn concurrent_updates_keep_every_provider() {
        let home = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let home = home.path().to_path_buf();
                std::thread::spawn(move || {
                    for round in 0..5 {
                        update(&home, |c| {
                            c.providers.insert(
                                format!("p{i}"),
                                Entry {
                                    fetched_at: round,
                                    base_url: format!("http://127.0.0.1:{i}/v1"),
                                    models: vec![],
                                },
                            );
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let cache = load(home.path());
        assert_eq!(cache.providers.len(), 8, "{:?}", cache.providers.keys());
        assert!(cache.providers.values().all(|e| e.fetched_at == 4));
    }

    #[test]
    fn failures_back_off_doubling_up_to_a_day_and_per_base_url() {
        assert_eq!(backoff(1), Duration::from_secs(300));
        assert_eq!(backoff(2), Duration::from_secs(600));
        assert_eq!(backoff(5), Duration::from_secs(4800));
        assert_eq!(backoff(9), Duration::from_secs(76_800));
        assert_eq!(backoff(10), BACKOFF_MAX);
        assert_eq!(backoff(u32::MAX), BACKOFF_MAX);
        let mut c = Cache::default();
        let url = "http://127.0.0.1:9/v1";
        c.record_failure("co", url, &"x".repeat(1000), 1000);
        assert!(c.backing_off("co", url, 1000 + 299));
        assert!(!c.backing_off("co", url, 1000 + 300));
        assert!(!c.backing_off("co", "http://other/v1", 1001));
        assert!(!c.backing_off("groq", url, 1001));
        c.record_failure("co", url, "again", 2000);
        let f = &c.failures["co"];
        assert_eq!((f.attempts, f.retry_at), (2, 2600));
        c.record_failure("co", "http://other/v1", "new url", 3000);
        assert_eq!(c.failures["co"].attempts, 1);
        c.record_failure("co", url, &"é".repeat(1000), 3000);
        assert_eq!(c.failures["co"].error.chars().count(), MAX_ERROR);
    }
}
