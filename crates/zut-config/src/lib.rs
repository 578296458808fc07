//! zut's configuration: `$ZUT_HOME/config.json` (the Go original's user
//! settings), `$ZUT_HOME/models.json` (custom providers and models), the
//! environment and the command-line flags, resolved into one [`Settings`]
//! that records where each value came from.
//!
//! Entry point: [`load`]. Front ends (print/stream/JSON, RPC, TUI) build
//! their provider and agent settings from its result; `zut config` prints
//! it. Errors ([`ConfigError`]) name the file and the key.
//!
//! Knows the provider presets and credentials of `zut-providers`; knows
//! nothing of the agent, extensions or front ends.

pub mod config_file;
pub mod error;
pub mod goals_keys;
pub mod insecure;
pub mod models_file;
mod read;
pub mod resolve;
pub mod sandbox;
pub mod settings;
pub mod subagents_keys;
pub mod web_keys;

pub use config_file::ConfigFile;
pub use error::ConfigError;
pub use models_file::{key_env_for, Api, CustomModel, ModelsFile, ProviderEntry};
pub use resolve::{base_url_env, load, resolve, Flags};
pub use sandbox::{SandboxConfig, SandboxNetwork};
pub use settings::{Origin, Setting, Settings};
pub use web_keys::{web_search_key, WebKeys};
