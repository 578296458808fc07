//! Strict, streaming reading of a session file (sessions-themes-skills.md
//! §1.2, §1.5, §1.6, §1.7 step 4). The file is read row by row; only what
//! the effective transcript, the state snapshots and the usage checkpoints
//! need is kept, so a file of hundreds of MiB with compactions resumes in
//! bounded memory.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;

use crate::error::{Result, SessionError};
use crate::message::SessionMessage;
use crate::repair::repair;
use crate::row::{Meta, Row, Usage};
use crate::title::normalize_title;

/// Largest extension state kept or written (262,144 bytes of raw JSON).
pub const MAX_STATE_BYTES: usize = 256 * 1024;

/// Longest row the reader accepts (a guard against unbounded memory).
pub const MAX_ROW_BYTES: u64 = 256 * 1024 * 1024;

/// Extension state snapshots by manifest name (raw JSON).
pub type States = BTreeMap<String, Box<RawValue>>;

/// One usage row, placed in the effective transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageCheckpoint {
    /// Effective (repaired) messages before it.
    pub message_count: usize,
    /// The turn's usage.
    pub usage: Usage,
    /// Session total at that point.
    pub cumulative: Usage,
    /// Compactions seen before it.
    pub generation: usize,
}

/// The effective, in-memory view of a session file.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The file.
    pub path: PathBuf,
    /// The last `meta` row.
    pub meta: Meta,
    /// Effective title (meta title, then the last rename), normalised.
    pub title: String,
    /// The effective, repaired transcript.
    pub messages: Vec<SessionMessage>,
    /// Latest state per extension.
    pub states: States,
    /// Usage rows of the file, placed in the effective transcript.
    pub usage: Vec<UsageCheckpoint>,
    /// Number of compaction rows.
    pub compactions: usize,
    /// State per extension at the requested fork point (§1.7 step 4), when
    /// [`ReadOptions::fork_at`] was given.
    pub fork_states: Option<States>,
    /// Whether the file ends with a newline (false only for a file whose
    /// last, valid row was written without one).
    pub ends_with_newline: bool,
    /// Rows read.
    pub rows: usize,
}

impl Snapshot {
    /// Cumulative usage of the last usage checkpoint (zero without one).
    pub fn cumulative(&self) -> Usage {
        self.usage
            .last()
            .map(|c| c.cumulative.clone())
            .unwrap_or_default()
    }

    /// The title to show: the effective title, else the first user text
    /// (normalised and shortened).
    pub fn display_title(&self) -> String {
        if !self.title.is_empty() {
            return self.title.clone();
        }
        self.messages
            .iter()
            .filter(|m| m.role == crate::message::Role::User)
            .find_map(|m| m.first_text())
            .map(crate::title::title_from_prompt)
            .unwrap_or_default()
    }

