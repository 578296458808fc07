//! The conversation controller: one long-lived conversation driven by a
//! front end (RPC, ACP, the TUI).
//!
//! A [`Controller`] owns an [`Agent`] on a worker task and gives front ends
//! a small, non-blocking API: queue prompts and compactions (strict FIFO,
//! one runs at a time), abort the running one, read the state, clear the
//! conversation, change model and reasoning, run slash commands, reload
//! extensions and talk to extension panels. Everything that happens comes
//! out of one ordered [`EventStream`]: agent events, extension UI frames and
//! job start/finish markers.

mod commands;
mod drop_queued;
mod elicit;
mod front_hooks;
mod goal_loop;
mod handle;
mod jail;
mod jobs;
pub mod mcp;
pub mod models;
mod session_moves;
mod shared;
mod startup;
mod state;
mod subagents;
mod switch;
mod web;
mod worker;

use std::sync::Arc;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use zut_ext_host::{ExtensionHost, UiReceiver};
use zut_providers::{Message, Part, Provider};

pub use front_hooks::{ModelLister, SessionModelRestorer};
pub use jail::JailState;
pub use models::ModelInfo;
pub use session_moves::SessionMove;
pub use state::{level_name, parse_level, State, REASONING_LEVELS};
pub use zut_control::{
    CommandEntry, CommandOutcome, ControllerEvent, EventStream, JobHandle, JobId, JobKind,
    JobOutcome, ReloadSummary, SessionMoved, COALESCE_AFTER,
};

use crate::agent::Agent;
use jobs::{Job, Work};
use shared::Shared;
use startup::HostSlot;
pub use startup::Startup;
use zut_control::EventQueue;

/// Handle to a running conversation. Cheap to clone; every clone drives
/// the same conversation. Must be created inside a tokio runtime.
#[derive(Clone)]
pub struct Controller {
    shared: Arc<Shared>,
    events: EventQueue,
    host: HostSlot,
    worker: Arc<std::sync::Mutex<Option<JoinHandle<Agent>>>>,
}

impl Controller {
    /// Starts the worker for `agent`. `ui` (the receiving end of the
    /// channel given to [`ExtensionHost::start`]) is drained into the event
    /// stream; pass `None` when the front end drains it itself.
    ///
    /// The controller answers the agent's approval requests (when
    /// [`crate::AgentConfig::confirm_tools`] is on, from the start or after
    /// [`Controller::set_confirm_tools`]): each one shows up in the stream
    /// as [`crate::AgentEvent::ToolApprovalRequested`] and waits for
    /// [`Controller::answer_approval`].
    pub fn new(agent: Agent, ui: Option<UiReceiver>) -> (Self, EventStream) {
        Self::spawn(agent, ui, None, None)
    }

    /// Like [`Controller::new`], but the worker first starts the extension
    /// host of `startup` (and gives it to the agent) before running any
    /// job; [`ControllerEvent::ExtensionsReady`] marks the moment. With
    /// `unavailable`, the conversation has no model: commands that only
    /// display work, and every prompt or compaction fails with that reason.
    pub fn start(
        agent: Agent,
        ui: UiReceiver,
        startup: Option<Startup>,
        unavailable: Option<String>,
    ) -> (Self, EventStream) {
        Self::spawn(agent, Some(ui), startup, unavailable)
    }

    fn spawn(
        mut agent: Agent,
        ui: Option<UiReceiver>,
        startup: Option<Startup>,
        unavailable: Option<String>,
    ) -> (Self, EventStream) {
        let reasoning = level_name(agent.config().reasoning).to_string();
        let shared = Arc::new(Shared::new(&agent, reasoning, unavailable));
        let weak = Arc::downgrade(&shared);
        agent.set_approval_hook(Some(crate::approval::ApprovalHook::new(move |p| {
            if let Some(shared) = weak.upgrade() {
                shared.lock().approvals.insert(p.request.id, p);
            }
        })));
        let events = EventQueue::new(1 + usize::from(ui.is_some()));
        subagents::install(&agent, &shared, &events);
        let (host, ready) = match &startup {
            None => (HostSlot::ready(agent.host().cloned()), None),
            Some(_) => {
                let (slot, tx) = HostSlot::pending();
                (slot, Some(tx))
            }
        };
        if let Some(mut rx) = ui {
            let q = events.clone();
            tokio::spawn(async move {
                while let Some(ev) = rx.recv().await {
                    q.push_waiting(ControllerEvent::Ui(ev)).await;
                }
                q.producer_done();
            });
        }
        let boot = startup.map(|s| (s, host.clone(), ready));
        let worker = tokio::spawn(worker::run(agent, shared.clone(), events.clone(), boot));
        let stream = EventStream::new(events.clone());
        (
            Self {
                shared,
                events,
                host,
                worker: Arc::new(std::sync::Mutex::new(Some(worker))),
            },
            stream,
        )
    }

