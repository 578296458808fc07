//! The opt-in `sessions` capability: listing session files and answering
//! the controller's session moves.

use std::path::{Path, PathBuf};

use zut_agent::controller::SessionMoved;

use super::wire::{SessionData, SessionEntry, SessionsData};

/// The sessions of `cwd` (every directory's with `all`), newest first,
/// tree-navigation branches left out.
pub fn list(cwd: &str, zut_home: &Path, all: bool) -> SessionsData {
    let mut found = if all {
        let root = zut_session::sessions_root(zut_home);
        std::fs::read_dir(&root)
            .map(|dirs| {
                dirs.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .flat_map(|d| zut_session::list(&d, false))
                    .collect()
            })
            .unwrap_or_default()
    } else {
        zut_session::list(&zut_session::sessions_dir(zut_home, cwd), false)
    };
    found.sort_by_key(|s| std::cmp::Reverse(s.modified));
    SessionsData {
        sessions: found
            .into_iter()
            .map(|s| SessionEntry {
                id: s.id,
                path: s.path.display().to_string(),
                title: s.title,
                cwd: s.cwd,
                message_count: s.message_count,
                started: s.started,
                parent_id: s.parent,
            })
            .collect(),
    }
}

/// The file `switch_session` names: a path (relative to `cwd`), or an id
/// or unique id prefix among the sessions of `cwd`.
pub fn target(
    cwd: &str,
    zut_home: &Path,
    path: Option<String>,
    id: Option<String>,
) -> Result<PathBuf, String> {
    match (path, id) {
        (Some(p), None) => Ok(Path::new(cwd).join(p)),
        (None, Some(id)) if !id.trim().is_empty() => {
            let dir = zut_session::sessions_dir(zut_home, cwd);
            let hits: Vec<PathBuf> = zut_session::list(&dir, true)
                .into_iter()
                .filter(|s| s.id.starts_with(id.trim()))
                .map(|s| s.path)
                .collect();
            match hits.as_slice() {
                [one] => Ok(one.clone()),
                [] => Err(format!("no session with id {id:?} in {cwd}")),
                many => Err(format!(
                    "session id {id:?} is ambiguous ({} sessions match)",
                    many.len()
                )),
            }
        }
        _ => Err("switch_session needs exactly one of `path` or `session_id`".into()),
    }
}

/// A move's response data.
pub fn moved(m: &SessionMoved) -> SessionData {
    let snap = m.snapshot.as_deref();
    SessionData {
        path: m.path.as_ref().map(|p| p.display().to_string()),
        id: snap.map(|s| s.meta.id.clone()),
        title: snap.map(|s| s.title.clone()).unwrap_or_default(),
        message_count: snap.map_or(0, |s| s.messages.len()),
        model: None,
        model_warning: None,
    }
}

/// After `switch_session`: the session's provider and model restored
/// (`model` says which, `model_warning` why not when they are not
/// available now; the conversation goes on with the one in use).
pub fn restore_model(c: &zut_agent::Controller, m: &SessionMoved, d: &mut SessionData) {
    let Some(meta) = m.snapshot.as_deref().map(|s| &s.meta) else {
        return;
    };
    match c.restore_session_model(&meta.provider, &meta.model) {
        Ok(Some(label)) => d.model = Some(label),
        Ok(None) => {}
        Err(w) => d.model_warning = Some(w),
    }
}
