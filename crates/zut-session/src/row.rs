//! The rows of a session file (sessions-themes-skills.md §1.2) and the
//! `meta` and `usage` objects. A Rust writer writes only these row types.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::message::SessionMessage;

/// The `meta` object (§1.3). Fields zut does not use are kept in `extra`
/// so a meta row copied into a fork keeps them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Meta {
    /// The session (branch) uuid.
    #[serde(default)]
    pub id: String,
    /// Project directory.
    #[serde(default)]
    pub cwd: String,
    /// Model id.
    #[serde(default)]
    pub model: String,
    /// Provider name.
    #[serde(default)]
    pub provider: String,
    /// RFC 3339 start time (UTC).
    #[serde(default)]
    pub started: String,
    /// Version of the program that created the file.
    #[serde(default)]
    pub version: String,
    /// Title given at creation.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// IANA time zone at the start.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub timezone: String,
    /// UTC offset at the start (`+02:00`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub timezone_offset: String,
    /// Id of the parent session of a branch.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parent: String,
    /// Effective messages copied from the parent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fork_point: usize,
    /// Hidden from the flat session list (tree-navigation branches).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hide_from_sessions: bool,
    /// `compact_handoff`, `mission`, `goal`, `goal_history`, `plan` and any
    /// other field, kept as written.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Meta fields copied into a fork only when it copies the whole transcript.
pub const WHOLE_COPY_META: [&str; 4] = ["compact_handoff", "goal", "mission", "goal_history"];

/// Token counts and cost (the Go `provider.Usage`). Unknown keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Reasoning tokens.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// Whether `reasoning_tokens` was reported.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reasoning_tokens_known: bool,
    /// Prompt-cache reads.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Prompt-cache writes.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// Cost in US dollars.
    #[serde(default)]
    pub cost_usd: f64,
    /// Other keys (`cache_measured_*`, …).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Usage {
    /// `self + other` (unknown keys of `self` kept).
    pub fn add(&self, other: &Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            reasoning_tokens: self.reasoning_tokens + other.reasoning_tokens,
            reasoning_tokens_known: self.reasoning_tokens_known && other.reasoning_tokens_known,
            cache_read_tokens: self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens + other.cache_write_tokens,
            cost_usd: self.cost_usd + other.cost_usd,
            extra: self.extra.clone(),
        }
    }
}

/// One row.
#[derive(Debug, Clone)]
pub enum Row {
    /// `meta`: the first row; later ones override it.
    Meta(Meta),
    /// `message`: one transcript message.
    Message(SessionMessage),
    /// `compaction`: replaces the effective transcript with `messages`.
    Compaction {
        /// Replacement transcript.
        messages: Vec<SessionMessage>,
        /// Optional usage of the summary request.
        usage: Option<Usage>,
        /// Optional cumulative usage.
        cumulative: Option<Usage>,
    },
    /// `usage`: a usage checkpoint.
    Usage {
        /// This turn.
        usage: Usage,
        /// Session total.
        cumulative: Usage,
        /// Go's retry records, kept opaque.
        retry_lifecycle: Option<Value>,
    },
    /// `rename`: a title change.
    Rename {
        /// New title.
        title: String,
        /// Generated (not typed by the user).
        generated: bool,
    },
    /// `extension_state`: an extension's latest opaque state (`None` = JSON
    /// `null` or absent: removes it).
    ExtensionState {
        /// Manifest name.
        extension: String,
        /// Raw JSON of the state.
        state: Option<Box<RawValue>>,
    },
}

/// Serialisable mirror of [`Row`] (the on-disk shape).
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum OutRow<'a> {
    Meta {
        meta: &'a Meta,
    },
    Message {
        message: &'a SessionMessage,
    },
    Compaction {
        messages: &'a [SessionMessage],
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a Usage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cumulative: Option<&'a Usage>,
    },
    Usage {
        usage: &'a Usage,
        cumulative: &'a Usage,
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_lifecycle: Option<&'a Value>,
    },
    Rename {
        title: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        generated: bool,
    },
    ExtensionState {
        extension: &'a str,
        state: Option<&'a RawValue>,
    },
}