    /// Deferred tools activated in the effective transcript.
    pub fn activated_tools(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .messages
            .iter()
            .flat_map(|m| m.added_tool_names.iter().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// Reading options.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Also compute the extension state at this fork point.
    pub fork_at: Option<usize>,
}

/// Reads `path` strictly: see [`read_with`].
pub fn read(path: &Path) -> Result<Snapshot> {
    read_with(path, ReadOptions::default())
}

/// Reads `path` strictly: the first row must be `meta` with a non-empty
/// id; a blank row, invalid JSON, a missing `type` or an unknown row type
/// fails the whole file with an error naming the line. An empty file is an
/// error. A last row without a newline that does not parse is reported as
/// torn (a previous run was killed while writing it).
pub fn read_with(path: &Path, opts: ReadOptions) -> Result<Snapshot> {
    let file = File::open(path).map_err(|e| SessionError::io(path, "opening", e))?;
    read_from(path, file, opts)
}

/// Like [`read_with`], from any reader (`path` names it in errors).
pub fn read_from<R: Read>(path: &Path, reader: R, opts: ReadOptions) -> Result<Snapshot> {
    let mut state = ReadState::new(opts);
    let ends_with_newline = scan(path, reader, |line_no, line| {
        if line_no > 1 && line.starts_with(MESSAGE_PREFIX) {
            // Checked now, built at the end only if still effective.
            crate::check::check_message_row(line)?;
            state.push_raw(line_no, line);
            return Ok(());
        }
        let row = Row::parse(line)?;
        if line_no == 1 {
            first_row_check(&row)?;
        }
        state.apply(line_no, row)
    })?;
    state.finish(path.to_path_buf(), ends_with_newline)
}

/// How both programs start a `message` row (`type` first).
const MESSAGE_PREFIX: &[u8] = br#"{"type":"message","#;

/// The first row must be `meta` with a non-empty id.
fn first_row_check(row: &Row) -> std::result::Result<(), String> {
    match row {
        Row::Meta(m) if !m.id.trim().is_empty() => Ok(()),
        Row::Meta(_) => Err("meta row has an empty \"id\"".into()),
        other => Err(format!(
            "the first row must be \"meta\", found {:?}",
            other.type_name()
        )),
    }
}

/// Calls `f` with every row of `reader` in order (strict); returns whether
/// the input ended with a newline.
pub fn for_each_row<R: Read>(
    path: &Path,
    reader: R,
    mut f: impl FnMut(usize, Row) -> std::result::Result<(), String>,
) -> Result<bool> {
    scan(path, reader, |line_no, line| {
        let row = Row::parse(line)?;
        if line_no == 1 {
            first_row_check(&row)?;
        }
        f(line_no, row)
    })
}

/// Calls `f` with every line of `reader` (without its line ending): blank
/// lines, rows over [`MAX_ROW_BYTES`] and an empty input are errors, and
/// `f`'s error becomes an error naming the line (noting a torn last row
/// when the input does not end with a newline). Returns whether the input
/// ended with a newline.
fn scan<R: Read>(
    path: &Path,
    reader: R,
    mut f: impl FnMut(usize, &[u8]) -> std::result::Result<(), String>,
) -> Result<bool> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let mut line_no = 0usize;
    let mut ends_with_newline = true;
    let line_err = |line: usize, reason: String| SessionError::Line {
        path: path.to_path_buf(),
        line,
        reason,
    };
    loop {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_ROW_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| SessionError::io(path, "reading", e))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if n as u64 > MAX_ROW_BYTES {
            return Err(line_err(
                line_no,
                format!("row longer than {MAX_ROW_BYTES} bytes"),
            ));
        }
        let terminated = buf.last() == Some(&b'\n');
        let mut line = &buf[..];
        while let Some((last, rest)) = line.split_last() {
            if *last == b'\n' || *last == b'\r' {
                line = rest;
            } else {
                break;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return Err(line_err(line_no, "blank row".into()));
        }
        if let Err(reason) = f(line_no, line) {
            return Err(line_err(
                line_no,
                if terminated {
                    reason
                } else {
                    format!(
                        "{reason} (torn last row: the file does not end with a newline, \
                         a previous run was probably killed while writing it; \
                         the file was left as it is)"
                    )
                },
            ));
        }
        ends_with_newline = terminated;
    }
    if line_no == 0 {
        return Err(SessionError::file(path, "empty file (no meta row)"));
    }
    Ok(ends_with_newline)
}

/// Whether a state row's value is kept (§1.6 read side): `Some(true)` =
/// set, `Some(false)` = remove, `None` = ignore the row.
fn state_action(extension: &str, state: &Option<Box<RawValue>>) -> Option<bool> {
    if extension.trim().is_empty() {
        return None;
    }
    match state {
        None => Some(false),
        Some(raw) if raw.get().len() > MAX_STATE_BYTES => None,
        Some(raw) if raw.get().trim() == "null" => Some(false),
        Some(_) => Some(true),
    }
}

/// Applies a state row to `states`.
pub(crate) fn apply_state(states: &mut States, extension: &str, state: &Option<Box<RawValue>>) {
    match (state_action(extension, state), state) {
        (Some(true), Some(raw)) => {
            states.insert(extension.to_string(), raw.clone());
        }
        (Some(false), _) => {
            states.remove(extension);
        }
        _ => {}
    }
}

struct RawCheckpoint {
    raw_count: usize,
    usage: Usage,
    cumulative: Usage,
    generation: usize,
}

/// A message of the effective transcript: built (from a compaction or a
/// row in another key order) or still as its checked row bytes.
enum Effective {
    Built(SessionMessage),
    Row(usize, Vec<u8>),
}

struct ReadState {
    opts: ReadOptions,
    meta: Meta,
    title: Option<String>,
    renamed: bool,
    raw: Vec<Effective>,
    states: States,
    fork_states: States,
    fork_count: usize,
    checkpoints: Vec<RawCheckpoint>,
    generation: usize,
    rows: usize,
}

impl ReadState {
    fn new(opts: ReadOptions) -> Self {
        Self {
            opts,
            meta: Meta::default(),
            title: None,
            renamed: false,
            raw: Vec::new(),
            states: States::new(),
            fork_states: States::new(),
            fork_count: 0,
            checkpoints: Vec::new(),
            generation: 0,
            rows: 0,
        }
    }

