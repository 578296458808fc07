//! The jail as the tools see it: path checks for `read`, `write`, `edit`,
//! `grep`, `glob`, `ast`, `worktree` and the `lsp` tool, and denial explanations for `bash` (and the `python` tool:
//! it runs its interpreter through [`zut_process::spawn`] with
//! [`ToolContext::jail`] as the sandbox, then calls [`annotate`]).
//!
//! The path checks are the same rules the kernel applies to a jailed
//! `bash` ([`zut_sandbox::Policy::check_read`], `check_write`); they run in
//! zut's own process, so they are checks, not confinement: a path swapped
//! for a symlink between the check and the open is not caught (the kernel
//! catches it for `bash`).

use std::path::Path;

use crate::{ToolContent, ToolContext, ToolOutput};

/// `Ok` when `path` may be read (or when not jailed); otherwise the error
/// output naming the path and the rule.
pub fn check_read(ctx: &ToolContext, path: &Path) -> Result<(), ToolOutput> {
    match &ctx.jail {
        Some(j) => j.policy().check_read(path).map_err(refusal),
        None => Ok(()),
    }
}

/// `Ok` when `path` may be written (or when not jailed); otherwise the
/// error output naming the path and the rule.
pub fn check_write(ctx: &ToolContext, path: &Path) -> Result<(), ToolOutput> {
    match &ctx.jail {
        Some(j) => j.policy().check_write(path).map_err(refusal),
        None => Ok(()),
    }
}

/// [`check_read`] for tools whose errors are strings: the refusal text.
pub fn read_denied(ctx: &ToolContext, path: &Path) -> Option<String> {
    let j = ctx.jail.as_ref()?;
    j.policy().check_read(path).err().map(refusal_text)
}

/// [`check_write`] for tools whose errors are strings: the refusal text.
pub fn write_denied(ctx: &ToolContext, path: &Path) -> Option<String> {
    let j = ctx.jail.as_ref()?;
    j.policy().check_write(path).err().map(refusal_text)
}

/// Whether a walk (`glob`, `grep`, `ast`) may show `path`: always when not
/// jailed; jailed, not inside a location the jail keeps secret.
pub(crate) fn readable(jail: Option<&zut_sandbox::Prepared>, path: &Path) -> bool {
    jail.is_none_or(|j| j.policy().check_read(path).is_ok())
}

fn refusal(d: zut_sandbox::Denied) -> ToolOutput {
    ToolOutput::error(refusal_text(d))
}

fn refusal_text(d: zut_sandbox::Denied) -> String {
    format!(
        "{d}. The jail confines tools to the session directory; ask the user to /unjail if this \
         path is needed."
    )
}

/// Appends to a jailed command's output what the jail refused (paths and
/// the rule, network, system calls), the proxy's refusals, and — once per
/// jail — what this machine could not enforce. The program's own output
/// is kept. No-op when not jailed.
pub fn annotate(ctx: &ToolContext, out: &mut ToolOutput) {
    let Some(j) = &ctx.jail else {
        return;
    };
    let mut notes: Vec<String> = Vec::new();
    let text: String = out
        .content
        .iter()
        .filter_map(|c| match c {
            ToolContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(e) = zut_sandbox::explain(&text, j.policy(), &ctx.cwd) {
        notes.push(e);
    }
    if let Some(p) = j.proxy() {
        notes.extend(
            p.take_denials()
                .into_iter()
                .map(|d| format!("[sandbox] {d}")),
        );
    }
    if let Some(n) = j.take_notes_once() {
        notes.push(format!("[sandbox] not enforced here: {n}"));
    }
    if notes.is_empty() {
        return;
    }
    if let Some(ToolContent::Text(t)) = out.content.last_mut() {
        t.push_str("\n\n");
        t.push_str(&notes.join("\n"));
    } else {
        out.content.push(ToolContent::Text(notes.join("\n")));
    }
}

/// The jail switch of a session: whether tools are jailed, and the jail
/// they get. Shared (clones see the same switch), so a front end can flip
/// it between jobs (`/jail`, `/unjail`); each tool call takes the jail in
/// force when it starts ([`JailSwitch::current`]) and keeps it to the end,
/// so a running command stays jailed after `/unjail`.
///
/// [`JailSwitch::for_cwd`] makes a switch for another directory (a
/// subagent's worktree) that follows this one's on/off state.
#[derive(Clone, Default)]
pub struct JailSwitch {
    on: std::sync::Arc<std::sync::atomic::AtomicBool>,
    inner: std::sync::Arc<std::sync::Mutex<SwitchState>>,
}

#[derive(Default)]
struct SwitchState {
    spec: Option<zut_sandbox::JailSpec>,
    built: Option<std::sync::Arc<zut_sandbox::Prepared>>,
    /// Writes only to the temporary directories ([`JailSwitch::narrowed`]).
    read_only: bool,
}

impl std::fmt::Debug for JailSwitch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JailSwitch")
            .field("jailed", &self.is_jailed())
            .finish()
    }
}

