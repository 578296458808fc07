//! Moving an agent to another session file: switching (resume, picker,
//! tree navigation) and forking the current session
//! (sessions-themes-skills.md §1.7), with the extension events of the
//! interactive modes: `session_forked` (for a file with a parent) then
//! `session_switched`, each extension receiving only its own state.

use std::path::PathBuf;

use zut_protocol::EventName;
use zut_session::{ForkOptions, SessionWriter, Snapshot};

use crate::agent::Agent;

impl Agent {
    /// Replaces the attached session with `writer` (closing the old one),
    /// restores the transcript from `snapshot`, gives the host the file's
    /// extension states and announces the switch: `session_forked` first
    /// when the file has a parent, then `session_switched`.
    pub fn switch_session(&mut self, writer: SessionWriter, snapshot: &Snapshot) {
        if let Some(Err(e)) = self.close_session() {
            tracing::warn!("closing the previous session: {e}");
        }
        self.attach_session(writer, Some(snapshot));
        let Some(host) = self.host.clone() else {
            return;
        };
        host.set_states(
            snapshot
                .states
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), serde_json::from_str(v.get()).ok()?)))
                .collect(),
        );
        let info = self.session.as_ref().map(|s| s.info());
        if snapshot.meta.parent.is_empty() {
            host.emit_session_event(EventName::SESSION_SWITCHED, info);
        } else {
            host.emit_session_event(EventName::SESSION_FORKED, info.clone());
            host.emit_session_event(EventName::SESSION_SWITCHED, info);
        }
    }

    /// Forks the attached session at effective message `at` into a new
    /// file in the sessions directory of the agent's cwd and switches to it (see
    /// [`Agent::switch_session`]). `hidden` marks a tree-navigation branch.
    /// Returns the new file's path.
    pub fn fork_session(&mut self, at: usize, hidden: bool) -> Result<PathBuf, String> {
        let Some(current) = self.session.as_ref() else {
            return Err("no session to fork (--no-session)".into());
        };
        let parent = current.writer().path().to_path_buf();
        let cwd = self.config.cwd.display().to_string();
        let opts = ForkOptions {
            dir: zut_session::sessions_dir(&self.config.system.zut_home, &cwd),
            cwd: Some(cwd),
            version: env!("CARGO_PKG_VERSION").to_string(),
            hidden,
        };
        let forked = zut_session::fork(&parent, at, &opts).map_err(|e| e.to_string())?;
        let (writer, snapshot) = SessionWriter::open(&forked.path).map_err(|e| e.to_string())?;
        self.switch_session(writer, &snapshot);
        Ok(forked.path)
    }
}
