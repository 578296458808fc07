//! What the host observed about each extension, for `ext doctor`.

use std::path::PathBuf;

use crate::discovery::Scope;

/// Readiness of a started extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Still waiting for `ready`.
    NotReady,
    /// Sent `ready`.
    Ready,
    /// Never sent `ready`; went quiet for 250 ms after `hello_ack`.
    AutoReady,
    /// Not ready when the shared ready deadline passed.
    ReadyTimeout,
}

impl Readiness {
    /// Whether waiters may proceed.
    pub fn is_settled(self) -> bool {
        !matches!(self, Self::NotReady)
    }
}

/// Whether a registration owns its slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// Owns the name.
    Active,
    /// Lost the name to another registration (or to a built-in).
    Shadowed,
}

impl SlotState {
    /// `active` or `shadowed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Shadowed => "shadowed",
        }
    }
}

/// A registration as listed by doctor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// Name as registered.
    pub name: String,
    /// Active or shadowed.
    pub state: SlotState,
}

/// Snapshot of one started (or theme-only) extension.
#[derive(Debug, Clone)]
pub struct ExtensionReport {
    /// Manifest name.
    pub name: String,
    /// Manifest version.
    pub version: String,
    /// Extension directory.
    pub dir: PathBuf,
    /// Where it was found.
    pub scope: Scope,
    /// `exec` as written.
    pub exec: String,
    /// Log path (None for theme-only extensions).
    pub log: Option<PathBuf>,
    /// Whether it spawns nothing.
    pub theme_only: bool,
    /// Readiness.
    pub readiness: Readiness,
    /// Whether its process is still connected.
    pub alive: bool,
    /// Registered commands, in registration order.
    pub commands: Vec<Registration>,
    /// Registered tools, in registration order.
    pub tools: Vec<Registration>,
    /// Bundled `SKILL.md` files accepted from the manifest's `skills`
    /// (rejected paths are `skill: …` diagnostics).
    pub skill_files: Vec<PathBuf>,
    /// Warnings, in the order they happened.
    pub diagnostics: Vec<String>,
}
