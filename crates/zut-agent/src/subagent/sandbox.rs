//! A profile's `sandbox` key: a child runs under its parent's jail or a
//! narrower one, never a wider one (docs/subagents.md, "Sandbox").
//!
//! | value | the child's jail |
//! |---|---|
//! | `inherit` (default) | the parent's switch: jailed when the parent is, `/jail` and `/unjail` reach it |
//! | `jail`, `workspace-write` | always jailed (the parent's jail policy at the child's directory), whatever the parent's switch |
//! | `read-only` | always jailed, and writable only in the temporary directories |
//! | `off`, `none`, `danger-full-access` | asks for more than a jailed parent has: the child gets the parent's (with a note) |
//!
//! The Go original's profiles have no such key; the values follow codex's
//! `sandbox_mode` (`read-only`, `workspace-write`, `danger-full-access`),
//! which the key also accepts as `sandboxMode` / `sandbox_mode`.

use std::path::Path;

use zut_tools::JailSwitch;

/// What a profile asks of the child's sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SandboxMode {
    /// The parent's jail switch as it is.
    #[default]
    Inherit,
    /// Always jailed.
    Jail,
    /// Always jailed, writes only to the temporary directories.
    ReadOnly,
    /// No jail: never granted beyond the parent's.
    Off,
}

impl SandboxMode {
    /// Parses a profile's value.
    pub fn parse(value: &str) -> Result<Self, String> {
        match value.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "" | "inherit" | "parent" => Ok(SandboxMode::Inherit),
            "jail" | "jailed" | "workspace-write" => Ok(SandboxMode::Jail),
            "read-only" | "readonly" => Ok(SandboxMode::ReadOnly),
            "off" | "none" | "unjailed" | "danger-full-access" => Ok(SandboxMode::Off),
            other => Err(format!(
                "expected inherit, jail, read-only or off, found {other:?}"
            )),
        }
    }

    /// The name `zut agents show` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::Inherit => "inherit",
            SandboxMode::Jail => "jail",
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::Off => "off",
        }
    }
}

/// The child's jail switch for `mode` at `cwd` (the parent works at
/// `parent_cwd`).
pub fn child_jail(
    parent: &JailSwitch,
    parent_cwd: &Path,
    mode: SandboxMode,
    cwd: &Path,
) -> JailSwitch {
    match mode {
        // The parent's own switch when the child works in the same place
        // (its jail is built once for both).
        SandboxMode::Inherit | SandboxMode::Off if cwd == parent_cwd => parent.clone(),
        SandboxMode::Inherit | SandboxMode::Off => parent.for_cwd(cwd),
        SandboxMode::Jail => parent.narrowed(cwd, false),
        SandboxMode::ReadOnly => parent.narrowed(cwd, true),
    }
}

/// The note of a spawn whose profile asks for more than the parent has
/// (`sandbox: off` under a jailed parent): the child gets the parent's.
pub fn wider_note(parent: &JailSwitch, mode: SandboxMode) -> Option<String> {
    (mode == SandboxMode::Off && parent.is_jailed()).then(|| {
        "note: the profile asks for `sandbox: off`, but a child never gets more than its parent: it runs under the parent's jail".to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(SandboxMode::parse("read_only"), Ok(SandboxMode::ReadOnly));
        assert_eq!(SandboxMode::parse("Workspace-Write"), Ok(SandboxMode::Jail));
        assert_eq!(
            SandboxMode::parse("danger-full-access"),
            Ok(SandboxMode::Off)
        );
        assert!(SandboxMode::parse("loose").is_err());
    }

    #[test]
    fn never_wider_than_the_parent() {
        let dir = std::path::PathBuf::from("/nonexistent-project");
        let spec = zut_sandbox::JailSpec {
            cwd: dir.clone(),
            ..Default::default()
        };
        let jailed = JailSwitch::new(spec.clone(), true);
        let c = child_jail(&jailed, &dir, SandboxMode::Off, &dir);
        assert!(c.is_jailed());
        let note = wider_note(&jailed, SandboxMode::Off);
        assert!(note.is_some_and(|n| n.contains("parent's jail")));
        let open = JailSwitch::new(spec, false);
        let c = child_jail(&open, &dir, SandboxMode::Off, &dir);
        assert!(!c.is_jailed() && wider_note(&open, SandboxMode::Off).is_none());
        let c = child_jail(&open, &dir, SandboxMode::Jail, &dir);
        assert!(c.is_jailed() && !c.read_only());
        let c = child_jail(&open, &dir, SandboxMode::ReadOnly, &dir);
        assert!(c.is_jailed() && c.read_only());
        // The parent's `/jail` and `/unjail` do not loosen a narrowed child.
        open.set_jailed(false);
        assert!(c.is_jailed());
        let inherit = child_jail(&open, &dir, SandboxMode::Inherit, &dir);
        open.set_jailed(true);
        assert!(
            inherit.is_jailed(),
            "an inheriting child follows the switch"
        );
    }
}