    fn enqueue(&self, work: Work, tag: Option<String>, front: bool) -> JobHandle {
        let (done, rx) = oneshot::channel();
        let id = {
            let mut st = self.shared.lock();
            let id = st.next_id;
            st.next_id += 1;
            let job = Job {
                id,
                tag,
                work,
                done,
            };
            if st.closed {
                let _ = job.done.send(JobOutcome::Dropped);
            } else if front {
                st.queue.push_front(job);
            } else {
                st.queue.push_back(job);
            }
            id
        };
        self.shared.wake.notify_one();
        JobHandle::new(id, rx)
    }

    /// Queues a user prompt (text and images). It runs after every job
    /// queued before it; its events follow a
    /// [`ControllerEvent::JobStarted`] carrying `tag`.
    pub fn prompt(&self, content: Vec<Part>, tag: Option<String>) -> JobHandle {
        self.enqueue(Work::Prompt(content), tag, false)
    }

    /// Queues a compaction (`instructions` are appended to the summary
    /// prompt). Ends with `compact_done` or `error`, without `done`.
    pub fn compact(&self, instructions: Option<String>, tag: Option<String>) -> JobHandle {
        self.enqueue(Work::Compact(instructions), tag, false)
    }

    /// Reloads the extensions (protocol.md §14): the running job is
    /// aborted, then the reload runs before any queued job.
    pub fn reload_extensions(&self, tag: Option<String>) -> JobHandle {
        self.abort();
        self.enqueue(Work::Reload, tag, true)
    }

