//! The turn loop: user message → (turn_start event + interception) →
//! streamed model call → assistant message (interception) → tool calls
//! (event, interception, validation, execution) → repeat.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use zut_ext_host::{AssistantVerdict, ExtensionHost, TurnStartVerdict};
use zut_protocol::{Event, EventName};
use zut_providers::{Message, Part, Provider, ProviderError, Request, Role, StopReason};

use crate::config::AgentConfig;
use crate::context_overflow::Recovery;
use crate::event::{AgentEvent, UsageCounts, UsageEvent};
use crate::outcome::PromptOutcome;
use crate::system_prompt::SystemFiles;
use crate::toolset::{Toolset, Validators};
use crate::transcript::{json_blocks, now_rfc3339};

/// Receives every agent event, in order.
pub type EventSink<'a> = &'a mut (dyn FnMut(AgentEvent) + Send);

/// Default turn-start block reason (protocol.md §11.2).
const DEFAULT_TURN_BLOCK: &str = "turn blocked by extension guard";

/// One conversation with a model, tools and (optionally) extensions.
pub struct Agent {
    pub(crate) provider: Provider,
    pub(crate) host: Option<Arc<ExtensionHost>>,
    pub(crate) config: AgentConfig,
    pub(crate) transcript: Vec<Message>,
    pub(crate) activated: BTreeSet<String>,
    /// Activated deferred tool → the first call id of the tool-result
    /// message that activated it (where Kimi routes load its schema).
    pub(crate) activation_calls: HashMap<String, String>,
    pub(crate) validators: Validators,
    /// Which extension answered each extension tool call (by call id).
    pub(crate) tool_owners: HashMap<String, String>,
    /// `SYSTEM.md` and `AGENTS.md` as read at the start of the prompt.
    pub(crate) system_files: SystemFiles,
    /// The session file every message, usage and state row goes to.
    pub(crate) session: Option<crate::session_bridge::AgentSession>,
    /// Skills as discovered at the start of the prompt.
    pub(crate) skills: zut_skills::SkillSet,
    /// Remembered approvals and the hook that asks (`--no-yolo`).
    pub(crate) approval: crate::approval::ApprovalGate,
    /// Where `read`, `write` and `edit` get and put text (`None`: disk).
    pub(crate) files: Option<Arc<dyn zut_tools::FileAccess>>,
    /// The web tools' runtime: settings and the session's `web-N` references.
    pub(crate) web: Arc<zut_web::WebRuntime>,
    /// MCP servers whose tools join the tool set (`crate::mcp_tools`).
    pub(crate) mcp: Option<zut_mcp::McpManager>,
    /// Where the tool-result budget's cut stands (`crate::result_budget`).
    pub(crate) result_budget: crate::result_budget::BudgetState,
    /// This agent's children (`crate::subagent`), made on first use.
    pub(crate) subagents: Option<Arc<crate::subagent::runtime::Runtime>>,
    /// A child's profile tool list: extension tools not named are left out.
    pub(crate) only_tools: Option<Vec<String>>,
    /// A child's id: its events to extensions carry it (`subagent_id`).
    pub(crate) subagent_id: Option<String>,
    /// A child's ceiling (`subagents.allowed_tools`): tools it never gets.
    pub(crate) tool_ceiling: Option<Arc<crate::subagent::limits::Limits>>,
    /// The session plan (`crate::plan`).
    pub(crate) plan: Vec<zut_types::PlanStep>,
    /// Mission, goal and history (`crate::goals`).
    pub(crate) goals: crate::goals::GoalState,
    /// Whether other work waits (the controller's queue): goal
    /// continuations then give way (`crate::goals`).
    pub(crate) work_waiting: Option<crate::goals::WorkWaiting>,
    /// Children's events and runtime, shared with the controller
    /// (`crate::subagent::link`).
    pub(crate) subagent_link: crate::subagent::link::Link,
}

