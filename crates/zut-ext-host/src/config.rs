//! Host configuration and timeouts.

use std::path::PathBuf;
use std::time::Duration;

use zut_protocol::limits;

use crate::home::ZutHome;

/// Default [`Timeouts::panel_key_pace`].
pub const PANEL_KEY_PACE: Duration = Duration::from_millis(50);

/// Every timer of the host, defaulting to the protocol's values.
#[derive(Debug, Clone)]
pub struct Timeouts {
    /// Wait for the first `hello` line (10 s; Go has none).
    pub hello: Duration,
    /// Grace after stdout EOF before `hello` (1 s).
    pub exit_before_hello: Duration,
    /// Auto-ready idle window (250 ms).
    pub auto_ready_idle: Duration,
    /// Shared ready deadline (3 s).
    pub ready: Duration,
    /// `command_invoked` reply (30 s).
    pub command: Duration,
    /// `tool_call` reply (60 s).
    pub tool: Duration,
    /// `event_intercept` reply, per extension (5 s).
    pub intercept: Duration,
    /// Shutdown grace before SIGTERM (2 s).
    pub shutdown_grace: Duration,
    /// SIGTERM to SIGKILL (1 s).
    pub term_to_kill: Duration,
    /// Longest wait for a frame for a panel before its next queued
    /// `panel_key` is written anyway (50 ms; Go has no pacing).
    pub panel_key_pace: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            hello: limits::HELLO_TIMEOUT,
            exit_before_hello: limits::EXIT_GRACE_BEFORE_HELLO,
            auto_ready_idle: limits::AUTO_READY_IDLE,
            ready: limits::READY_TIMEOUT,
            command: limits::COMMAND_TIMEOUT,
            tool: limits::TOOL_TIMEOUT,
            intercept: limits::INTERCEPT_TIMEOUT,
            shutdown_grace: limits::SHUTDOWN_GRACE,
            term_to_kill: limits::TERM_TO_KILL,
            panel_key_pace: PANEL_KEY_PACE,
        }
    }
}

/// What the host needs to know about its surroundings.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// `$ZUT_HOME`.
    pub home: ZutHome,
    /// Absolute project directory (`hello_ack.cwd`, project scope).
    pub cwd: PathBuf,
    /// `--ext` paths (absolute), in command-line order.
    pub ext_paths: Vec<PathBuf>,
    /// `--no-ext`: skip discovery (also on reload).
    pub no_ext: bool,
    /// `hello_ack.zut_version`.
    pub zut_version: String,
    /// `hello_ack.provider`.
    pub provider: String,
    /// `hello_ack.model`.
    pub model: String,
    /// Built-in slash commands (always win, case-insensitively).
    pub builtin_commands: Vec<String>,
    /// Active built-in tools (always win).
    pub builtin_tools: Vec<String>,
    /// Whether a session persists extension state (`details`).
    pub persist_state: bool,
    /// Extension state snapshots restored from the session being opened,
    /// by manifest name (each extension only ever receives its own, in the
    /// session events the embedder emits).
    pub states: std::collections::HashMap<String, serde_json::Value>,
    /// Timers.
    pub timeouts: Timeouts,
    /// `extension_sandbox: "strict"`: extensions without `permissions`
    /// run in the minimal policy instead of unconfined.
    pub strict_sandbox: bool,
}

impl HostConfig {
    /// A configuration with default timers and no built-ins.
    pub fn new(home: ZutHome, cwd: impl Into<PathBuf>) -> Self {
        Self {
            home,
            cwd: cwd.into(),
            ext_paths: Vec::new(),
            no_ext: false,
            zut_version: env!("CARGO_PKG_VERSION").to_string(),
            provider: String::new(),
            model: String::new(),
            builtin_commands: Vec::new(),
            builtin_tools: Vec::new(),
            persist_state: false,
            states: std::collections::HashMap::new(),
            timeouts: Timeouts::default(),
            strict_sandbox: false,
        }
    }
}