    /// A checked `message` row, kept as bytes.
    fn push_raw(&mut self, line_no: usize, line: &[u8]) {
        self.rows += 1;
        self.raw.push(Effective::Row(line_no, line.to_vec()));
        self.fork_count += 1;
    }

    fn apply(&mut self, _line: usize, row: Row) -> std::result::Result<(), String> {
        self.rows += 1;
        match row {
            Row::Meta(meta) => {
                if !self.renamed && !meta.title.is_empty() {
                    self.title = Some(meta.title.clone());
                }
                self.meta = meta;
            }
            Row::Message(m) => {
                self.raw.push(Effective::Built(m));
                self.fork_count += 1;
            }
            Row::Compaction {
                messages,
                cumulative,
                usage,
            } => {
                self.raw = messages.into_iter().map(Effective::Built).collect();
                self.generation += 1;
                self.fork_count = self.raw.len();
                self.fork_states = self.states.clone();
                if let Some(cumulative) = cumulative {
                    self.checkpoints.push(RawCheckpoint {
                        raw_count: self.raw.len(),
                        usage: usage.unwrap_or_default(),
                        cumulative,
                        generation: self.generation,
                    });
                }
            }
            Row::Usage {
                usage, cumulative, ..
            } => self.checkpoints.push(RawCheckpoint {
                raw_count: self.raw.len(),
                usage,
                cumulative,
                generation: self.generation,
            }),
            Row::Rename { title, .. } => {
                self.renamed = true;
                self.title = Some(title);
            }
            Row::ExtensionState { extension, state } => {
                apply_state(&mut self.states, &extension, &state);
                if self.opts.fork_at.is_some_and(|n| self.fork_count <= n) {
                    apply_state(&mut self.fork_states, &extension, &state);
                }
            }
        }
        Ok(())
    }

    fn finish(self, path: PathBuf, ends_with_newline: bool) -> Result<Snapshot> {
        let raw_len = self.raw.len();
        let mut raw = Vec::with_capacity(raw_len);
        for e in self.raw {
            raw.push(match e {
                Effective::Built(m) => m,
                Effective::Row(line, bytes) => match Row::parse(&bytes) {
                    Ok(Row::Message(m)) => m,
                    Ok(other) => {
                        return Err(SessionError::Line {
                            path,
                            line,
                            reason: format!(
                                "expected a message row, found {:?}",
                                other.type_name()
                            ),
                        })
                    }
                    Err(reason) => return Err(SessionError::Line { path, line, reason }),
                },
            });
        }
        let repaired = repair(raw);
        let generation = self.generation;
        let usage = self
            .checkpoints
            .into_iter()
            .map(|c| UsageCheckpoint {
                message_count: if c.generation == generation {
                    repaired.prefix_count(c.raw_count)
                } else {
                    repaired.prefix_count(c.raw_count.min(raw_len))
                },
                usage: c.usage,
                cumulative: c.cumulative,
                generation: c.generation,
            })
            .collect();
        Ok(Snapshot {
            path,
            title: normalize_title(self.title.as_deref().unwrap_or_default()),
            meta: self.meta,
            messages: repaired.messages,
            states: self.states,
            usage,
            compactions: generation,
            fork_states: self.opts.fork_at.map(|_| self.fork_states),
            ends_with_newline,
            rows: self.rows,
        })
    }
}
