//! The interactive mode's session pickers, conversation side: the rows of
//! `/sessions`, `/fork`, the session tree and `/model`, and what a pick
//! does (resume another file, fork, check out a point of the history).
//!
//! The moves themselves are controller operations (`new_session`,
//! `resume_session`, `fork_session`, `rename_session`): each is a job that
//! runs before anything queued, after aborting the running turn, and
//! announces `session_forked` / `session_switched` to extensions.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use zut_agent::controller::{JobOutcome, SessionMoved};
use zut_session::{Role, SessionWriter, Snapshot};
use zut_tui::pickers::{Picker, PickerItem, PickerKind};
use zut_tui::{CommandOutcome, TuiEvent};

/// Where the conversation's sessions live and which one is open.
#[derive(Debug, Clone)]
pub struct Place {
    /// `$ZUT_HOME`.
    pub zut_home: PathBuf,
    /// The working directory.
    pub cwd: PathBuf,
    /// The open session file (`None` with `--no-session`).
    pub current: Option<PathBuf>,
    /// The sessions picker last shown every directory (Tab).
    pub all_scope: bool,
}

impl Place {
    fn dir(&self) -> PathBuf {
        zut_session::sessions_dir(&self.zut_home, &self.cwd.display().to_string())
    }
}

/// Sends the rows of picker `kind`.
pub fn open(
    ctrl: &zut_agent::Controller,
    place: &Mutex<Place>,
    kind: PickerKind,
    tx: &mpsc::UnboundedSender<TuiEvent>,
    skill_config: &zut_agent::AgentConfig,
) {
    let place = {
        let mut place = lock(place);
        match kind {
            PickerKind::Sessions => place.all_scope = false,
            PickerKind::AllSessions => place.all_scope = true,
            _ => {}
        }
        place.clone()
    };
    let place = &place;
    let picker = match kind {
        PickerKind::Sessions => sessions(place, false),
        PickerKind::AllSessions => sessions(place, true),
        PickerKind::Skills => skills(ctrl, skill_config),
        PickerKind::Fork => match current_snapshot(place) {
            Ok(s) => fork_rows(&s),
            Err(e) => return error(tx, kind, e),
        },
        PickerKind::Tree => match current_snapshot(place) {
            Ok(s) => tree(place, &s),
            Err(e) => return error(tx, kind, e),
        },
        PickerKind::Model => crate::models::model_picker(ctrl, &place.zut_home),
        PickerKind::Login => crate::models::login_picker(&place.zut_home),
        PickerKind::Logout => match crate::models::logout_picker(&place.zut_home) {
            Ok(p) => p,
            Err(e) => return error(tx, kind, e),
        },
        // Built by the TUI itself.
        PickerKind::Reasoning | PickerKind::Settings | PickerKind::Theme => return,
        // Built by `crate::mcp`.
        PickerKind::Mcp | PickerKind::McpServer => return,
        // Built by the TUI from the children's events (`subagents_view`).
        PickerKind::Subagents | PickerKind::SubagentLog => return,
    };
    let _ = tx.send(TuiEvent::Picker(picker));
}

fn error(tx: &mpsc::UnboundedSender<TuiEvent>, kind: PickerKind, e: String) {
    let _ = tx.send(TuiEvent::CommandDone {
        label: format!("/{}", kind.command()),
        outcome: CommandOutcome::Error(e),
    });
}

fn current_snapshot(place: &Place) -> Result<Snapshot, String> {
    let path = place
        .current
        .as_ref()
        .ok_or("no session (--no-session): nothing to fork or check out")?;
    zut_session::read(path).map_err(|e| e.to_string())
}

