//! zut's session files, file-compatible with the Go original
//! (`sessions-themes-skills.md` §1): the JSONL rows, strict streaming
//! reading with errors naming the file and line, the effective transcript
//! with compaction and repair, extension state snapshots (latest and at a
//! fork point), writing with one `write` per row under a lock, branching
//! into new files, listing and titles.
//!
//! Storage only: it knows nothing of providers, extension processes or
//! terminals. Its message type is the Go row format; `zut-agent` converts
//! it to and from provider messages.

mod check;
mod error;
mod fork;
mod list;
mod message;
mod open;
mod paths;
mod read;
mod repair;
mod row;
mod search;
mod time;
mod title;
mod write;

pub use error::{Result, SessionError};
pub use fork::{fork, ForkOptions, Forked};
pub use list::{describe, list, SessionSummary};
pub use message::{Block, Role, SessionMessage};
pub use open::{open, Choice, Opened};
pub use paths::{
    cwd_hash, file_name, list_files, list_files_with_times, read_id, resolve, sessions_dir,
    sessions_root,
};
pub use read::{
    for_each_row, read, read_from, read_with, ReadOptions, Snapshot, States, UsageCheckpoint,
    MAX_ROW_BYTES, MAX_STATE_BYTES,
};
pub use repair::{drop_orphan_results, repair, Repaired, ABORTED_RESULT};
pub use row::{Meta, Row, Usage, WHOLE_COPY_META};
pub use search::{find_in, find_text};
pub use time::now_rfc3339;
pub use title::{normalize_title, title_from_prompt, MAX_TITLE_CHARS};
pub use write::{is_contentless, is_locked, prune_contentless, Closed, NewSession, SessionWriter};
