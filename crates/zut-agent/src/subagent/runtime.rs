//! In-process children: each is an [`Agent`] on a tokio task of its own,
//! sharing the parent's provider client, extension host, jail switch and
//! language servers, with its own transcript, cancellation, session file
//! (`$ZUT_HOME/subagents/<id>/transcript.jsonl`, whose `meta` row names the
//! parent session) and, optionally, a git worktree of its own.
//!
//! Children run their turns in parallel up to a limit
//! (`ZUT_SUBAGENTS_MAX_CONCURRENT`, default: the CPU count); each turn is
//! bounded by a time budget (profile `timeout`, spawn `timeout`,
//! `ZUT_SUBAGENTS_TIMEOUT`, default 1800 s) and a step budget (profile
//! `maxTurns`, else the parent's `--max-steps`). Stopping a child cancels
//! its running turn (a running `bash` command's process group is killed);
//! aborting the parent's prompt stops every child. Children cannot spawn
//! (depth limit 1).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{mpsc, watch, Semaphore};
use tokio_util::sync::CancellationToken;
use zut_ext_host::ExtensionHost;
use zut_providers::{Provider, Reasoning};

pub use crate::subagent::limits::{
    max_concurrent_from_env, timeout_from_env, Limits, DEFAULT_TIMEOUT,
};

use crate::agent::Agent;
use crate::config::AgentConfig;
use crate::event::UsageCounts;
use crate::subagent::child_files::{add_worktree, create_session, short_random};
use crate::subagent::link::Feed;
use crate::subagent::profiles::{Profile, ProfileSet, PromptMode};
use crate::subagent::worker::Worker;

/// Held while a `write` or `edit` runs, so that agents sharing a
/// workspace never interleave the read and the write of one edit.
pub static FILE_EDITS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Bytes of a child's final text put in a tool result (the full text is in
/// `result.json` and the transcript).
pub const SUMMARY_BYTES: usize = 4000;

/// Bytes of the final text kept in `result.json` (the Go original's cap).
pub const RESULT_BYTES: usize = 256 * 1024;

/// A child's state (the Go original's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildState {
    /// Waiting for a concurrency slot.
    Queued,
    /// A turn is running.
    Running,
    /// Between turns, after one that was interrupted.
    Idle,
    /// The last turn ended normally.
    Completed,
    /// The last turn failed (provider error, budget).
    Failed,
    /// Stopped for good.
    Stopped,
    /// The last turn was interrupted.
    Interrupted,
}

impl ChildState {
    /// The name the tool shows.
    pub fn as_str(self) -> &'static str {
        match self {
            ChildState::Queued => "queued",
            ChildState::Running => "running",
            ChildState::Idle => "idle",
            ChildState::Completed => "completed",
            ChildState::Failed => "failed",
            ChildState::Stopped => "stopped",
            ChildState::Interrupted => "interrupted",
        }
    }

    /// No turn queued or running.
    pub fn is_settled(self) -> bool {
        !matches!(self, ChildState::Queued | ChildState::Running)
    }
}

/// What a child is doing and has done.
#[derive(Debug, Clone)]
pub struct ChildStatus {
    /// State.
    pub state: ChildState,
    /// The last turn's final text, capped as `result.json` caps it.
    pub final_text: String,
    /// The last turn's error.
    pub error: Option<String>,
    /// Turns finished.
    pub turns: u32,
    /// Model calls made.
    pub steps: u64,
    /// Tokens in and out.
    pub tokens: (u64, u64),
    /// Every model call's usage and cost, summed over all turns.
    pub usage: UsageCounts,
    /// The tool running now, if any.
    pub tool: Option<String>,
    /// Follow-ups waiting.
    pub pending: usize,
}

/// One child.
pub struct Child {
    /// `sa-<n>-<random>`.
    pub id: String,
    /// The task it was spawned with.
    pub task: String,
    /// Its profile, if any.
    pub profile: Option<String>,
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// Reasoning level, when not off.
    pub reasoning: Reasoning,
    /// `shared` or `worktree`.
    pub workspace: &'static str,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Its state directory (`$ZUT_HOME/subagents/<id>`).
    pub dir: PathBuf,
    /// Its session file.
    pub transcript: PathBuf,
    /// `required` at spawn.
    pub required: bool,
    /// Its session as extensions see it (`parent_id`: the parent's).
    pub(super) ext_session: zut_protocol::SessionInfo,
    pub(super) started: Instant,
    pub(super) status: Mutex<ChildStatus>,
    pub(super) changed: watch::Sender<u64>,
    pub(super) inbox: mpsc::UnboundedSender<String>,
    pub(super) stop: CancellationToken,
    pub(super) turn: Mutex<Option<CancellationToken>>,
}