impl JailSwitch {
    /// A switch for `spec`, on or off.
    pub fn new(spec: zut_sandbox::JailSpec, on: bool) -> Self {
        Self {
            on: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(on)),
            inner: std::sync::Arc::new(std::sync::Mutex::new(SwitchState {
                spec: Some(spec),
                built: None,
                read_only: false,
            })),
        }
    }

    /// The same jail rooted at `cwd` instead of the session directory (a
    /// subagent's worktree): on and off with this switch (`/jail` and
    /// `/unjail` reach both), the rest of its policy unchanged.
    pub fn for_cwd(&self, cwd: &std::path::Path) -> Self {
        let spec = self.inner.lock().ok().and_then(|s| s.spec.clone());
        Self {
            on: self.on.clone(),
            inner: std::sync::Arc::new(std::sync::Mutex::new(SwitchState {
                spec: spec.map(|mut spec| {
                    spec.cwd = cwd.to_path_buf();
                    spec
                }),
                built: None,
                read_only: self.read_only(),
            })),
        }
    }

    /// A subagent's narrower jail, rooted at `cwd`: always on (whatever
    /// this switch's state — `/unjail` does not reach it), and with
    /// `read_only`, writable only in the temporary directories (not `cwd`,
    /// not the configured writable paths). Its policy is otherwise this
    /// switch's, so it is never wider than the parent's jail.
    pub fn narrowed(&self, cwd: &std::path::Path, read_only: bool) -> Self {
        let mut s = self.for_cwd(cwd);
        s.on = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        if let Ok(mut st) = s.inner.lock() {
            st.read_only = st.read_only || read_only;
        }
        s
    }

    /// Whether the jail lets tools write only in the temporary directories.
    pub fn read_only(&self) -> bool {
        self.inner.lock().is_ok_and(|s| s.read_only)
    }

    /// Jails (`true`) or unjails the next tool calls.
    pub fn set_jailed(&self, on: bool) {
        self.on.store(on, std::sync::atomic::Ordering::SeqCst);
    }

    /// Whether the next tool calls are jailed.
    pub fn is_jailed(&self) -> bool {
        self.on.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Replaces what the jail is built from (a new session directory, new
    /// configured paths); the next call builds it anew.
    pub fn set_spec(&self, spec: zut_sandbox::JailSpec) {
        if let Ok(mut s) = self.inner.lock() {
            s.spec = Some(spec);
            s.built = None;
        }
    }

    /// What the jail is built from (`None` for a default switch). For
    /// children that take the jail's policy whether or not the session is
    /// jailed (an MCP server configured with `sandbox: "jail"`).
    pub fn spec(&self) -> Option<zut_sandbox::JailSpec> {
        self.inner.lock().ok().and_then(|s| s.spec.clone())
    }

    /// The jail for a tool call starting now: `Ok(None)` when unjailed;
    /// built once and shared by the calls that follow. An error (the
    /// kernel refused a rule, no runtime for the proxy) is a text for the
    /// model: the call must not run unjailed when the user asked for a
    /// jail.
    pub fn current(&self) -> Result<Option<std::sync::Arc<zut_sandbox::Prepared>>, String> {
        if !self.is_jailed() {
            return Ok(None);
        }
        let Ok(mut s) = self.inner.lock() else {
            return Err("the jail's state is unavailable".into());
        };
        if let Some(b) = &s.built {
            return Ok(Some(b.clone()));
        }
        let Some(spec) = &s.spec else {
            return Err("the jail has no session directory".into());
        };
        let prepared = std::sync::Arc::new(zut_sandbox::Prepared::new(policy(spec, s.read_only))?);
        s.built = Some(prepared.clone());
        Ok(Some(prepared))
    }

    /// One line for `/info` and the status bar: `jailed to <cwd> (…)` or
    /// `unjailed`, with what this machine enforces.
    pub fn describe(&self) -> String {
        let on = self.is_jailed();
        let s = match self.inner.lock() {
            Ok(s) => s,
            Err(_) => return "unknown".into(),
        };
        match (&s.spec, on) {
            (Some(spec), true) => format!(
                "jailed to {} ({}; {})",
                spec.cwd.display(),
                policy(spec, s.read_only).summary(),
                zut_sandbox::status().line()
            ),
            _ => "unjailed".into(),
        }
    }
}

/// The jail's policy for `spec`; `read_only`: writable only in the
/// temporary directories.
fn policy(spec: &zut_sandbox::JailSpec, read_only: bool) -> zut_sandbox::Policy {
    let mut p = zut_sandbox::Policy::jail(spec);
    if read_only {
        p.name = "the read-only jail".into();
        p.write = zut_sandbox::temp_dirs();
    }
    p
}
