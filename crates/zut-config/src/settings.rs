//! The effective settings of a run and where each value came from.

use std::path::PathBuf;

use zut_providers::{ProviderConfig, Reasoning};

use crate::config_file::ConfigFile;
use crate::error::ConfigError;
use crate::models_file::ModelsFile;

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag (its spelling, e.g. `--model`).
    Flag(&'static str),
    /// An environment variable (its name).
    Env(String),
    /// A file (its path) and key.
    File(PathBuf, String),
    /// zut's default, with a note.
    Default(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Flag(flag) => write!(f, "flag {flag}"),
            Self::Env(name) => write!(f, "environment {name}"),
            Self::File(path, key) => write!(f, "file {} ({key})", path.display()),
            Self::Default(note) if note.is_empty() => write!(f, "default"),
            Self::Default(note) => write!(f, "default ({note})"),
        }
    }
}

/// A value and its origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub origin: Origin,
}

impl<T> Setting<T> {
    /// A value with its origin.
    pub fn new(value: T, origin: Origin) -> Self {
        Self { value, origin }
    }
}

/// Everything resolved from flags, environment, `config.json`,
/// `models.json` and `auth.json`. Front ends (print/stream/JSON, RPC, TUI)
/// take their provider and agent settings from here.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `$ZUT_HOME/config.json`, when present.
    pub config_file: Option<ConfigFile>,
    /// `$ZUT_HOME/models.json`, when present.
    pub models_file: Option<ModelsFile>,
    /// The provider configuration, or why none could be built (reported
    /// when a model call is due, so runs that need no model still work).
    pub provider: Result<ProviderConfig, ConfigError>,
    /// Provider name (as asked, when resolution failed).
    pub provider_name: Setting<String>,
    /// Model id (as asked, when resolution failed).
    pub model: Setting<String>,
    /// Base URL (empty when unresolved).
    pub base_url: Setting<String>,
    /// Where the API key came from (`none` when there is none).
    pub api_key: Setting<String>,
    /// Reasoning effort.
    pub reasoning: Setting<Reasoning>,
    /// Sampling temperature (`None`: the provider's default).
    pub temperature: Setting<Option<f32>>,
    /// The model's context window in tokens (`None`: known window of the
    /// model, else the compaction default).
    pub context_window: Setting<Option<u64>>,
    /// Output-token cap per call (`None`: zut's default).
    pub max_output: Setting<Option<u32>>,
    /// Share of the context window that triggers automatic compaction
    /// (`None`: the compaction default; `Some(0.0)` disables).
    pub auto_compact: Setting<Option<f64>>,
    /// Theme (`auto` by default; used by the TUI).
    pub theme: Setting<String>,
    /// Terminal alerts (used by the TUI).
    pub terminal_alerts_enabled: Setting<bool>,
    /// Non-fatal problems (unknown keys are in `config_file.ignored`).
    pub warnings: Vec<String>,
    /// TLS certificates not checked (`--insecure`, config.json `insecure`),
    /// only ever for an explicit base URL (see [`crate::insecure`]).
    pub insecure_tls: Setting<bool>,
}
