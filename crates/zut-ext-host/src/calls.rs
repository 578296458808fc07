//! Request/reply dispatch: slash commands and tool calls.

use std::sync::Arc;

use serde_json::Value;
use zut_protocol::limits::MAX_STATE_BYTES;
use zut_protocol::{encode_line, CommandInvoked, CommandResponse, HostFrame, ToolCall};

use crate::extension::{Extension, PendingGuard, Reply, ReplyKind};
use crate::shared::Shared;
use crate::tool_result::{convert, state_size, ToolOutcome};

/// A command's reply, with its owner.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandReply {
    /// Manifest name of the extension that answered.
    pub extension: String,
    /// Canonical command name.
    pub command: String,
    /// The raw response; `error` non-empty means "show the error, do not act".
    pub response: CommandResponse,
}

/// Why a command produced no reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// No live extension owns this name.
    #[error("unknown command /{0}")]
    Unknown(String),
    /// No reply within the command timeout.
    #[error("timeout waiting for {extension}/{command}")]
    Timeout {
        /// Owner.
        extension: String,
        /// Canonical name.
        command: String,
    },
    /// The extension went away before replying.
    #[error("extension {extension} disconnected before answering /{command}")]
    Disconnected {
        /// Owner.
        extension: String,
        /// Canonical name.
        command: String,
    },
    /// The frame could not be written.
    #[error("{0}")]
    Write(String),
}

/// Sends a request frame built by `make(id)` and waits for its reply of
/// `kind` (a command or a tool result) within that kind's timeout.
async fn request(
    shared: &Shared,
    ext: &Extension,
    kind: ReplyKind,
    make: impl FnOnce(String) -> HostFrame,
) -> Result<Reply, RequestError> {
    let timeouts = &shared.config.timeouts;
    let within = match kind {
        ReplyKind::Command => timeouts.command,
        ReplyKind::Tool => timeouts.tool,
        ReplyKind::Intercept => timeouts.intercept,
    };
    let id = shared.next_id();
    let rx = ext.expect_reply(&id, kind);
    let _guard = PendingGuard {
        ext,
        id: id.clone(),
    };
    ext.outbox
        .push_request(encode_line(&make(id.clone())), Some(&id))
        .map_err(RequestError::Write)?;
    match tokio::time::timeout(within, rx).await {
        Err(_) => Err(RequestError::Timeout),
        Ok(Err(_)) | Ok(Ok(Reply::Disconnected)) => Err(match ext.outbox.broken() {
            // The frame could not be written (broken pipe).
            Some(err) => RequestError::Write(format!("write: {err}")),
            None => RequestError::Disconnected,
        }),
        Ok(Ok(reply)) => Ok(reply),
    }
}

#[derive(Debug)]
pub(crate) enum RequestError {
    Timeout,
    Disconnected,
    Write(String),
}

pub(crate) async fn invoke_command(
    shared: &Shared,
    name: &str,
    args: &str,
) -> Result<CommandReply, CommandError> {
    let owner = shared
        .registry()
        .command(name)
        .map(|s| (s.ext, s.info.name.clone()));
    let Some((idx, canonical)) = owner else {
        return Err(CommandError::Unknown(name.to_string()));
    };
    let Some(ext) = shared.extension(idx).filter(|e| e.is_alive()) else {
        return Err(CommandError::Unknown(name.to_string()));
    };
    let (name, args) = (canonical.clone(), args.trim().to_string());
    let reply = request(shared, &ext, ReplyKind::Command, |id| {
        HostFrame::CommandInvoked(CommandInvoked { id, name, args })
    })
    .await;
    let (extension, command) = (ext.name.clone(), canonical);
    match reply {
        Ok(Reply::Command(response)) => Ok(CommandReply {
            extension,
            command,
            response,
        }),
        Ok(_) | Err(RequestError::Disconnected) => {
            Err(CommandError::Disconnected { extension, command })
        }
        Err(RequestError::Timeout) => {
            ext.log_marker(&format!("command /{command} timed out"));
            Err(CommandError::Timeout { extension, command })
        }
        Err(RequestError::Write(e)) => Err(CommandError::Write(e)),
    }
}

pub(crate) async fn call_tool(shared: &Shared, name: &str, args: Value) -> ToolOutcome {
    let owner = shared.registry().tool(name).map(|s| s.ext);
    let ext: Option<Arc<Extension>> = owner
        .and_then(|idx| shared.extension(idx))
        .filter(|e| e.is_alive());
    let Some(ext) = ext else {
        let former = shared
            .registry()
            .former_owner(name)
            .unwrap_or("?")
            .to_string();
        return ToolOutcome::failed(
            &former,
            name,
            &format!("no extension registered for tool {name:?}"),
        );
    };
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    let reply = request(shared, &ext, ReplyKind::Tool, |id| {
        let name = name.to_string();
        HostFrame::ToolCall(ToolCall { id, name, args })
    })
    .await;
    let ext_name = ext.name.as_str();
    let (mut out, raw_details_len) = match reply {
        Ok(Reply::Tool(raw, raw_details_len)) => {
            let out = convert(ext_name, name, raw);
            (out, raw_details_len)
        }
        Ok(_) | Err(RequestError::Disconnected) => {
            return ToolOutcome::failed(ext_name, name, "extension disconnected")
        }
        Err(RequestError::Timeout) => {
            ext.log_marker(&format!("tool {name} timed out"));
            return ToolOutcome::failed(
                ext_name,
                name,
                &format!("timeout waiting for {ext_name}/{name}"),
            );
        }
        Err(RequestError::Write(e)) => return ToolOutcome::failed(ext_name, name, &e),
    };
    if let Some(details) = &out.details {
        if shared.config.persist_state {
            let size = raw_details_len.unwrap_or_else(|| state_size(details));
            if size > MAX_STATE_BYTES {
                ext.warn(format!(
                    "tool {name} returned {size} bytes of details, over the {MAX_STATE_BYTES}-byte limit; tool result state could not be persisted"
                ));
                out =
                    ToolOutcome::error(ext_name, name, "tool result state could not be persisted");
            } else {
                crate::events::record_state(shared, ext_name, details.clone());
            }
        }
    }
    out
}
