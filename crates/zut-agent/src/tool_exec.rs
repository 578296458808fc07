//! One tool call: `tool_call` event, interception, validation, execution
//! (built-in or extension), result.

use std::sync::Arc;

use base64::Engine as _;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use zut_ext_host::{ToolCallVerdict, ToolContent, ToolOutcome};
use zut_protocol::{Event, EventName};
use zut_providers::Part;

use crate::agent::{Agent, EventSink};
use crate::event::AgentEvent;
use crate::toolset::{ToolOwner, Toolset};
use crate::transcript::json_blocks;

/// Default tool-call block reason (protocol.md §11.1).
const DEFAULT_TOOL_BLOCK: &str = "tool call refused by extension guard";

impl Agent {
    /// Announces a tool call of the final assistant message: the `tool_call`
    /// agent event and the `tool_call` extension event with the model's
    /// original arguments. All calls of a step are announced before that
    /// step's `turn_end`, and run after it (conformance G10).
    pub(crate) fn announce_tool_call(
        &self,
        id: &str,
        name: &str,
        args: &Value,
        sink: EventSink<'_>,
    ) {
        self.emit_ext(Event {
            tool_id: id.to_string(),
            tool_name: name.to_string(),
            tool_args: Some(args.clone()),
            ..Event::named(EventName::TOOL_CALL)
        });
        sink(AgentEvent::ToolCall {
            id: id.to_string(),
            name: name.to_string(),
            args: args.clone(),
        });
    }

