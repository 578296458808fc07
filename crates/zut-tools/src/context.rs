//! The environment a tool call runs in.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// Receives live output chunks while a tool runs (today only `bash` streams).
/// Chunks are valid UTF-8 and arrive in order; they are advisory and do not
/// replace the final [`crate::ToolOutput`].
pub type ProgressFn = Arc<dyn Fn(&str) + Send + Sync>;

/// Per-call context: where relative paths resolve and how to cancel.
#[derive(Clone)]
pub struct ToolContext {
    /// Working directory; relative tool paths resolve against it and `bash`
    /// runs in it.
    pub cwd: PathBuf,
    /// Cancelling this token stops the call: `bash` kills its process group,
    /// `grep` stops walking. The output then says it was cancelled.
    pub cancel: CancellationToken,
    /// Optional live-output sink (see [`ProgressFn`]).
    pub progress: Option<ProgressFn>,
    /// Where `read`, `write` and `edit` get and put text (an editor's
    /// buffers over ACP); `None`: the disk.
    pub files: Option<Arc<dyn crate::FileAccess>>,
    /// The language-server manager behind `lsp` and the diagnostics
    /// attached after `write`/`edit`; `None`: no LSP (`--no-lsp`).
    pub lsp: Option<Arc<dyn crate::CodeIntel>>,
    /// The Python interpreter `python` must use (`python_interpreter` in
    /// config.json; relative paths resolve against `cwd`). `None`:
    /// discover one (`VIRTUAL_ENV`, `./.venv`, `python3`/`python` on PATH).
    pub python_interpreter: Option<PathBuf>,
    /// `$ZUT_HOME`: `worktree` creates worktrees under
    /// `$ZUT_HOME/worktrees/<repo-id>` unless the repository configures a
    /// root. `None`: only a configured root is used.
    pub zut_home: Option<PathBuf>,
    /// The jail, when jailed: `bash` (and `python`) run inside it, `read`,
    /// `write`, `edit` and `grep` refuse paths outside its scopes. Set per
    /// job; a command that is running keeps the one it started with.
    pub jail: Option<Arc<zut_sandbox::Prepared>>,
}

impl ToolContext {
    /// A context rooted at `cwd` with a fresh cancellation token and no
    /// progress sink.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            cancel: CancellationToken::new(),
            progress: None,
            files: None,
            lsp: None,
            python_interpreter: None,
            zut_home: None,
            jail: None,
        }
    }

    /// Runs jailed in `jail` (or unjailed for `None`).
    pub fn with_jail(mut self, jail: Option<Arc<zut_sandbox::Prepared>>) -> Self {
        self.jail = jail;
        self
    }

    /// Replaces the cancellation token.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets the live-output sink.
    pub fn with_progress(mut self, progress: ProgressFn) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Routes `read`, `write` and `edit` through `files`.
    pub fn with_files(mut self, files: Arc<dyn crate::FileAccess>) -> Self {
        self.files = Some(files);
        self
    }

    /// Sets the language-server manager (see [`crate::CodeIntel`]).
    pub fn with_lsp(mut self, lsp: Arc<dyn crate::CodeIntel>) -> Self {
        self.lsp = Some(lsp);
        self
    }

    /// Sets the interpreter `python` uses (see [`ToolContext::python_interpreter`]).
    pub fn with_python_interpreter(mut self, exe: impl Into<PathBuf>) -> Self {
        self.python_interpreter = Some(exe.into());
        self
    }

    /// Sets `$ZUT_HOME` (see [`ToolContext::zut_home`]).
    pub fn with_zut_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.zut_home = Some(home.into());
        self
    }

    /// Resolves a tool path: `~` and `~/…` expand to `$HOME`, absolute paths
    /// stay, relative paths join [`ToolContext::cwd`].
    pub fn resolve(&self, path: &str) -> PathBuf {
        resolve_path(&self.cwd, path)
    }

    pub(crate) fn report_progress(&self, chunk: &str) {
        if let Some(p) = &self.progress {
            if !chunk.is_empty() {
                p(chunk);
            }
        }
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("cwd", &self.cwd)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("progress", &self.progress.is_some())
            .field("files", &self.files.is_some())
            .field("lsp", &self.lsp.is_some())
            .field("python_interpreter", &self.python_interpreter)
            .field("zut_home", &self.zut_home)
            .field("jailed", &self.jail.is_some())
            .finish()
    }
}

pub(crate) fn resolve_path(cwd: &Path, path: &str) -> PathBuf {
    if path == "~" || path.starts_with("~/") {
        if let Some(home) = std::env::var_os("HOME") {
            let rest = path.trim_start_matches('~').trim_start_matches('/');
            let home = PathBuf::from(home);
            return if rest.is_empty() {
                home
            } else {
                home.join(rest)
            };
        }
    }
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}