impl Agent {
    /// A new agent with an empty transcript.
    pub fn new(provider: Provider, host: Option<Arc<ExtensionHost>>, config: AgentConfig) -> Self {
        let web = Arc::new(zut_web::WebRuntime::new(config.web.clone()));
        Self {
            web,
            provider,
            host,
            config,
            transcript: Vec::new(),
            activated: BTreeSet::new(),
            activation_calls: HashMap::new(),
            validators: Validators::default(),
            tool_owners: HashMap::new(),
            system_files: SystemFiles::default(),
            session: None,
            skills: zut_skills::SkillSet::empty(),
            approval: Default::default(),
            files: None,
            mcp: None,
            result_budget: Default::default(),
            subagents: None,
            only_tools: None,
            subagent_id: None,
            tool_ceiling: None,
            plan: Vec::new(),
            goals: Default::default(),
            work_waiting: None,
            subagent_link: Default::default(),
        }
    }

    /// The children spawned with the `subagent` tool, if it was used.
    pub fn subagents(&self) -> Option<&Arc<crate::subagent::runtime::Runtime>> {
        self.subagents.as_ref()
    }

    /// The transcript so far (original texts and arguments: interception
    /// rewrites are never stored).
    pub fn transcript(&self) -> &[Message] {
        &self.transcript
    }

    /// The extension whose tool produced the result of call `call_id`
    /// (`None` for built-in tools, refused calls and unknown ids). The
    /// transcript keeps provider-neutral parts; this is the attribution a
    /// front end or the session layer shows and stores next to them.
    pub fn tool_owner(&self, call_id: &str) -> Option<&str> {
        self.tool_owners.get(call_id).map(String::as_str)
    }

    /// Deferred extension tools activated so far.
    pub fn activated_tools(&self) -> &BTreeSet<String> {
        &self.activated
    }

