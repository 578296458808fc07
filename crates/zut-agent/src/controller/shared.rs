//! State shared between the [`super::Controller`] handles and the worker.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use zut_providers::{Message, Provider, Reasoning};

use super::jobs::Job;
use crate::agent::Agent;
use crate::event::UsageCounts;
use zut_control::JobId;

/// Settings changed by the front end, applied by the worker before the
/// next job (the running one keeps what it started with).
#[derive(Default)]
pub(crate) struct Pending {
    pub(crate) clear: bool,
    pub(crate) provider: Option<Provider>,
    pub(crate) reasoning: Option<Reasoning>,
    pub(crate) reset_approvals: bool,
    pub(crate) confirm_tools: Option<bool>,
    /// `/orchestrator on|off` (`super::subagents`).
    pub(crate) orchestrate: Option<bool>,
    /// `/web on|off` (`super::web`).
    pub(crate) web_tools: Option<bool>,
}

pub(crate) struct Inner {
    pub(crate) queue: VecDeque<Job>,
    pub(crate) next_id: JobId,
    pub(crate) running: Option<(JobId, CancellationToken)>,
    pub(crate) busy: bool,
    pub(crate) closed: bool,
    pub(crate) pending: Pending,
    pub(crate) provider_name: String,
    pub(crate) model: String,
    pub(crate) reasoning: String,
    pub(crate) usage: UsageCounts,
    pub(crate) messages: Arc<Vec<Message>>,
    /// Approval requests waiting for the front end's answer, by id.
    pub(crate) approvals: std::collections::BTreeMap<u64, crate::approval::PendingApproval>,
    /// MCP elicitations waiting for the front end's answer, by id.
    pub(crate) elicitations: std::collections::BTreeMap<u64, super::elicit::Pending>,
    /// `!command` outputs waiting for the next prompt (see
    /// [`super::Controller::add_user_context`]).
    pub(crate) user_context: Vec<String>,
    /// What `/btw` needs, as of the last job boundary.
    pub(crate) side: Option<Arc<crate::side_question::SideKit>>,
    /// A front end offers `/btw` ([`super::Controller::offer_side_questions`]):
    /// only then is the kit taken at job boundaries (it costs a copy of the
    /// tools' schemas and the system prompt; print mode never asks).
    pub(crate) side_wanted: bool,
    /// The provider configuration `/model <provider>/<id>` switched to
    /// (`None`: the one the conversation started with).
    pub(crate) switched: Option<zut_providers::ProviderConfig>,
    /// Whether the agent offers the web tools (as of the last job
    /// boundary; `/web` changes it through `pending`).
    pub(crate) web_tools: bool,
}

impl Inner {
    /// Applies pending settings to the agent; whether anything changed.
    pub(crate) fn apply_pending(&mut self, agent: &mut Agent) -> bool {
        let p = std::mem::take(&mut self.pending);
        let changed = p.clear || p.provider.is_some() || p.reasoning.is_some();
        if p.reset_approvals {
            agent.reset_approvals();
        }
        if let Some(on) = p.confirm_tools {
            agent.config_mut().confirm_tools = on;
        }
        if let Some(on) = p.orchestrate {
            crate::subagent::orchestrate::set(agent.config_mut(), on);
        }
        if p.clear {
            agent.clear();
        }
        if let Some(provider) = p.provider {
            agent.set_provider(provider);
        }
        if let Some(r) = p.reasoning {
            agent.config_mut().reasoning = r;
        }
        if let Some(on) = p.web_tools {
            let tools = &mut agent.config_mut().builtin_tools;
            tools.retain(|t| !zut_web::is_web_tool(t));
            if on {
                tools.extend(zut_web::TOOL_NAMES.iter().map(|t| t.to_string()));
            }
            self.web_tools = on;
        }
        changed
    }

    /// Takes a new snapshot of the transcript.
    pub(crate) fn refresh(&mut self, agent: &Agent) {
        self.messages = Arc::new(agent.transcript().to_vec());
    }
}

pub(crate) struct Shared {
    state: Mutex<Inner>,
    /// The provider configuration the conversation started with.
    pub(crate) base: zut_providers::ProviderConfig,
    /// The agent settings it started with (skill discovery for `/skill:`).
    pub(crate) agent_config: crate::config::AgentConfig,
    /// Why there is no model (prompts and compactions fail with it).
    pub(crate) unavailable: Option<String>,
    /// The MCP servers (their prompts run as `/mcp__<server>__<prompt>`).
    pub(crate) mcp: Option<zut_mcp::McpManager>,
    /// Wakes the worker (new job, settings change, close).
    pub(crate) wake: Notify,
    /// Signalled when the worker has nothing left to do.
    pub(crate) idle: Notify,
    /// Resolves `/model <provider>/<id>` to another provider's
    /// configuration (set by the front end, which knows the files).
    pub(crate) resolver: std::sync::OnceLock<super::switch::ModelResolver>,
    /// The agent's children (`super::subagents`).
    pub(crate) subagents: crate::subagent::link::Link,
    /// The front end's model lister and session model restorer.
    pub(crate) hooks: super::front_hooks::FrontHooks,
    /// Bumped each time an MCP elicitation starts waiting
    /// (`ConversationHandle::elicitation_watch`).
    pub(crate) elicitation_seq: tokio::sync::watch::Sender<u64>,
}

impl Shared {
    pub(crate) fn new(agent: &Agent, reasoning: String, unavailable: Option<String>) -> Self {
        Self {
            unavailable,
            mcp: agent.mcp().cloned(),
            base: agent.provider().config().clone(),
            agent_config: agent.config().clone(),
            state: Mutex::new(Inner {
                queue: VecDeque::new(),
                next_id: 1,
                running: None,
                busy: false,
                closed: false,
                pending: Pending::default(),
                provider_name: agent.provider().name().to_string(),
                model: agent.provider().model().to_string(),
                reasoning,
                usage: UsageCounts::default(),
                messages: Arc::new(agent.transcript().to_vec()),
                approvals: Default::default(),
                elicitations: Default::default(),
                user_context: Vec::new(),
                side: None,
                side_wanted: false,
                switched: None,
                web_tools: agent
                    .config()
                    .builtin_tools
                    .iter()
                    .any(|t| t == zut_web::SELECTOR),
            }),
            wake: Notify::new(),
            idle: Notify::new(),
            resolver: std::sync::OnceLock::new(),
            subagents: agent.subagent_link.clone(),
            hooks: Default::default(),
            elicitation_seq: tokio::sync::watch::Sender::new(0),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
