//! Registered handlers and the registration frames they produce.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use zut_protocol::{
    Event, EventName, ExtFrame, RegisterCommand, RegisterTool, Subscribe, LIFECYCLE_EVENTS,
};

use crate::context::Context;
use crate::decisions::{AssistantMessageDecision, ToolCallDecision, TurnStartDecision};
use crate::response::Response;
use crate::tool_result::ToolResult;

/// A slash-command handler: `(args, ctx) -> Response`.
pub(crate) type CommandFn = dyn Fn(&str, &Context) -> Response + Send + Sync;
/// A tool handler: `(args, ctx) -> ToolResult`.
pub(crate) type ToolFn = dyn Fn(Value, &Context) -> ToolResult + Send + Sync;
/// A lifecycle event handler.
pub(crate) type EventFn = dyn Fn(&Event) + Send + Sync;
/// A `tool_call` interceptor: `(tool name, args) -> decision`.
pub(crate) type ToolGuardFn = dyn Fn(&str, &Value) -> ToolCallDecision + Send + Sync;
/// A `turn_start` interceptor: `step -> decision`.
pub(crate) type TurnGuardFn = dyn Fn(u64) -> TurnStartDecision + Send + Sync;
/// An `assistant_message` interceptor: `text -> decision`.
pub(crate) type AssistantGuardFn = dyn Fn(&str) -> AssistantMessageDecision + Send + Sync;

struct CommandDef {
    name: String,
    description: String,
}

struct ToolDef {
    name: String,
    description: String,
    schema: Value,
    deferred: bool,
}

/// Everything an extension registered, in registration order.
#[derive(Default)]
pub(crate) struct Registry {
    command_defs: Vec<CommandDef>,
    commands: HashMap<String, Arc<CommandFn>>,
    tool_defs: Vec<ToolDef>,
    tools: HashMap<String, Arc<ToolFn>>,
    event_names: Vec<String>,
    events: HashMap<String, Arc<EventFn>>,
    any_event: Option<Arc<EventFn>>,
    pub(crate) tool_guard: Option<Arc<ToolGuardFn>>,
    pub(crate) turn_guard: Option<Arc<TurnGuardFn>>,
    pub(crate) assistant_guard: Option<Arc<AssistantGuardFn>>,
}

impl Registry {
    /// Adds or replaces a command (a replacement keeps its first position).
    pub(crate) fn add_command(&mut self, name: String, description: String, f: Arc<CommandFn>) {
        match self.command_defs.iter_mut().find(|d| d.name == name) {
            Some(def) => def.description = description,
            None => self.command_defs.push(CommandDef {
                name: name.clone(),
                description,
            }),
        }
        self.commands.insert(name, f);
    }

    /// Adds or replaces a tool (a replacement keeps its first position).
    pub(crate) fn add_tool(
        &mut self,
        name: String,
        description: String,
        schema: Value,
        deferred: bool,
        f: Arc<ToolFn>,
    ) {
        let def = ToolDef {
            name: name.clone(),
            description,
            schema,
            deferred,
        };
        match self.tool_defs.iter_mut().find(|d| d.name == name) {
            Some(slot) => *slot = def,
            None => self.tool_defs.push(def),
        }
        self.tools.insert(name, f);
    }

    /// Subscribes `f` to event `name` (one handler per name; the latest wins).
    pub(crate) fn add_event(&mut self, name: String, f: Arc<EventFn>) {
        if !self.event_names.contains(&name) {
            self.event_names.push(name.clone());
        }
        self.events.insert(name, f);
    }

    /// Subscribes `f` to every lifecycle event without its own handler.
    pub(crate) fn add_any_event(&mut self, f: Arc<EventFn>) {
        self.any_event = Some(f);
    }

    pub(crate) fn command(&self, name: &str) -> Option<Arc<CommandFn>> {
        self.commands.get(name).cloned()
    }

    pub(crate) fn tool(&self, name: &str) -> Option<Arc<ToolFn>> {
        self.tools.get(name).cloned()
    }

    pub(crate) fn event(&self, name: &str) -> Option<Arc<EventFn>> {
        self.events
            .get(name)
            .cloned()
            .or_else(|| self.any_event.clone())
    }

    /// The frames announcing all registrations, in protocol order: every
    /// `register_command`, every `register_tool`, then one `subscribe` if
    /// anything is observed or intercepted.
    pub(crate) fn announcements(&self) -> Vec<ExtFrame> {
        let mut frames = Vec::with_capacity(self.command_defs.len() + self.tool_defs.len() + 1);
        frames.extend(self.command_defs.iter().map(|def| {
            ExtFrame::RegisterCommand(RegisterCommand {
                name: def.name.clone(),
                description: def.description.clone(),
            })
        }));
        frames.extend(self.tool_defs.iter().map(|def| {
            ExtFrame::RegisterTool(RegisterTool {
                name: def.name.clone(),
                description: def.description.clone(),
                schema: Some(def.schema.clone()),
                deferred: def.deferred,
            })
        }));
        let subscribe = self.subscription();
        if !subscribe.events.is_empty() || !subscribe.intercept.is_empty() {
            frames.push(ExtFrame::Subscribe(subscribe));
        }
        frames
    }

    fn subscription(&self) -> Subscribe {
        let mut events = self.event_names.clone();
        if self.any_event.is_some() {
            for name in LIFECYCLE_EVENTS {
                if !events.iter().any(|e| e == name) {
                    events.push((*name).to_string());
                }
            }
        }
        let mut intercept = Vec::new();
        if self.tool_guard.is_some() {
            intercept.push(EventName::TOOL_CALL.to_string());
        }
        if self.turn_guard.is_some() {
            intercept.push(EventName::TURN_START.to_string());
        }
        if self.assistant_guard.is_some() {
            intercept.push(EventName::ASSISTANT_MESSAGE.to_string());
        }
        Subscribe { events, intercept }
    }
}