    /// The configuration.
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The configuration, to adjust between prompts (for example the
    /// enabled built-in tools or `max_steps`).
    pub fn config_mut(&mut self) -> &mut AgentConfig {
        &mut self.config
    }

    /// The extension host, if extensions are loaded.
    pub fn host(&self) -> Option<&Arc<ExtensionHost>> {
        self.host.as_ref()
    }

    /// Provider name and model.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    /// The skills as last discovered (at the start of the last prompt, or
    /// by [`Agent::reload_skills`]).
    pub fn skills(&self) -> &zut_skills::SkillSet {
        &self.skills
    }

    /// Discovers the skills again (user roots, the host's loaded
    /// extensions, built-ins); empty when skills are off. Every prompt does
    /// this first; front ends call it after `/reload-ext` or before
    /// expanding a `/skill:` command.
    pub fn reload_skills(&mut self) -> &zut_skills::SkillSet {
        self.skills = crate::skills::load(&self.config, self.host.as_deref());
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let listing = crate::skills::listing(&self.skills, home.as_deref());
        self.system_files.set_skills_listing(listing);
        &self.skills
    }

    /// Expands `/skill:<name> [request]` into the user message text (see
    /// [`crate::skills::expand_command`]), with the skills rediscovered
    /// first; `None` when `text` is no skill invocation.
    pub fn expand_skill_command(&mut self, text: &str) -> Option<Result<String, String>> {
        crate::skills::parse_command(text)?;
        if !self.config.skills {
            return crate::skills::expand_command(None, text);
        }
        self.reload_skills();
        crate::skills::expand_command(Some(&self.skills), text)
    }

    /// Replaces the provider (a model change between prompts; the
    /// transcript is kept).
    pub fn set_provider(&mut self, provider: Provider) {
        self.provider = provider;
        self.record_model();
    }

    /// Sets who answers approval requests when
    /// [`AgentConfig::confirm_tools`] is on (`None`: every call that needs
    /// approval is refused with [`crate::approval::NO_PROMPT_REFUSAL`]).
    pub fn set_approval_hook(&mut self, hook: Option<crate::approval::ApprovalHook>) {
        self.approval.hook = hook;
    }

    /// Routes the built-in `read`, `write` and `edit` tools through a
    /// front end's file access (an editor's buffers over ACP); `None`
    /// (the default) works on the disk. See [`zut_tools::FileAccess`].
    pub fn set_file_access(&mut self, files: Option<Arc<dyn zut_tools::FileAccess>>) {
        self.files = files;
    }

    /// Forgets the remembered "always" approvals.
    pub fn reset_approvals(&mut self) {
        self.approval.reset();
    }

    /// Drops the conversation: the transcript, the activated deferred tools
    /// and the tool attributions. The configuration and an attached session
    /// stay as they are.
    pub fn clear(&mut self) {
        self.transcript.clear();
        self.activated.clear();
        self.activation_calls.clear();
        self.tool_owners.clear();
        self.result_budget.reset();
        self.plan.clear();
        // `web-N` references do not outlive the conversation.
        self.web.clear();
    }

    /// Runs one user prompt to completion, emitting events to `sink`.
    pub async fn prompt(
        &mut self,
        content: Vec<Part>,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> PromptOutcome {
        // `@server:uri` mentions attach MCP resources (crate::mcp_mentions).
        let content = self.attach_mcp_mentions(content, cancel).await;
        let user = Message {
            role: Role::User,
            content,
        };
        sink(AgentEvent::UserMessage {
            content: json_blocks(&user.content),
            time: now_rfc3339(),
        });
        self.title_session(&user.text());
        // The row reaches the file before the model is called.
        let persisted = self.record_message(user, Vec::new());
        self.system_files = SystemFiles::load(&self.config.system);
        self.reload_skills();
        // The web tools turned off: their references go (tools.md §10.1).
        if !self
            .config
            .builtin_tools
            .iter()
            .any(|t| t == zut_web::SELECTOR)
        {
            self.web.clear();
        }
        let outcome = match persisted {
            Ok(()) => {
                let outcome = self.run_steps(cancel, sink).await;
                self.continue_goal(outcome, cancel, sink).await
            }
            Err(message) => PromptOutcome::Failed { message },
        };
        match &outcome {
            // rpc.md §4.2: a failed prompt ends with `error`, then `done`.
            PromptOutcome::Failed { message } => {
                sink(AgentEvent::Error {
                    message: message.clone(),
                });
                sink(AgentEvent::Done);
            }
            _ => sink(AgentEvent::Done),
        }
        outcome
    }

    pub(crate) async fn run_steps(
        &mut self,
        cancel: &CancellationToken,
        sink: EventSink<'_>,
    ) -> PromptOutcome {
        let mut cumulative = UsageCounts::default();
        let long = &self.config.long_session;
        let mut guard = crate::repetition::Guard::new(long.repetition_guard);
        let mut recovery = crate::answer_recovery::AnswerRecovery::new(long.answer_recovery);
        let mut waves = 0;
        for step in 1..=u64::from(self.config.max_steps.max(1)) {
            if cancel.is_cancelled() {
                return PromptOutcome::Aborted;
            }
            if let Err(message) = self.auto_compact(cancel, sink).await {
                return if cancel.is_cancelled() {
                    PromptOutcome::Aborted
                } else {
                    PromptOutcome::Failed { message }
                };
            }
            sink(AgentEvent::TurnStart { step });
            self.emit_ext(Event {
                step,
                ..Event::named(EventName::TURN_START)
            });
            let context = match self.intercept_turn_start(step).await {
                TurnStartVerdict::Block { reason, extension } => {
                    let reason = if reason.trim().is_empty() {
                        DEFAULT_TURN_BLOCK.to_string()
                    } else {
                        reason
                    };
                    if self.config.interception_events {
                        sink(AgentEvent::InterceptBlocked {
                            event: EventName::TURN_START,
                            extension,
                            reason: reason.clone(),
                        });
                    }
                    self.end_turn(sink, "error", Some(reason.clone()));
                    return PromptOutcome::Blocked { reason };
                }
                TurnStartVerdict::Allow { context } => context,
            };
            let tools = self.turn_tools();
            // Children's completions reach the model as hidden context.
            let context = match self.subagents.as_ref().and_then(|rt| rt.take_updates()) {
                None => context,
                Some(u) => Some(match context {
                    Some(c) if !c.trim().is_empty() => format!("{c}\n\n{u}"),
                    _ => u,
                }),
            };
            let request = self.request(&tools, context.as_deref());
            let build = |a: &Agent| a.request(&tools, context.as_deref());
            let result = self
                .stream_with_recovery(step, request, &build, cancel, sink)
                .await;
            let completion = match result {
                Ok(c) => c,
                Err(Recovery::Provider(ProviderError::Aborted)) => {
                    self.end_turn(sink, "aborted", None);
                    return PromptOutcome::Aborted;
                }
                Err(Recovery::Provider(e)) => {
                    let message = e.to_string();
                    self.end_turn(sink, "error", Some(message.clone()));
                    return PromptOutcome::Failed { message };
                }
                Err(Recovery::Failed(message)) => {
                    self.end_turn(sink, "error", Some(message.clone()));
                    return PromptOutcome::Failed { message };
                }
            };
            let this = crate::event::usage_counts(
                &completion.usage,
                self.provider.config().prices_for(self.provider.model()),
            );
            cumulative.add(&this);
            // Children's calls since the last report count in the total.
            if let Some(c) = self
                .subagents
                .as_ref()
                .and_then(|rt| rt.feed().take_unreported())
            {
                cumulative.add(&c);
            }
            self.count_goal_tokens(this.input + this.output + this.cache_read + this.cache_write);
            sink(AgentEvent::Usage(UsageEvent { this, cumulative }));
            let message = completion.message;
            // A blocked message shows nothing: the final text is empty.
            let final_text = self
                .show_assistant(&message, sink)
                .await
                .unwrap_or_default();
            let calls: Vec<(String, String, serde_json::Value)> = message
                .tool_calls()
                .map(|(id, name, args)| (id.to_string(), name.to_string(), args.clone()))
                .collect();
            let raw_text = message.text();
            let persisted = self
                .persist_message(&message, Vec::new())
                .and_then(|()| self.persist_usage(&this));
            self.transcript.push(message);
            if let Err(message) = persisted {
                self.end_turn(sink, "error", Some(message.clone()));
                return PromptOutcome::Failed { message };
            }
            let stop = if completion.stop == StopReason::EndTurn && !calls.is_empty() {
                StopReason::ToolUse
            } else {
                completion.stop
            };
            for (id, name, args) in &calls {
                self.announce_tool_call(id, name, args, sink);
            }
            self.end_turn(sink, stop_name(stop), None);
            if stop != StopReason::ToolUse || calls.is_empty() {
                match self.at_normal_end(stop, &raw_text, &mut guard, &mut recovery, sink) {
                    None => match self.orchestration_wave(&mut waves, cancel, sink).await {
                        None => return PromptOutcome::Completed { stop, final_text },
                        Some(Ok(())) => continue,
                        Some(Err(message)) => return PromptOutcome::Failed { message },
                    },
                    Some(Ok(())) => continue,
                    Some(Err(message)) => return PromptOutcome::Failed { message },
                }
            }
            let text_verdict = guard.observe_text(&raw_text, sink);
            let call_keys: Vec<(String, serde_json::Value)> = calls
                .iter()
                .map(|(_, name, args)| (name.clone(), args.clone()))
                .collect();
            recovery.tools_ran();
            let mut results = Vec::with_capacity(calls.len());
            let activated_before = self.activated.clone();
            for (id, name, args) in calls {
                if cancel.is_cancelled() {
                    // Every call still gets a result (the transcript stays
                    // valid for the next prompt), but nothing more runs.
                    results.push(crate::tool_exec::not_run(
                        sink,
                        &id,
                        "aborted before it ran",
                    ));
                    continue;
                }
                results.push(
                    self.run_tool_call(&tools, &id, &name, args, cancel, sink)
                        .await,
                );
            }
            let mut results = Message {
                role: Role::User,
                content: results,
            };
            let verdict = guard.observe_tools(&call_keys, &results.content, sink);
            let repetition_stop = crate::repetition::apply(
                crate::repetition::worst(text_verdict, verdict),
                &mut results,
            );
            let added: Vec<String> = self
                .activated
                .difference(&activated_before)
                .cloned()
                .collect();
            if let Some(call_id) = results.content.iter().find_map(|p| match p {
                Part::ToolResult { call_id, .. } => Some(call_id.clone()),
                _ => None,
            }) {
                for name in &added {
                    self.activation_calls.insert(name.clone(), call_id.clone());
                }
            }
            let persisted = self.record_message(results, added);
            if let Err(message) = persisted {
                return PromptOutcome::Failed { message };
            }
            if let Some(message) = repetition_stop {
                return PromptOutcome::Failed { message };
            }
            if cancel.is_cancelled() {
                return PromptOutcome::Aborted;
            }
        }
        PromptOutcome::Failed {
            message: format!(
                "stopped after {} model calls (--max-steps); the model still wanted to use tools",
                self.config.max_steps
            ),
        }
    }

    /// The request for this step. The hidden per-request context (the
    /// current time, plus extensions' `turn_start` context under an
    /// `[Extension context]` header, protocol.md §11.2) is appended to the
    /// last user message of this request only: it is never stored in the
    /// transcript, and the system prompt stays byte-identical across steps
    /// so providers' prompt caches keep working.
    /// The tools a model call offers now: built-ins, extension and skill
    /// tools, MCP, `subagent`, `schedule`; narrowed by `--orchestrate` and
    /// by a child's profile. A `/btw` side question offers the same.
    pub(crate) fn turn_tools(&mut self) -> Toolset {
        let mut tools = Toolset::snapshot_with_skill_tool(
            &self.config.builtin_tools,
            self.host.as_deref(),
            self.config.skills,
        );
        self.add_mcp_tools(&mut tools);
        self.add_subagent_tool(&mut tools);
        self.add_schedule_tool(&mut tools);
        if self.config.orchestrate {
            crate::subagent::orchestrate::restrict(&mut tools);
        }
        if let Some(only) = &self.only_tools {
            tools.retain(|e| {
                !matches!(e.owner, crate::toolset::ToolOwner::Extension(_))
                    || only.contains(&e.name)
            });
        }
        if let Some(c) = &self.tool_ceiling {
            tools.retain(|e| c.allows_tool(&e.name));
        }
        tools
    }

    pub(crate) fn request(&self, tools: &Toolset, context: Option<&str>) -> Request {
        let system = crate::system_prompt::build_from(
            &self.config.system,
            &self.system_files,
            &tools.summary(),
        );
        let mut messages = crate::projection::project(
            &self.transcript,
            &self.config.cwd,
            &self.config.long_session,
            &self.result_budget,
        );
        let hidden = Part::Text {
            text: hidden_context(&now_rfc3339(), context),
        };
        match messages.last_mut() {
            Some(last) if last.role == Role::User => last.content.push(hidden),
            _ => messages.push(Message {
                role: Role::User,
                content: vec![hidden],
            }),
        }
        let tools = tools.specs_placed(&self.activated, &self.activation_calls, &messages);
        Request {
            model: self.provider.model().to_string(),
            system,
            messages,
            tools,
            max_tokens: self.config.max_tokens,
            reasoning: self.config.reasoning,
        }
    }

    async fn intercept_turn_start(&self, step: u64) -> TurnStartVerdict {
        match &self.host {
            Some(h) if h.has_interceptors(EventName::TURN_START) => {
                h.intercept_turn_start(step).await
            }
            _ => TurnStartVerdict::Allow { context: None },
        }
    }

    /// Runs `assistant_message` interception and emits what the user sees.
    /// Returns the visible text, or `None` when blocked.
    async fn show_assistant(&self, message: &Message, sink: EventSink<'_>) -> Option<String> {
        let texts: Vec<&str> = message.texts().collect();
        let has_text = texts.iter().any(|t| !t.is_empty());
        let mut content = message.content.clone();
        let mut visible = texts.concat();
        if has_text {
            if let Some(host) = self
                .host
                .as_ref()
                .filter(|h| h.has_interceptors(EventName::ASSISTANT_MESSAGE))
            {
                match host.intercept_assistant_message(&texts.join("\n")).await {
                    AssistantVerdict::Block { reason, extension } => {
                        if self.config.interception_events {
                            sink(AgentEvent::InterceptBlocked {
                                event: EventName::ASSISTANT_MESSAGE,
                                extension,
                                reason,
                            });
                        }
                        return None;
                    }
                    AssistantVerdict::Allow { text, replaced } => {
                        if replaced {
                            content.retain(|p| !matches!(p, Part::Text { .. }));
                            content.insert(0, Part::Text { text: text.clone() });
                            visible = text;
                        }
                    }
                }
            }
        }
        sink(AgentEvent::AssistantMessage {
            content: json_blocks(&content),
            time: now_rfc3339(),
        });
        if has_text {
            self.emit_ext(Event {
                text: visible.clone(),
                ..Event::named(EventName::ASSISTANT_MESSAGE)
            });
        }
        Some(visible)
    }

    fn end_turn(&self, sink: EventSink<'_>, stop: &'static str, error: Option<String>) {
        self.emit_ext(Event {
            stop: stop.to_string(),
            error: error.clone().unwrap_or_default(),
            ..Event::named(EventName::TURN_END)
        });
        sink(AgentEvent::TurnEnd { stop, error });
    }

    pub(crate) fn emit_ext(&self, mut event: Event) {
        if let Some(h) = &self.host {
            if let Some(id) = &self.subagent_id {
                event.subagent_id = id.clone();
            }
            h.emit(&event);
        }
    }
}

/// rpc.md's `turn_end.stop` value.
pub fn stop_name(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn => "end_turn",
        StopReason::ToolUse => "tool_use",
        StopReason::Length => "length",
        StopReason::Error => "error",
        StopReason::Aborted => "aborted",
    }
}

/// The hidden context block of one request: the time context, then the
/// extensions' joined `turn_start` context (already bounded by the host).
pub(crate) fn hidden_context(now: &str, extension_context: Option<&str>) -> String {
    let mut text = format!("<context>\nCurrent date and time: {now}");
    if let Some(ctx) = extension_context.map(str::trim).filter(|c| !c.is_empty()) {
        text.push_str("\n\n[Extension context]\n");
        text.push_str(ctx);
    }
    text.push_str("\n</context>");
    text
}

#[cfg(test)]
mod tests {
    use super::hidden_context;

    #[test]
    fn hidden_context_has_time_then_extension_context() {
        assert_eq!(
            hidden_context("2026-12-03T08:00:00Z", None),
            "<context>\nCurrent date and time: 2026-12-03T08:00:00Z\n</context>"
        );
        assert_eq!(
            hidden_context("T", Some("[A]\na\n\n[B]\nb")),
            "<context>\nCurrent date and time: T\n\n[Extension context]\n[A]\na\n\n[B]\nb\n</context>"
        );
        assert_eq!(
            hidden_context("T", Some("  ")),
            "<context>\nCurrent date and time: T\n</context>"
        );
    }
}
