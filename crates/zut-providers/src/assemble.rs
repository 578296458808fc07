//! Assembling streamed deltas into the final assistant [`Message`], emitting
//! [`StreamEvent`]s on the way. Shared by both wire formats.

use std::borrow::Cow;

use serde_json::Value;

use crate::error::ProviderError;
use crate::types::{Completion, Message, Part, Role, StopReason, StreamEvent, Usage};

/// Emit callback type used inside the crate.
pub(crate) type Emit<'a> = dyn FnMut(StreamEvent) + 'a;

/// Prefix marking an Anthropic `redacted_thinking` block kept in a
/// [`Part::Thinking`] signature (the text is then empty).
pub const REDACTED_THINKING_PREFIX: &str = "redacted_thinking:";

#[derive(Debug)]
enum Slot {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    Tool {
        id: String,
        name: String,
        args: String,
        ended: bool,
    },
}

/// Collects one attempt's output.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    slots: Vec<Slot>,
    started: bool,
    pub(crate) stop: Option<StopReason>,
    pub(crate) usage: Usage,
}

impl Assembler {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Whether any output reached the caller (no retry after that).
    pub(crate) fn started(&self) -> bool {
        self.started
    }

    fn start(&mut self, emit: &mut Emit<'_>) {
        if !self.started {
            self.started = true;
            emit(StreamEvent::AssistantStart);
        }
    }

    /// Open a text part; returns its slot.
    pub(crate) fn open_text(&mut self) -> usize {
        self.slots.push(Slot::Text(String::new()));
        self.slots.len() - 1
    }

    /// Open a thinking part; returns its slot.
    pub(crate) fn open_thinking(&mut self, signature: Option<String>) -> usize {
        self.slots.push(Slot::Thinking {
            text: String::new(),
            signature,
        });
        self.slots.len() - 1
    }

    /// Open a tool call; emits `ToolUseStart`.
    pub(crate) fn open_tool(&mut self, id: String, name: String, emit: &mut Emit<'_>) -> usize {
        self.start(emit);
        emit(StreamEvent::ToolUseStart {
            id: id.clone(),
            name: name.clone(),
        });
        self.slots.push(Slot::Tool {
            id,
            name,
            args: String::new(),
            ended: false,
        });
        self.slots.len() - 1
    }

    /// The slot of the last part when it is text.
    pub(crate) fn last_text(&self) -> Option<usize> {
        match self.slots.last() {
            Some(Slot::Text(_)) => Some(self.slots.len() - 1),
            _ => None,
        }
    }

    /// The slot of the last part when it is thinking.
    pub(crate) fn last_thinking(&self) -> Option<usize> {
        match self.slots.last() {
            Some(Slot::Thinking { .. }) => Some(self.slots.len() - 1),
            _ => None,
        }
    }

    /// Append text to a text slot. (Takes a `Cow` so that a delta the JSON
    /// parser already had to copy is moved into the event, not copied again.)
    pub(crate) fn text(&mut self, slot: usize, delta: Cow<'_, str>, emit: &mut Emit<'_>) {
        if delta.is_empty() {
            return;
        }
        if let Some(Slot::Text(text)) = self.slots.get_mut(slot) {
            text.push_str(&delta);
            self.start(emit);
            emit(StreamEvent::TextDelta(delta.into_owned()));
        }
    }

    /// Append reasoning to a thinking slot.
    pub(crate) fn thinking(&mut self, slot: usize, delta: Cow<'_, str>, emit: &mut Emit<'_>) {
        if delta.is_empty() {
            return;
        }
        if let Some(Slot::Thinking { text, .. }) = self.slots.get_mut(slot) {
            text.push_str(&delta);
            self.start(emit);
            emit(StreamEvent::ThinkingDelta(delta.into_owned()));
        }
    }

    /// Append to a thinking slot's signature.
    pub(crate) fn signature(&mut self, slot: usize, delta: &str) {
        if let Some(Slot::Thinking { signature, .. }) = self.slots.get_mut(slot) {
            signature.get_or_insert_with(String::new).push_str(delta);
        }
    }