    /// Runs one (already announced) tool call: interception, validation,
    /// execution; returns its `ToolResult` part.
    pub(crate) async fn run_tool_call(
        &mut self,
        tools: &Toolset,
        id: &str,
        name: &str,
        args: Value,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> Part {
        // Arguments that were not JSON (kept raw by the provider): the
        // model is told and the turn goes on.
        if let Some(text) = zut_providers::invalid_args_message(name, &args) {
            return finish(sink, id, true, vec![Part::Text { text }]);
        }
        if self.config.orchestrate {
            if let Some(text) = crate::subagent::orchestrate::refusal(name, &args) {
                return finish(sink, id, true, vec![Part::Text { text }]);
            }
        }
        let effective = match self.intercept(id, name, &args).await {
            Ok(a) => a,
            Err(reason) => return finish(sink, id, true, vec![Part::Text { text: reason }]),
        };
        // `update_plan` (seed-era name) goes to `plan` while it is enabled.
        if name == crate::plan::PLAN_ALIAS && tools.contains(crate::plan::PLAN_TOOL) {
            sink(AgentEvent::ToolExecutionStarted {
                id: id.to_string(),
                name: name.to_string(),
            });
            let (is_error, content) = self.run_plan_tool(id, name, &effective, sink);
            return finish(sink, id, is_error, content);
        }
        let late = match tools.get(name) {
            Some(_) => None,
            None => self.late_mcp_tool(name).await,
        };
        let Some(entry) = tools.get(name).or(late.as_ref()) else {
            let known: Vec<&str> = tools.summary_names();
            let text = format!(
                "unknown tool \"{name}\"; available tools: {}",
                known.join(", ")
            );
            return finish(sink, id, true, vec![Part::Text { text }]);
        };
        if let Err(why) = self.validators.check(entry, &effective) {
            let text = format!("invalid arguments for tool \"{name}\": {why}");
            return finish(sink, id, true, vec![Part::Text { text }]);
        }
        if self.config.confirm_tools {
            // Built-in tools that can say what they would do (an `edit`'s
            // or `ast` rewrite's diff) show it in the question.
            let detail = match &entry.owner {
                ToolOwner::Builtin if !self.approval.covers(name) => {
                    self.preview_builtin(name, &effective, cancel).await
                }
                _ => None,
            };
            if let Err(text) = self
                .confirm(id, name, &effective, detail, cancel, sink)
                .await
            {
                return finish(sink, id, true, vec![Part::Text { text }]);
            }
        }
        sink(AgentEvent::ToolExecutionStarted {
            id: id.to_string(),
            name: name.to_string(),
        });
        let (is_error, content) = match &entry.owner {
            ToolOwner::Builtin if crate::plan::is_plan_call(name) => {
                self.run_plan_tool(id, name, &effective, sink)
            }
            ToolOwner::Builtin if name == crate::schedule::SCHEDULE_TOOL => {
                self.run_schedule_tool(&effective)
            }
            ToolOwner::Builtin if name == crate::goals::GOAL_TOOL => {
                self.run_goal_tool(&effective, sink)
            }
            ToolOwner::Builtin => self.run_builtin(id, name, &effective, cancel, sink).await,
            ToolOwner::Skill => {
                let (is_error, text) = crate::skills::run_tool(&self.skills, &effective);
                (is_error, vec![Part::Text { text }])
            }
            ToolOwner::Mcp(_) => self.run_mcp(id, name, effective, tools, cancel, sink).await,
            ToolOwner::Subagent => self.run_subagent(&effective, cancel).await,
            ToolOwner::Extension(ext) => {
                self.tool_owners.insert(id.to_string(), ext.to_string());
                self.run_extension(ext, name, effective, tools, cancel)
                    .await
            }
        };
        finish(sink, id, is_error, content)
    }

    /// Interactive approval (`--no-yolo`): `Ok` to run, else the text the
    /// model gets. Remembered approvals pass at once; otherwise
    /// subscribed extensions get `tool_confirmation_requested`, the sink
    /// gets `ToolApprovalRequested`, and the call waits for the decision
    /// or the cancellation token.
    async fn confirm(
        &mut self,
        id: &str,
        name: &str,
        args: &Value,
        detail: Option<String>,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> Result<(), String> {
        use crate::approval::{ApprovalDecision, Gate, DROPPED_REFUSAL};
        let (request, rx) = match self.approval.check(id, name, args, detail) {
            Gate::Allowed => return Ok(()),
            Gate::Refused(reason) => return Err(reason),
            Gate::Ask(request, rx) => (request, rx),
        };
        self.emit_ext(Event {
            tool_id: id.to_string(),
            tool_name: name.to_string(),
            tool_preview: request.preview.clone(),
            ..Event::named(EventName::TOOL_CONFIRMATION_REQUESTED)
        });
        sink(AgentEvent::ToolApprovalRequested {
            request_id: request.id,
            id: request.tool_id,
            name: request.tool_name,
            preview: request.preview,
            args: request.args,
            detail: request.detail,
        });
        let decision = tokio::select! {
            d = rx => d.unwrap_or(ApprovalDecision::Refuse {
                reason: Some(DROPPED_REFUSAL.to_string()),
            }),
            _ = cancel.cancelled() => return Err("aborted before it ran".to_string()),
        };
        self.approval.decide(name, decision)
    }

    /// `tool_call` interception: the effective arguments, or the block reason.
    async fn intercept(&self, id: &str, name: &str, args: &Value) -> Result<Value, String> {
        let Some(host) = self
            .host
            .as_ref()
            .filter(|h| h.has_interceptors(EventName::TOOL_CALL))
        else {
            return Ok(args.clone());
        };
        match host.intercept_tool_call(id, name, args).await {
            ToolCallVerdict::Block { reason, .. } => Err(if reason.trim().is_empty() {
                DEFAULT_TOOL_BLOCK.to_string()
            } else {
                reason
            }),
            ToolCallVerdict::Allow {
                args: mut new,
                modified,
            } => {
                if modified && name == "bash" {
                    keep_bash_timeout(args, &mut new);
                }
                Ok(new)
            }
        }
    }

    /// The context built-in tools run in (no progress sink); an error when
    /// the jail is on but could not be built.
    fn tool_context(&self, cancel: &CancellationToken) -> Result<zut_tools::ToolContext, String> {
        let mut ctx = zut_tools::ToolContext::new(self.config.cwd.clone())
            .with_cancel(cancel.child_token())
            .with_zut_home(self.config.system.zut_home.clone());
        if let Some(python) = &self.config.python_interpreter {
            ctx = ctx.with_python_interpreter(python.clone());
        }
        if let Some(files) = &self.files {
            ctx = ctx.with_files(files.clone());
        }
        if let Some(lsp) = &self.config.lsp {
            ctx = ctx.with_lsp(lsp.clone());
        }
        Ok(ctx.with_jail(self.config.jail.current()?))
    }

    /// The `--no-yolo` preview of a built-in call (`None`: nothing to show).
    async fn preview_builtin(
        &self,
        name: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Option<String> {
        let ctx = self.tool_context(cancel).ok()?;
        zut_tools::preview_builtin(name, args, &ctx).await
    }

    /// Runs a built-in tool; its live output becomes `tool_progress` events,
    /// emitted as it arrives and always before the result.
    async fn run_builtin(
        &self,
        id: &str,
        name: &str,
        args: &Value,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> (bool, Vec<Part>) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        let progress: zut_tools::ProgressFn = Arc::new(move |chunk: &str| {
            let _ = tx.send(chunk.to_string());
        });
        let ctx = match self.tool_context(cancel) {
            Ok(ctx) => ctx.with_progress(progress),
            Err(e) => {
                return (
                    true,
                    vec![Part::Text {
                        text: format!("The jail could not be set up, so the tool did not run: {e}"),
                    }],
                )
            }
        };
        let mut emit = |text: String| {
            sink(AgentEvent::ToolProgress {
                id: id.to_string(),
                text,
            })
        };
        let web = self.web.clone();
        // `web_search`'s `provider` backend searches with the current model.
        let server_search = (name == "web_search"
            && web.config().search.backend == zut_web::SearchBackend::Provider)
            .then(|| crate::web_provider::ProviderSearch::new(self.provider.clone()));
        // `write` and `edit` of every agent in the process (a parent and
        // its children) run one at a time: a second edit of a file sees the
        // first's result (docs/subagents.md).
        let _edit_turn = match name {
            "write" | "edit" => Some(crate::subagent::runtime::FILE_EDITS.lock().await),
            _ => None,
        };
        let out = {
            let run = async {
                if zut_web::is_web_tool(name) {
                    let server = server_search
                        .as_ref()
                        .map(|s| s as &dyn zut_web::ServerSearch);
                    web.run_with_search(name, args, &ctx, server).await
                } else {
                    zut_tools::run_builtin(name, args, &ctx).await
                }
            };
            tokio::pin!(run);
            loop {
                tokio::select! {
                    biased;
                    Some(text) = rx.recv() => emit(text),
                    out = &mut run => break out,
                }
            }
        };
        // The sender lives in `ctx`: dropping it ends the channel.
        drop(ctx);
        while let Ok(text) = rx.try_recv() {
            emit(text);
        }
        let content = out
            .content
            .into_iter()
            .map(|c| match c {
                zut_tools::ToolContent::Text(text) => Part::Text { text },
                zut_tools::ToolContent::Image { mime_type, data } => {
                    Part::Image { mime_type, data }
                }
            })
            .collect();
        (out.is_error, content)
    }

    async fn run_extension(
        &mut self,
        ext: &str,
        name: &str,
        args: Value,
        tools: &Toolset,
        cancel: &CancellationToken,
    ) -> (bool, Vec<Part>) {
        let Some(host) = self.host.clone() else {
            let text = format!("extension {ext}/{name} failed: extensions are not loaded");
            return (true, vec![Part::Text { text }]);
        };
        let mut outcome = tokio::select! {
            o = host.call_tool(name, args) => o,
            _ = cancel.cancelled() => ToolOutcome::failed(ext, name, "context canceled"),
        };
        // `details` becomes the owner's state row before the result row
        // (sessions-themes-skills.md §1.6); if it cannot be written, the
        // model gets an error instead of the result (protocol.md §8.5).
        if let Some(details) = outcome.details.take() {
            if let Err(why) = self.persist_state(ext, &details) {
                tracing::warn!("extension {ext}: tool {name}: state not persisted: {why}");
                outcome = ToolOutcome::error(ext, name, crate::session_bridge::STATE_NOT_PERSISTED);
            }
        }
        for activated in &outcome.activate_tools {
            if tools.contains(activated) {
                self.activated.insert(activated.clone());
            }
        }
        let content = outcome
            .content
            .into_iter()
            .map(|c| match c {
                ToolContent::Text(text) => Part::Text { text },
                ToolContent::Image { mime_type, data } => Part::Image {
                    mime_type,
                    data: base64::engine::general_purpose::STANDARD.encode(data),
                },
            })
            .collect();
        (outcome.is_error, content)
    }
}

/// `bash` requires `timeout`: an interceptor's rewrite that drops it keeps
/// the model's value.
fn keep_bash_timeout(original: &Value, new: &mut Value) {
    if let (Some(t), Some(obj)) = (original.get("timeout"), new.as_object_mut()) {
        obj.entry("timeout").or_insert_with(|| t.clone());
    }
}

fn finish(sink: EventSink<'_>, id: &str, is_error: bool, content: Vec<Part>) -> Part {
    sink(AgentEvent::ToolResult {
        id: id.to_string(),
        is_error,
        content: json_blocks(&content),
    });
    Part::ToolResult {
        call_id: id.to_string(),
        is_error,
        content,
    }
}

/// The error result of a call that was never run (the prompt was aborted).
pub(crate) fn not_run(sink: EventSink<'_>, id: &str, why: &str) -> Part {
    finish(
        sink,
        id,
        true,
        vec![Part::Text {
            text: why.to_string(),
        }],
    )
}