impl Row {
    /// The row's `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Row::Meta(_) => "meta",
            Row::Message(_) => "message",
            Row::Compaction { .. } => "compaction",
            Row::Usage { .. } => "usage",
            Row::Rename { .. } => "rename",
            Row::ExtensionState { .. } => "extension_state",
        }
    }

    /// The row as one JSON line, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        let out = match self {
            Row::Meta(meta) => OutRow::Meta { meta },
            Row::Message(message) => OutRow::Message { message },
            Row::Compaction {
                messages,
                usage,
                cumulative,
            } => OutRow::Compaction {
                messages,
                usage: usage.as_ref(),
                cumulative: cumulative.as_ref(),
            },
            Row::Usage {
                usage,
                cumulative,
                retry_lifecycle,
            } => OutRow::Usage {
                usage,
                cumulative,
                retry_lifecycle: retry_lifecycle.as_ref(),
            },
            Row::Rename { title, generated } => OutRow::Rename {
                title,
                generated: *generated,
            },
            Row::ExtensionState { extension, state } => OutRow::ExtensionState {
                extension,
                state: state.as_deref(),
            },
        };
        // Serialising these types cannot fail (string keys, finite floats
        // are written as numbers; a non-finite cost becomes null).
        let mut line = serde_json::to_vec(&out).unwrap_or_else(|_| b"{}".to_vec());
        line.push(b'\n');
        line
    }

    /// Parses one line strictly (§1.2). The error is the reason, without the
    /// line number (the reader adds it).
    pub fn parse(line: &[u8]) -> Result<Row, String> {
        let raw: RawRow =
            serde_json::from_slice(line).map_err(|e| format!("invalid JSON row: {e}"))?;
        let Some(kind) = raw.kind else {
            return Err("row has no \"type\"".into());
        };
        Ok(match kind.as_str() {
            "meta" => Row::Meta(raw.meta.ok_or("meta row has no \"meta\" object")?),
            "message" => {
                let m = raw.message.ok_or("message row has no \"message\" object")?;
                check_message(&m)?;
                Row::Message(m)
            }
            "compaction" => {
                let messages = raw.messages.flatten().unwrap_or_default();
                for m in &messages {
                    check_message(m)?;
                }
                Row::Compaction {
                    messages,
                    usage: raw.usage,
                    cumulative: raw.cumulative,
                }
            }
            "usage" => Row::Usage {
                usage: raw.usage.unwrap_or_default(),
                cumulative: raw.cumulative.ok_or("usage row has no \"cumulative\"")?,
                retry_lifecycle: raw.retry_lifecycle,
            },
            "rename" => Row::Rename {
                title: raw.title.ok_or("rename row has no \"title\"")?,
                generated: raw.generated,
            },
            "extension_state" => Row::ExtensionState {
                extension: raw.extension.unwrap_or_default(),
                state: raw.state,
            },
            other => return Err(format!("unknown row type {other:?}")),
        })
    }
}

fn check_message(m: &SessionMessage) -> Result<(), String> {
    if m.content.is_empty() {
        return Err("message has empty \"content\"".into());
    }
    Ok(())
}

/// Every field a row may have (one pass over the line, like Go's decoder).
#[derive(Deserialize)]
struct RawRow {
    #[serde(rename = "type")]
    kind: Option<String>,
    meta: Option<Meta>,
    message: Option<SessionMessage>,
    #[serde(default)]
    messages: Option<Option<Vec<SessionMessage>>>,
    usage: Option<Usage>,
    cumulative: Option<Usage>,
    retry_lifecycle: Option<Value>,
    title: Option<String>,
    #[serde(default)]
    generated: bool,
    extension: Option<String>,
    state: Option<Box<RawValue>>,
}