impl Child {
    /// A copy of the status.
    pub fn status(&self) -> ChildStatus {
        lock(&self.status).clone()
    }

    /// Time since spawn.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    pub(super) fn update(&self, f: impl FnOnce(&mut ChildStatus)) {
        f(&mut lock(&self.status));
        self.changed.send_modify(|n| *n += 1);
    }

    /// Waits until no turn is queued or running, or `limit` passes;
    /// `true` when settled.
    pub async fn wait_settled(&self, limit: Duration) -> bool {
        let mut rx = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            {
                let st = lock(&self.status);
                if st.state.is_settled() && st.pending == 0 {
                    return true;
                }
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return true,
                Err(_) => return false,
            }
        }
    }

    /// A receiver that sees every change of the status.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Cancels the running turn only; `false` when none runs.
    pub fn interrupt(&self) -> bool {
        let running = lock(&self.status).state == ChildState::Running;
        match lock(&self.turn).as_ref() {
            Some(t) if running => {
                t.cancel();
                true
            }
            _ => false,
        }
    }

    /// Stops the child for good (its running turn and tool included).
    pub fn stop(&self) {
        self.stop.cancel();
    }

    /// Queues a follow-up turn; `Err` when the child was stopped.
    pub fn send(&self, prompt: String) -> Result<(), String> {
        if self.stop.is_cancelled() {
            return Err(format!("agent \"{}\" was stopped", self.id));
        }
        self.update(|s| s.pending += 1);
        self.inbox
            .send(prompt)
            .map_err(|_| format!("agent \"{}\" has ended", self.id))
    }

    /// The status object of the tool's JSON answers.
    pub fn to_json(&self) -> Value {
        let st = self.status();
        let mut v = json!({
            "agent_id": self.id,
            "state": st.state.as_str(),
            "provider": self.provider,
            "model": self.model,
            "workspace_mode": self.workspace,
            "task": clip(&self.task, 200),
            "elapsed_ms": self.elapsed().as_millis() as u64,
            "turns": st.turns,
            "steps": st.steps,
            "tokens": {"input": st.tokens.0, "output": st.tokens.1},
            "cost_usd": st.usage.cost_usd,
            "transcript": self.transcript.display().to_string(),
        });
        if let Some(p) = &self.profile {
            v["profile"] = json!(p);
        }
        if self.required {
            v["required"] = json!(true);
        }
        if self.workspace == "worktree" {
            v["worktree"] = json!(self.cwd.display().to_string());
        }
        if let Some(t) = &st.tool {
            v["activity"] = json!(format!("running tool {t}"));
        }
        if st.pending > 0 {
            v["pending_followups"] = json!(st.pending);
        }
        if let Some(e) = &st.error {
            v["error"] = json!(e);
        }
        v
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// At most `max` bytes of `s` (on a char boundary), `...` appended when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// What a spawn asks for, resolved by the tool.
pub struct SpawnSpec {
    /// The task (first user message).
    pub task: String,
    /// Profile.
    pub profile: Option<Profile>,
    /// Model override (same provider).
    pub model: Option<String>,
    /// Reasoning override.
    pub reasoning: Option<Reasoning>,
    /// `worktree` isolation.
    pub worktree: bool,
    /// Per-turn time budget override.
    pub timeout: Option<Duration>,
    /// Step budget override.
    pub max_turns: Option<u32>,
    /// `required`.
    pub required: bool,
}

/// The parent's side: its children, the shared limit and its settings.
pub struct Runtime {
    pub(super) zut_home: PathBuf,
    pub(super) profiles: ProfileSet,
    pub(super) limit: Arc<Semaphore>,
    pub(super) max_concurrent: usize,
    pub(super) timeout: Duration,
    /// `queue_timeout`, `allowed_tools`, `allowed_roots`.
    pub(super) policy: Arc<Limits>,
    pub(super) children: Mutex<Vec<Arc<Child>>>,
    /// Completion notes not yet shown to the parent's model.
    pub(super) updates: Updates,
    /// Stops every child (the parent's abort).
    pub(super) root: CancellationToken,
    /// Bumped by each [`Runtime::watch_parent`]: older watchers end.
    pub(super) watch_gen: watch::Sender<u64>,
    pub(super) seq: std::sync::atomic::AtomicU64,
    /// Children's events and usage on their way to the front end.
    pub(super) feed: Arc<Feed>,
}

impl Runtime {
    /// A runtime writing under `zut_home`, with `profiles`.
    pub fn new(
        zut_home: PathBuf,
        profiles: ProfileSet,
        max_concurrent: usize,
        timeout: Duration,
    ) -> Self {
        let max_concurrent = max_concurrent.max(1);
        Self {
            zut_home,
            profiles,
            limit: Arc::new(Semaphore::new(max_concurrent)),
            max_concurrent,
            timeout,
            policy: Arc::new(Limits::default()),
            children: Mutex::new(Vec::new()),
            updates: Arc::new(Mutex::new(VecDeque::new())),
            root: CancellationToken::new(),
            watch_gen: watch::channel(0).0,
            seq: std::sync::atomic::AtomicU64::new(0),
            feed: Arc::new(Feed::default()),
        }
    }

    /// Where the children's events and usage go.
    pub fn feed(&self) -> &Arc<Feed> {
        &self.feed
    }

    /// For `cwd`: profiles from the usual places, limits from the
    /// environment, else `limits` (the configuration), else the defaults.
    pub fn from_env(zut_home: PathBuf, cwd: &Path, limits: Limits) -> Self {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let profiles = crate::subagent::profiles::discover(cwd, home.as_deref());
        Self::new(
            zut_home,
            profiles,
            max_concurrent_from_env(limits.max_concurrent),
            timeout_from_env(limits.timeout),
        )
        .with_policy(limits)
    }

    /// With the configured ceiling: `queue_timeout`, `allowed_tools`,
    /// `allowed_roots` (the limits' other fields are not read here).
    pub fn with_policy(mut self, limits: Limits) -> Self {
        self.policy = Arc::new(limits);
        self
    }

    /// The configured ceiling.
    pub fn policy(&self) -> &Limits {
        &self.policy
    }

    /// Registers `child`, gives its agent the child's tags and limits and
    /// starts its turn loop (extensions get `subagent_start` first).
    pub(super) fn start_child(
        &self,
        child: &Arc<Child>,
        mut agent: Agent,
        only_tools: Option<Vec<String>>,
        timeout: Duration,
        inbox: mpsc::UnboundedReceiver<String>,
    ) {
        agent.only_tools = only_tools;
        agent.subagent_id = Some(child.id.clone());
        if self.policy.allowed_tools.is_some() {
            agent.tool_ceiling = Some(self.policy.clone());
        }
        lock(&self.children).push(child.clone());
        self.feed.started(child);
        let worker = Worker {
            child: child.clone(),
            limit: self.limit.clone(),
            timeout,
            queue_timeout: self.policy.queue_timeout,
            feed: self.feed.clone(),
        };
        worker.start(agent, inbox, self.updates.clone());
    }

    /// The profiles.
    pub fn profiles(&self) -> &ProfileSet {
        &self.profiles
    }

    /// The concurrency limit.
    pub fn max_concurrent(&self) -> usize {
        self.max_concurrent
    }

    /// Every child, oldest first.
    pub fn children(&self) -> Vec<Arc<Child>> {
        lock(&self.children).clone()
    }

    /// The child whose id is `id` or starts with it (unique prefix).
    pub fn find(&self, id: &str) -> Result<Arc<Child>, String> {
        let children = lock(&self.children);
        if let Some(c) = children.iter().find(|c| c.id == id) {
            return Ok(c.clone());
        }
        let matches: Vec<&Arc<Child>> = children
            .iter()
            .filter(|c| !id.is_empty() && c.id.starts_with(id))
            .collect();
        match matches.as_slice() {
            [one] => Ok((*one).clone()),
            _ => Err(format!("subagent: no such agent \"{id}\"")),
        }
    }

    /// Completion notes since the last call, as the parent's hidden
    /// context (`[auto-subagents update]`), or `None`.
    pub fn take_updates(&self) -> Option<String> {
        let mut q = lock(&self.updates);
        if q.is_empty() {
            return None;
        }
        let mut text = String::from("[auto-subagents update]\n");
        for u in q.drain(..) {
            text.push_str(&u);
        }
        text.push_str("Use the subagent tool (status with include_result, or wait) for details; each child's full transcript is at the path given.");
        Some(text)
    }

    /// Stops every child when `cancel` (the token of the parent's prompt
    /// that last used the tool) fires; the watcher of an earlier prompt
    /// ends.
    pub fn watch_parent(&self, cancel: &CancellationToken) {
        self.watch_gen.send_modify(|g| *g += 1);
        let mut gen = self.watch_gen.subscribe();
        gen.mark_unchanged();
        let (cancel, root) = (cancel.clone(), self.root.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = cancel.cancelled() => root.cancel(),
                _ = root.cancelled() => {}
                _ = gen.changed() => {}
            }
        });
    }

    /// Drops the queued completion notes of `id` (its result was just
    /// returned by a tool call).
    pub fn forget_updates(&self, id: &str) {
        let prefix = format!("- {id}: ");
        lock(&self.updates).retain(|u| !u.starts_with(&prefix));
    }

    /// Stops every child.
    pub fn stop_all(&self) {
        self.root.cancel();
    }

    /// Creates, records and starts a child: state directory, session file,
    /// optional worktree, then its task with `spec.task` queued. Returns
    /// once the child is durably accepted (before its first request).
    pub async fn spawn(
        &self,
        spec: SpawnSpec,
        parent_provider: &Provider,
        host: Option<Arc<ExtensionHost>>,
        parent: &AgentConfig,
        parent_session: Option<(String, PathBuf)>,
        only_tools: Option<Vec<String>>,
    ) -> Result<Arc<Child>, String> {
        if self.root.is_cancelled() {
            return Err("subagent: the parent was aborted; no new children".to_string());
        }
        let model = spec
            .model
            .clone()
            .or(spec.profile.as_ref().and_then(|p| p.model.clone()));
        if let Some(m) = model.as_deref() {
            // A model the provider's catalogue does not know is refused
            // before anything is created (local providers take any name).
            crate::controller::models::check(parent_provider.name(), parent_provider.model(), m)
                .map_err(|e| format!("subagent: {e}"))?;
        }
        // The directory the child works from (or makes its worktree from)
        // must be inside `subagents.allowed_roots`.
        self.policy.check_root(&parent.cwd)?;
        let n = self.seq.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let id = format!("sa-{n}-{}", short_random());
        let dir = self.zut_home.join("subagents").join(&id);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("subagent: cannot create {}: {e}", dir.display()))?;
        let (cwd, workspace) = if spec.worktree {
            (add_worktree(&parent.cwd, &dir).await?, "worktree")
        } else {
            (parent.cwd.clone(), "shared")
        };
        let mut config = child_config(parent, spec.profile.as_ref(), &cwd)?;
        if let Some(r) = spec.reasoning {
            config.reasoning = r;
        }
        if let Some(n) = spec.max_turns {
            config.max_steps = n;
        }
        let timeout = spec
            .timeout
            .or(spec
                .profile
                .as_ref()
                .and_then(|p| p.timeout_secs)
                .map(Duration::from_secs))
            .unwrap_or(self.timeout);
        let provider = match model.filter(|m| m != parent_provider.model()) {
            None => parent_provider.clone(),
            Some(m) => parent_provider.with_model(&m),
        };
        if let Some(p) = spec.profile.as_ref().and_then(|p| p.provider.as_deref()) {
            if p != provider.name() {
                return Err(format!(
                    "subagent: profile provider {p:?} differs from the parent's ({}); zut children use the parent's provider (set only `model`)",
                    provider.name()
                ));
            }
        }
        let transcript = dir.join("transcript.jsonl");
        let (writer, snapshot) = create_session(
            &transcript,
            &id,
            &spec,
            &provider,
            &config,
            parent_session.as_ref(),
        )?;
        let (inbox_tx, inbox_rx) = mpsc::unbounded_channel();
        let (changed, _) = watch::channel(0u64);
        let ext_session = zut_protocol::SessionInfo {
            id: writer.meta().id.clone(),
            parent_id: parent_session.map(|(id, _)| id).unwrap_or_default(),
            path: transcript.display().to_string(),
            cwd: cwd.display().to_string(),
            ..Default::default()
        };
        let child = Arc::new(Child {
            id: id.clone(),
            task: spec.task.clone(),
            profile: spec.profile.as_ref().map(|p| p.name.clone()),
            provider: provider.name().to_string(),
            model: provider.model().to_string(),
            reasoning: config.reasoning,
            workspace,
            cwd,
            dir: dir.clone(),
            transcript,
            required: spec.required,
            ext_session,
            started: Instant::now(),
            status: Mutex::new(ChildStatus {
                state: ChildState::Queued,
                final_text: String::new(),
                error: None,
                turns: 0,
                steps: 0,
                tokens: (0, 0),
                usage: UsageCounts::default(),
                tool: None,
                pending: 0,
            }),
            changed,
            inbox: inbox_tx,
            stop: self.root.child_token(),
            turn: Mutex::new(None),
        });
        let mut agent = Agent::new(provider, host, config);
        agent.attach_session(writer, Some(&snapshot));
        child.send(spec.task)?;
        self.start_child(&child, agent, only_tools, timeout, inbox_rx);
        Ok(child)
    }
}

