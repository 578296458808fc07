//! Lenient listing of a directory's sessions (for `zut session list` and
//! `-r` without an id): one quick pass per file, bad rows skipped.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::row::Meta;
use crate::title::{normalize_title, title_from_prompt};

/// One session at a glance.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    /// The file.
    pub path: PathBuf,
    /// Session id.
    pub id: String,
    /// Title (meta title, last rename, else the first user text).
    pub title: String,
    /// RFC 3339 start time.
    pub started: String,
    /// Last modification.
    pub modified: SystemTime,
    /// Effective message count (before repair).
    pub message_count: usize,
    /// Parent id of a branch.
    pub parent: String,
    /// `hide_from_sessions`.
    pub hidden: bool,
    /// The working directory the session was started in (meta `cwd`).
    pub cwd: String,
}

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    kind: String,
    meta: Option<Meta>,
    title: Option<String>,
    messages: Option<Vec<IgnoredAny>>,
}

#[derive(Deserialize)]
struct UserText {
    message: UserMessage,
}

#[derive(Deserialize)]
struct UserMessage {
    role: String,
    content: Vec<MaybeText>,
}

#[derive(Deserialize)]
struct MaybeText {
    text: Option<String>,
}

/// Summarises one file (lenient); `None` when it has no readable meta.
pub fn describe(path: &Path) -> Option<SessionSummary> {
    let file = File::open(path).ok()?;
    let modified = file.metadata().ok()?.modified().ok()?;
    describe_file(path, file, modified)
}

/// A `message` row as both programs write it (`type` first): counted
/// without parsing the row.
const MESSAGE_PREFIX: &str = r#"{"type":"message","#;

fn describe_file(path: &Path, file: File, modified: SystemTime) -> Option<SessionSummary> {
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut line = String::new();
    let mut meta: Option<Meta> = None;
    let mut title: Option<String> = None;
    let mut renamed = false;
    let mut first_user: Option<String> = None;
    let mut count = 0usize;
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.starts_with(MESSAGE_PREFIX) && (title.is_some() || first_user.is_some()) {
            count += 1;
            continue;
        }
        let Ok(head) = serde_json::from_str::<Head>(&line) else {
            continue;
        };
        match head.kind.as_str() {
            "meta" => {
                if let Some(m) = head.meta {
                    if !renamed && !m.title.is_empty() {
                        title = Some(m.title.clone());
                    }
                    meta = Some(m);
                }
            }
            "message" => {
                count += 1;
                if first_user.is_none() && title.is_none() {
                    if let Ok(u) = serde_json::from_str::<UserText>(&line) {
                        if u.message.role == "user" {
                            first_user = u
                                .message
                                .content
                                .into_iter()
                                .find_map(|b| b.text.filter(|t| !t.is_empty()));
                        }
                    }
                }
            }
            "compaction" => count = head.messages.map(|m| m.len()).unwrap_or(0),
            "rename" => {
                if let Some(t) = head.title.filter(|t| !t.is_empty()) {
                    renamed = true;
                    title = Some(t);
                }
            }
            _ => {}
        }
    }
    let meta = meta?;
    let title = match title {
        Some(t) => normalize_title(&t),
        None => first_user
            .map(|t| title_from_prompt(&t))
            .unwrap_or_default(),
    };
    Some(SessionSummary {
        path: path.to_path_buf(),
        id: meta.id,
        title,
        started: meta.started,
        modified,
        message_count: count,
        parent: meta.parent,
        hidden: meta.hide_from_sessions,
        cwd: meta.cwd,
    })
}

/// The sessions of `dir`, newest first; hidden branches only when
/// `include_hidden`.
pub fn list(dir: &Path, include_hidden: bool) -> Vec<SessionSummary> {
    crate::paths::list_files_with_times(dir)
        .into_iter()
        .filter_map(|(modified, p)| describe_file(&p, File::open(&p).ok()?, modified))
        .filter(|s| include_hidden || !s.hidden)
        .collect()
}