    /// Append a JSON fragment to a tool slot's arguments.
    pub(crate) fn args(&mut self, slot: usize, delta: &str, emit: &mut Emit<'_>) {
        if delta.is_empty() {
            return;
        }
        if let Some(Slot::Tool { id, args, .. }) = self.slots.get_mut(slot) {
            args.push_str(delta);
            emit(StreamEvent::ToolUseArgs {
                id: id.clone(),
                delta: delta.to_string(),
            });
        }
    }

    /// Close a tool slot (emits `ToolUseEnd` once).
    pub(crate) fn end_tool(&mut self, slot: usize, emit: &mut Emit<'_>) {
        if let Some(Slot::Tool { id, ended, .. }) = self.slots.get_mut(slot) {
            if !*ended {
                *ended = true;
                emit(StreamEvent::ToolUseEnd { id: id.clone() });
            }
        }
    }

    /// Close every open tool slot.
    pub(crate) fn end_all_tools(&mut self, emit: &mut Emit<'_>) {
        for slot in 0..self.slots.len() {
            self.end_tool(slot, emit);
        }
    }

    /// Whether the reply contains a tool call.
    pub(crate) fn has_tool_calls(&self) -> bool {
        self.slots.iter().any(|s| matches!(s, Slot::Tool { .. }))
    }

    /// Build the completion: parse tool arguments, drop empty parts.
    pub(crate) fn finish(
        mut self,
        provider: &str,
        emit: &mut Emit<'_>,
    ) -> Result<Completion, ProviderError> {
        self.end_all_tools(emit);
        self.start(emit);
        let mut content = Vec::with_capacity(self.slots.len());
        for slot in std::mem::take(&mut self.slots) {
            match slot {
                Slot::Text(text) => {
                    if !text.is_empty() {
                        content.push(Part::Text { text });
                    }
                }
                Slot::Thinking { text, signature } => {
                    let signature = signature.filter(|s| !s.is_empty());
                    if !text.is_empty() || signature.is_some() {
                        content.push(Part::Thinking { text, signature });
                    }
                }
                Slot::Tool { id, name, args, .. } => {
                    match parse_args(provider, &id, &name, &args) {
                        Ok(args) => content.push(Part::ToolCall { id, name, args }),
                        // The output cap cut the arguments short: drop the
                        // unfinished call and report the `Length` stop.
                        Err(e) if self.stop == Some(StopReason::Length) => {
                            tracing::debug!(%e, "dropping tool call truncated by the output limit");
                        }
                        // Not JSON: the call is kept with its raw text as a
                        // string, so the turn goes on and the tool runner
                        // tells the model (see [`invalid_args_message`]).
                        // Requests send such arguments back as `{}`.
                        Err(e) => {
                            tracing::debug!(%e, "tool call arguments are not JSON");
                            content.push(Part::ToolCall {
                                id,
                                name,
                                args: Value::String(args),
                            });
                        }
                    }
                }
            }
        }
        let has_tools = content.iter().any(|p| matches!(p, Part::ToolCall { .. }));
        let stop = match self.stop {
            Some(stop) => stop,
            None if has_tools => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        Ok(Completion {
            message: Message {
                role: Role::Assistant,
                content,
            },
            stop,
            usage: self.usage,
        })
    }
}

/// The message a model gets for a tool call whose arguments were not JSON
/// (kept by the providers as a [`Value::String`] of the raw text), or
/// `None` when `args` is not such a call's.
pub fn invalid_args_message(name: &str, args: &Value) -> Option<String> {
    let Value::String(raw) = args else {
        return None;
    };
    let why = match serde_json::from_str::<Value>(raw) {
        Err(e) => e.to_string(),
        Ok(_) => "not an object".to_string(),
    };
    let mut shown: String = raw.chars().take(500).collect();
    if shown.len() < raw.len() {
        shown.push('…');
    }
    Some(format!(
        "the arguments of this call to \"{name}\" are not valid JSON ({why}); nothing was run. \
         Arguments received: {shown}\nCall the tool again with a JSON object."
    ))
}

/// Parse streamed tool arguments: empty means `{}`.
fn parse_args(provider: &str, id: &str, name: &str, raw: &str) -> Result<Value, ProviderError> {
    if raw.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Null) => Ok(Value::Object(Default::default())),
        Ok(value) => Ok(value),
        Err(e) => Err(ProviderError::InvalidToolArgs {
            provider: provider.to_string(),
            id: id.to_string(),
            name: name.to_string(),
            message: e.to_string(),
        }),
    }
}