pub(super) type Updates = Arc<Mutex<VecDeque<String>>>;

/// The child's configuration: the parent's, narrowed by the profile.
pub fn child_config(
    parent: &AgentConfig,
    profile: Option<&Profile>,
    cwd: &Path,
) -> Result<AgentConfig, String> {
    let mut c = parent.clone();
    // The parent's jail (a worktree child's rooted at its worktree), or
    // the narrower one its profile asks for.
    let mode = profile.map(|p| p.sandbox).unwrap_or_default();
    c.jail = crate::subagent::sandbox::child_jail(&parent.jail, &parent.cwd, mode, cwd);
    c.cwd = cwd.to_path_buf();
    c.system.cwd = cwd.to_path_buf();
    c.confirm_tools = parent.confirm_tools;
    // Children cannot spawn, schedule prompts into the parent's session
    // or run goals of their own (docs/goals.md).
    let not_for_children = [
        crate::subagent::tool::TOOL_NAME,
        crate::schedule::SCHEDULE_TOOL,
        crate::goals::GOAL_TOOL,
    ];
    let inherited: Vec<String> = parent
        .builtin_tools
        .iter()
        .filter(|t| !not_for_children.contains(&t.as_str()))
        .cloned()
        .collect();
    c.builtin_tools = inherited.clone();
    // A child works: it never orchestrates, whatever its parent does.
    c.orchestrate = false;
    let manager = crate::subagent::orchestrate::ORCHESTRATOR_PROMPT;
    c.system.append.retain(|a| a != manager);
    let Some(p) = profile else {
        return Ok(c);
    };
    if let Some(tools) = &p.tools {
        if tools.iter().any(|t| t == crate::subagent::tool::TOOL_NAME) {
            return Err(format!(
                "subagent: profile {:?} lists the subagent tool; children cannot spawn (depth limit 1)",
                p.name
            ));
        }
        // The web tools are one selector (`web_search`).
        let wanted: Vec<String> = tools
            .iter()
            .flat_map(|t| {
                if t == "web_search" {
                    zut_web::tool_defs()
                        .into_iter()
                        .map(|d| d.name.to_string())
                        .collect()
                } else {
                    vec![t.clone()]
                }
            })
            .collect();
        c.builtin_tools = inherited
            .into_iter()
            .filter(|t| wanted.contains(t))
            .collect();
    }
    if let Some(r) = p.reasoning {
        c.reasoning = r;
    }
    if let Some(n) = p.max_turns {
        c.max_steps = n;
    }
    match p.prompt_mode {
        PromptMode::Append => c.system.append.push(p.system_prompt.clone()),
        PromptMode::Replace => c.system.system_prompt = Some(p.system_prompt.clone()),
    }
    if !p.inherit_project_context {
        c.system.no_context_files = true;
    }
    if !p.inherit_skills {
        c.skills = false;
    }
    Ok(c)
}