    /// Cancels the running prompt or compaction, if any (queued jobs stay).
    /// Returns whether something was running. `busy` is false from now on.
    pub fn abort(&self) -> bool {
        let mut st = self.shared.lock();
        st.busy = false;
        match &st.running {
            Some((_, cancel)) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// Answers approval request `request_id` (from
    /// [`crate::AgentEvent::ToolApprovalRequested`]). `false` when no such
    /// request waits (already answered, or its job was aborted or ended).
    pub fn answer_approval(
        &self,
        request_id: u64,
        decision: crate::approval::ApprovalDecision,
    ) -> bool {
        let pending = self.shared.lock().approvals.remove(&request_id);
        pending.is_some_and(|p| p.answer(decision))
    }

    /// The approval requests waiting for an answer, oldest first.
    pub fn pending_approvals(&self) -> Vec<crate::approval::ApprovalRequest> {
        let st = self.shared.lock();
        st.approvals.values().map(|p| p.request.clone()).collect()
    }

    /// Turns interactive approval on (`--no-yolo`) or off (yolo) from the
    /// next job on; turning it on forgets the remembered "always"
    /// answers. (A request already waiting is answered with
    /// [`Controller::answer_approval`].)
    pub fn set_confirm_tools(&self, on: bool) {
        {
            let mut st = self.shared.lock();
            st.pending.confirm_tools = Some(on);
            if on {
                st.pending.reset_approvals = true;
            }
        }
        self.shared.wake.notify_one();
    }

    /// Forgets the remembered "always" approvals (from the next job on).
    pub fn reset_approvals(&self) {
        self.shared.lock().pending.reset_approvals = true;
        self.shared.wake.notify_one();
    }

    /// The current state.
    pub fn state(&self) -> State {
        let st = self.shared.lock();
        State {
            provider: st.provider_name.clone(),
            model: st.model.clone(),
            reasoning: st.reasoning.clone(),
            busy: st.busy,
            message_count: st.messages.len(),
            usage: st.usage,
            queued: st.queue.len(),
        }
    }

    /// The transcript as of the last job boundary (or empty after
    /// [`Controller::clear`]).
    pub fn messages(&self) -> Arc<Vec<Message>> {
        self.shared.lock().messages.clone()
    }

    /// Drops the conversation. Applied to the agent before the next job
    /// (a running job finishes on the old transcript); the state and
    /// [`Controller::messages`] show it at once.
    pub fn clear(&self) {
        {
            let mut st = self.shared.lock();
            st.pending.clear = true;
            st.messages = Arc::new(Vec::new());
            st.user_context.clear();
        }
        self.shared.wake.notify_one();
    }

    /// Switches to `model` of the current provider (from the next job on).
    /// Errors: a model the catalogue does not know, or a client that cannot
    /// be built.
    pub fn set_model(&self, model: &str) -> Result<String, String> {
        let model = model.trim();
        if let Some(switched) = self.resolve_model(model) {
            return switched;
        }
        let mut st = self.shared.lock();
        models::check(&st.provider_name, &st.model, model)?;
        let base = match &st.pending.provider {
            Some(p) => p.config().clone(),
            None => st
                .switched
                .clone()
                .unwrap_or_else(|| self.shared.base.clone()),
        };
        let mut config = base;
        config.model = model.to_string();
        let provider = Provider::new(config).map_err(|e| e.to_string())?;
        st.pending.provider = Some(provider);
        st.model = model.to_string();
        drop(st);
        self.shared.wake.notify_one();
        Ok(model.to_string())
    }

    /// Sets the reasoning level (`off`, `minimum`, `low`, `medium`, `high`,
    /// `xhigh`, `max`); returns the normalised name (`""` for off).
    pub fn set_reasoning(&self, level: &str) -> Result<String, String> {
        let (name, effort) = parse_level(level)?;
        {
            let mut st = self.shared.lock();
            st.pending.reasoning = Some(effort);
            st.reasoning = name.clone();
        }
        self.shared.wake.notify_one();
        Ok(name)
    }

    /// The models of the current provider, or what the front end's
    /// lister offers ([`Controller::set_model_lister`]).
    pub fn models(&self) -> Vec<ModelInfo> {
        if let Some(list) = self.listed_models() {
            return list;
        }
        let st = self.shared.lock();
        models::models(&st.provider_name, &st.model)
    }

    /// The extension host, once extensions are loaded.
    pub fn host(&self) -> Option<Arc<ExtensionHost>> {
        self.host.get()
    }

    /// Waits until the extensions started (at once when the controller
    /// started none). Front ends that must not answer before extensions
    /// registered their commands (print, RPC, ACP) wait here; the TUI
    /// does not.
    pub async fn ready(&self) {
        self.host.wait().await
    }

    /// Whether the extensions started (see [`Controller::ready`]).
    pub fn is_ready(&self) -> bool {
        self.host.is_ready()
    }

    /// Forwards a key to an extension's panel (`panel_key` frame).
    pub fn panel_key(&self, extension: &str, panel_id: &str, key: &str, text: &str) {
        if let Some(h) = self.host.get() {
            h.panel_key(extension, panel_id, key, text);
        }
    }

    /// Tells an extension its panel was closed (`panel_close` frame).
    pub fn panel_close(&self, extension: &str, panel_id: &str) {
        if let Some(h) = self.host.get() {
            h.panel_close(extension, panel_id);
        }
    }

    /// Ends the conversation: aborts the running job, drops the queued
    /// ones, stops the worker, closes the session file (a new file that got
    /// no content is removed) and stops the extensions. Returns why the
    /// session could not be closed cleanly, if it could not. The event
    /// stream ends after the extensions' last frames.
    pub async fn close(&self) -> Result<(), String> {
        self.abort();
        self.drop_queued();
        self.finish(None).await
    }

    /// Ends the conversation after the queued jobs ran (the running one
    /// too), like [`Controller::close`] otherwise; `grace` overrides the
    /// extensions' shutdown grace (a client refused for a bad token gets
    /// 100 ms).
    pub async fn finish(&self, grace: Option<std::time::Duration>) -> Result<(), String> {
        // Extensions still starting are waited for, so they are stopped
        // rather than left behind.
        self.ready().await;
        let agent = self.shutdown().await;
        let closed = match agent {
            Some(mut agent) => {
                let closed = agent.close_session();
                agent.host = None;
                if let Some(mcp) = agent.mcp() {
                    mcp.shutdown().await;
                }
                closed
            }
            None => None,
        };
        if let Some(host) = self.host.take() {
            match grace {
                Some(g) => host.shutdown_with_grace(g).await,
                None => host.shutdown().await,
            }
        }
        match closed {
            Some(Err(e)) => Err(e.to_string()),
            _ => Ok(()),
        }
    }

    /// Waits until no job runs and none is queued.
    pub async fn wait_idle(&self) {
        loop {
            let idle = self.shared.idle.notified();
            {
                let st = self.shared.lock();
                if st.queue.is_empty() && st.running.is_none() {
                    return;
                }
            }
            idle.await;
        }
    }

    /// Lets every queued job finish and stops the worker; returns the agent
    /// (to close its session or inspect it). The event stream ends once,
    /// in addition, the extension UI channel is closed (every clone of the
    /// host dropped, after `ExtensionHost::shutdown`), so extensions'
    /// last frames (`ext_chrome_clear`) still come through.
    /// Jobs queued afterwards end as [`JobOutcome::Dropped`].
    pub async fn shutdown(&self) -> Option<Agent> {
        self.wait_idle().await;
        self.shared.lock().closed = true;
        self.shared.wake.notify_one();
        let worker = self.worker.lock().unwrap_or_else(|e| e.into_inner()).take();
        let agent = match worker {
            Some(w) => w.await.ok(),
            None => None,
        };
        if agent.is_some() {
            self.events.producer_done();
        }
        agent
    }

    /// Gives the model `text` (a `!command`'s output, already marked as
    /// such) as context: it is added to the conversation as a user message
    /// of its own right before the next prompt runs (never on its own),
    /// and persisted with `meta.shell_escape` as the Go original does.
    /// [`Controller::clear`] drops what has not been added yet.
    pub fn add_user_context(&self, text: String) {
        self.shared.lock().user_context.push(text);
    }

    /// Says that this front end offers `/btw`: from now on the worker takes
    /// the side-question kit at every job boundary (at once when idle).
    /// Front ends that never ask (print mode) do not call it, and their
    /// turns do not pay for the kit.
    pub fn offer_side_questions(&self) {
        let first = {
            let mut st = self.shared.lock();
            !std::mem::replace(&mut st.side_wanted, true)
        };
        if first {
            self.shared.wake.notify_one();
        }
    }

    /// `/btw`: asks `question` about the conversation as of the last job
    /// boundary (a running prompt is not waited for) and returns the
    /// answer. Nothing is added to the conversation, the session file or
    /// the event stream. Errors: no model, the provider's error, no kit
    /// yet (a front end that did not call
    /// [`Controller::offer_side_questions`] gets one from the next boundary).
    pub fn side_question(
        &self,
        question: String,
    ) -> impl std::future::Future<Output = Result<crate::side_question::SideAnswer, String>>
           + Send
           + 'static {
        self.offer_side_questions();
        let (kit, messages) = {
            let st = self.shared.lock();
            (st.side.clone(), st.messages.clone())
        };
        let unavailable = self.shared.unavailable.clone();
        async move {
            if let Some(why) = unavailable {
                return Err(format!("/btw needs a model, but none is configured: {why}"));
            }
            let kit = kit.ok_or("the conversation is still starting; ask again")?;
            kit.ask(
                &messages,
                &question,
                &tokio_util::sync::CancellationToken::new(),
            )
            .await
        }
    }

    /// Pushes [`ControllerEvent::Note`] into the stream, after everything
    /// already in it.
    pub fn note(&self, text: String) {
        self.events.push(ControllerEvent::Note(text));
    }

    /// Pushes an event into the stream (commands' `display`/`insert`).
    pub(crate) fn push(&self, ev: ControllerEvent) {
        self.events.push(ev);
    }
}