/// "just now", "4 min ago", "3 h ago", "2 days ago".
fn ago(t: SystemTime, now: SystemTime) -> String {
    let s = now.duration_since(t).unwrap_or(Duration::ZERO).as_secs();
    match s {
        0..=59 => "just now".into(),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// `/sessions`: this directory's sessions (every directory's with
/// `all`), newest first (empty ones and tree-navigation branches left
/// out); the open one is marked.
pub fn sessions(place: &Place, all: bool) -> Picker {
    let now = SystemTime::now();
    let mut found = if all {
        all_sessions(&place.zut_home)
    } else {
        zut_session::list(&place.dir(), false)
    };
    found.sort_by_key(|s| std::cmp::Reverse(s.modified));
    let home_cwd = place.cwd.display().to_string();
    let items = found
        .into_iter()
        .filter(|s| s.message_count > 0 || Some(&s.path) == place.current.as_ref())
        .map(|s| {
            let current = Some(&s.path) == place.current.as_ref();
            let title = if s.title.is_empty() {
                "(untitled)"
            } else {
                &s.title
            };
            let mut detail = format!("{:>4} msgs  {title}", s.message_count);
            if all && s.cwd != home_cwd && !s.cwd.is_empty() {
                detail.push_str(&format!(
                    "  · {}",
                    crate::mode::shown_path(Path::new(&s.cwd))
                ));
            }
            PickerItem::new(ago(s.modified, now), s.path.display().to_string())
                .detail(detail)
                .current(current)
        })
        .collect();
    let (title, empty) = if all {
        ("sessions · all directories", "no sessions yet")
    } else {
        (
            "sessions · this directory",
            "no sessions in this directory yet (tab: every directory)",
        )
    };
    Picker::new(
        if all {
            PickerKind::AllSessions
        } else {
            PickerKind::Sessions
        },
        title,
        items,
    )
    .empty_text(empty)
}

/// The sessions picker (this directory's sessions, or every directory's
/// with `all`) narrowed to the sessions whose file contains `query`, each
/// with an excerpt around the first match. The files are read on a thread
/// of their own, so neither the TUI nor the conversation waits for them.
pub fn search(place: &Place, all: bool, query: String, tx: &mpsc::UnboundedSender<TuiEvent>) {
    let mut picker = sessions(place, all);
    let tx = tx.clone();
    std::thread::spawn(move || {
        let mut problems = 0usize;
        picker.items.retain_mut(|item| {
            match zut_session::find_text(Path::new(&item.value), &query) {
                Ok(Some(excerpt)) => {
                    // After the title, before the directory (all scopes).
                    let excerpt = format!("  · “{excerpt}”");
                    match item.detail.find("  · ") {
                        Some(i) => item.detail.insert_str(i, &excerpt),
                        None => item.detail.push_str(&excerpt),
                    }
                    true
                }
                Ok(None) => false,
                Err(_) => {
                    problems += 1;
                    false
                }
            }
        });
        picker.title = format!("{} · “{query}”", picker.title);
        picker.empty = if problems > 0 {
            format!("no session contains “{query}” ({problems} could not be read)")
        } else if all {
            format!("no session contains “{query}”")
        } else {
            format!("no session of this directory contains “{query}” (tab: every directory)")
        };
        picker.selected = 0;
        let _ = tx.send(TuiEvent::Picker(picker));
    });
}

/// Every directory's sessions (hidden branches left out).
fn all_sessions(zut_home: &Path) -> Vec<zut_session::SessionSummary> {
    let root = zut_session::sessions_root(zut_home);
    let Ok(dirs) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    dirs.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .flat_map(|d| zut_session::list(&d, false))
        .collect()
}

/// `/skills`: every skill a user may invoke, with its source and file; a
/// pick puts `/skill:<name> ` into the editor.
fn skills(ctrl: &zut_agent::Controller, config: &zut_agent::AgentConfig) -> Picker {
    let host = ctrl.host();
    let set = zut_agent::skills::load(config, host.as_deref());
    let items = set
        .visible()
        .map(|s| {
            let mut detail = format!("{} · {}", s.source.label(), s.path.display());
            let description = s.description_or_placeholder();
            if !description.is_empty() {
                detail = format!("{description}  ({detail})");
            }
            if !s.aliases.is_empty() {
                detail.push_str(&format!("  aliases: {}", s.aliases.join(", ")));
            }
            PickerItem::new(s.name.clone(), s.name.clone()).detail(detail)
        })
        .collect();
    Picker::new(PickerKind::Skills, "skills", items).empty_text(
        "no skills: add SKILL.md under $ZUT_HOME/skills, .zut/skills, .claude/skills or .agents/skills",
    )
}

/// One line of a message for a picker.
fn first_line(text: &str) -> String {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

/// `/fork`: the user messages, oldest first, the last one selected.
fn fork_rows(snap: &Snapshot) -> Picker {
    let items: Vec<PickerItem> = snap
        .messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User)
        .filter_map(|(i, m)| Some((i, m.first_text()?)))
        .enumerate()
        .map(|(n, (i, text))| {
            PickerItem::new(format!("#{}", n + 1), format!("edit:{i}")).detail(first_line(text))
        })
        .collect();
    let last = items.len().saturating_sub(1);
    Picker::new(PickerKind::Fork, "fork from a message", items)
        .empty_text("none of your messages to fork from yet")
        .select(last)
}

/// The session tree: this file's messages, newest first, with the other
/// branches of this directory at their fork points (files forked from this
/// one) and the parent this file was forked from.
fn tree(place: &Place, snap: &Snapshot) -> Picker {
    let all = zut_session::list(&place.dir(), true);
    let id = &snap.meta.id;
    let mut items = Vec::new();
    let branch_row = |s: &zut_session::SessionSummary, what: &str| {
        let title = if s.title.is_empty() {
            "(untitled)"
        } else {
            &s.title
        };
        PickerItem::new(format!("⎇ {what}"), format!("file:{}", s.path.display()))
            .detail(format!("{} msgs  {title}", s.message_count))
    };
    // Branches forked from this file, by fork point (read from each
    // branch's meta).
    let mut children: Vec<(usize, &zut_session::SessionSummary)> = all
        .iter()
        .filter(|s| &s.parent == id && s.path != snap.path)
        .map(|s| (fork_point(&s.path), s))
        .collect();
    children.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    let mut children = children.into_iter().peekable();
    let len = snap.messages.len();
    items.push(
        PickerItem::new("end of this branch", "")
            .detail("[current]")
            .current(true),
    );
    for (i, m) in snap.messages.iter().enumerate().rev() {
        while let Some((_, s)) = children.next_if(|(at, _)| *at > i) {
            items.push(branch_row(s, "branch"));
        }
        let (label, value) = match m.role {
            Role::User => match m.first_text() {
                Some(t) => (format!("you: {}", first_line(t)), format!("edit:{i}")),
                None => continue,
            },
            Role::Assistant => {
                let text = m.first_text().map(first_line).unwrap_or_else(|| {
                    let tools: Vec<&str> = m
                        .content
                        .iter()
                        .filter_map(|b| match b {
                            zut_session::Block::ToolCall { name, .. } => Some(name.as_str()),
                            _ => None,
                        })
                        .collect();
                    format!("[{}]", tools.join(", "))
                });
                // Checking out the last message changes nothing.
                let value = if i + 1 == len {
                    String::new()
                } else {
                    format!("keep:{}", i + 1)
                };
                (format!("zut: {text}"), value)
            }
            Role::Tool | Role::Developer => continue,
        };
        items.push(PickerItem::new(label, value));
    }
    for (_, s) in children {
        items.push(branch_row(s, "branch"));
    }
    if !snap.meta.parent.is_empty() {
        if let Some(p) = all.iter().find(|s| s.id == snap.meta.parent) {
            items.push(branch_row(p, "parent (forked from)"));
        }
    }
    Picker::new(PickerKind::Tree, "session tree", items).select(0)
}

/// A file's `fork_point` (0 when unreadable).
fn fork_point(path: &Path) -> usize {
    zut_session::read(path)
        .map(|s| s.meta.fork_point)
        .unwrap_or(0)
}

/// The place, locked (a poisoned lock still holds a usable place).
fn lock(place: &Mutex<Place>) -> std::sync::MutexGuard<'_, Place> {
    place.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a pick asks for.
enum Move {
    /// Resume another file.
    Resume(PathBuf),
    /// Fork at message `at` (hidden for tree navigation); `edit` goes back
    /// into the editor.
    Fork {
        at: usize,
        hidden: bool,
        edit: Option<String>,
    },
}

/// Waits for a session move's job.
async fn moved(job: zut_agent::controller::JobHandle) -> Result<SessionMoved, String> {
    match job.outcome().await {
        JobOutcome::Session(r) => r,
        JobOutcome::Dropped => Err("the conversation has stopped".into()),
        other => Err(format!("unexpected outcome {other:?}")),
    }
}

/// Does what a pick of `value` in picker `kind` asks: the conversation
/// moves to another file and the TUI shows it.
pub async fn pick(
    ctrl: &zut_agent::Controller,
    place: &Arc<Mutex<Place>>,
    kind: PickerKind,
    value: &str,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    let label = format!("/{}", kind.command());
    let snapshot = lock(place).clone();
    if kind == PickerKind::Login {
        return crate::models::login_pick(ctrl, &snapshot.zut_home, value, tx).await;
    }
    let mv = match parse(&snapshot, kind, value) {
        Ok(m) => m,
        Err(e) => return error(tx, kind, e),
    };
    // A busy or unreadable target is refused before anything is aborted.
    let (job, edit) = match mv {
        Move::Resume(path) => match ctrl.resume_session(&path, None) {
            Ok(job) => (job, None),
            Err(e) => return error(tx, kind, e),
        },
        Move::Fork { at, hidden, edit } => (ctrl.fork_session(at, hidden, None), edit),
    };
    let (path, snap) = match moved(job).await {
        Ok(SessionMoved {
            path: Some(path),
            snapshot: Some(snap),
        }) => (path, snap),
        Ok(_) => return error(tx, kind, "no session (--no-session)".into()),
        Err(e) => return error(tx, kind, e),
    };
    lock(place).current = Some(path.clone());
    let _ = tx.send(TuiEvent::SessionTotals(totals(&snap)));
    let what = match kind {
        PickerKind::Sessions | PickerKind::AllSessions => "resumed",
        PickerKind::Fork => "forked into",
        _ => "checked out",
    };
    let _ = tx.send(TuiEvent::Info(format!(
        "── {what} {} ──",
        crate::mode::shown_path(&path)
    )));
    crate::replay::replay(&snap, tx);
    if matches!(kind, PickerKind::Sessions | PickerKind::AllSessions) {
        crate::models::restored(ctrl, &snap.meta, &snapshot.zut_home, tx);
    }
    if let Some(text) = edit {
        let _ = tx.send(TuiEvent::CommandDone {
            label,
            outcome: CommandOutcome::Insert(text),
        });
    }
}

/// A session's usage totals for the status bar.
fn totals(snap: &Snapshot) -> zut_tui::status::Totals {
    let u = snap.cumulative();
    zut_tui::status::Totals {
        tokens_in: u.input_tokens,
        tokens_out: u.output_tokens,
        cache_read: u.cache_read_tokens,
        cost: (u.cost_usd > 0.0 || u.extra.get("cost_known") == Some(&true.into()))
            .then_some(u.cost_usd),
    }
}

/// `/new`: the running turn is stopped and the conversation continues in
/// a new, empty session file of this directory (the previous file stays,
/// or is removed when it got no content). Extensions see
/// `session_switched`. With `--no-session` the conversation is cleared.
pub async fn new_session(
    ctrl: &zut_agent::Controller,
    place: &Mutex<Place>,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    let outcome = match moved(ctrl.new_session(None)).await {
        Ok(m) => {
            lock(place).current = m.path;
            let _ = tx.send(TuiEvent::SessionTotals(Default::default()));
            let _ = tx.send(TuiEvent::Info("── new session ──".into()));
            CommandOutcome::Noop
        }
        Err(e) => CommandOutcome::Error(e),
    };
    let _ = tx.send(TuiEvent::CommandDone {
        label: "/new".into(),
        outcome,
    });
}

/// Renames the session file `path` (a `rename` row): the open one through
/// the controller (after the running turn), another one by opening it
/// (refused when another zut has it open). The sessions picker comes back
/// with the new title.
pub async fn rename(
    ctrl: &zut_agent::Controller,
    place: &Mutex<Place>,
    path: &str,
    title: &str,
    tx: &mpsc::UnboundedSender<TuiEvent>,
) {
    let path = PathBuf::from(path);
    let place = lock(place).clone();
    let result = if place.current.as_ref() == Some(&path) {
        moved(ctrl.rename_session(title, None)).await.map(|_| ())
    } else {
        SessionWriter::open(&path)
            .and_then(|(mut w, _)| w.rename(title, false))
            .map_err(|e| e.to_string())
    };
    let outcome = match result {
        Ok(()) => {
            CommandOutcome::Status(format!("renamed: {}", zut_session::normalize_title(title)))
        }
        Err(e) => CommandOutcome::Error(format!("rename: {e}")),
    };
    // The picker comes back with the renamed row selected.
    let picker = sessions(&place, place.all_scope);
    let at = picker
        .items
        .iter()
        .position(|i| Path::new(&i.value) == path);
    let _ = tx.send(TuiEvent::Picker(match at {
        Some(i) => picker.select(i),
        None => picker,
    }));
    let _ = tx.send(TuiEvent::CommandDone {
        label: "/sessions".into(),
        outcome,
    });
}

fn parse(place: &Place, kind: PickerKind, value: &str) -> Result<Move, String> {
    let bad = || format!("unexpected pick {value:?}");
    if matches!(kind, PickerKind::Sessions | PickerKind::AllSessions) {
        return Ok(Move::Resume(PathBuf::from(value)));
    }
    let (what, rest) = value.split_once(':').ok_or_else(bad)?;
    let hidden = kind == PickerKind::Tree;
    match what {
        "file" => Ok(Move::Resume(PathBuf::from(rest))),
        "keep" => Ok(Move::Fork {
            at: rest.parse().map_err(|_| bad())?,
            hidden,
            edit: None,
        }),
        "edit" => {
            let at: usize = rest.parse().map_err(|_| bad())?;
            let snap = current_snapshot(place)?;
            let text = snap
                .messages
                .get(at)
                .and_then(|m| m.first_text())
                .map(str::to_string);
            Ok(Move::Fork {
                at,
                hidden,
                edit: text,
            })
        }
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_naturally() {
        let now = SystemTime::now();
        assert_eq!(ago(now, now), "just now");
        assert_eq!(ago(now - Duration::from_secs(240), now), "4 min ago");
        assert_eq!(ago(now - Duration::from_secs(7200), now), "2 h ago");
        assert_eq!(
            ago(now - Duration::from_secs(3 * 86_400), now),
            "3 days ago"
        );
        // A clock that went backwards is "just now", not a panic.
        assert_eq!(ago(now + Duration::from_secs(60), now), "just now");
    }

    #[test]
    fn search_keeps_the_sessions_that_contain_the_words() {
        let home = tempfile::tempdir().unwrap();
        let cwd = home.path().join("project");
        let place = Place {
            zut_home: home.path().to_path_buf(),
            cwd: cwd.clone(),
            current: None,
            all_scope: false,
        };
        let dir = place.dir();
        std::fs::create_dir_all(&dir).unwrap();
        for text in ["How do I tune the Flux Capacitor?", "Plan the garden"] {
            let mut w = SessionWriter::create(
                &dir,
                zut_session::NewSession {
                    cwd: cwd.display().to_string(),
                    provider: "anthropic".into(),
                    model: "m".into(),
                    version: "0".into(),
                    title: String::new(),
                },
            )
            .unwrap();
            w.append_message(&zut_session::SessionMessage::new(
                zut_session::Role::User,
                vec![zut_session::Block::text(text)],
            ))
            .unwrap();
        }
        assert_eq!(sessions(&place, false).items.len(), 2);
        let (tx, mut rx) = mpsc::unbounded_channel();
        search(&place, false, "flux capacitor".into(), &tx);
        let Some(TuiEvent::Picker(p)) = rx.blocking_recv() else {
            panic!("no picker");
        };
        assert_eq!(p.items.len(), 1, "{:?}", p.items);
        assert!(
            p.items[0].detail.contains("Flux Capacitor?"),
            "{:?}",
            p.items
        );
        assert!(p.title.contains("“flux capacitor”"), "{}", p.title);
        search(&place, false, "plutonium".into(), &tx);
        let Some(TuiEvent::Picker(p)) = rx.blocking_recv() else {
            panic!("no picker");
        };
        assert!(p.items.is_empty());
        assert!(p.empty.contains("tab: every directory"), "{}", p.empty);
    }
}
