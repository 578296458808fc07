//! Agent settings that do not change between prompts.

use std::path::PathBuf;

use zut_providers::Reasoning;

use crate::system_prompt::SystemPromptOptions;

/// Default for `--max-steps`: model calls per prompt.
pub const DEFAULT_MAX_STEPS: u32 = 50;

/// Default output-token cap per model call.
pub const DEFAULT_MAX_TOKENS: u32 = 16_384;

/// Agent settings.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Project directory: tools resolve relative paths against it.
    pub cwd: PathBuf,
    /// Enabled built-in tools (`--tools`, `--no-tools`).
    pub builtin_tools: Vec<String>,
    /// Maximum model calls per prompt (`--max-steps`).
    pub max_steps: u32,
    /// Output-token cap per model call.
    pub max_tokens: u32,
    /// Reasoning effort (`--reasoning`).
    pub reasoning: Reasoning,
    /// System prompt inputs.
    pub system: SystemPromptOptions,
    /// Compaction: context window, automatic threshold, preserved tail.
    pub compaction: crate::compaction::CompactionConfig,
    /// Skills (`crate::skills`): discovery, the `skill` tool and the
    /// system-prompt listing. Off by default so embedders opt in; the CLI
    /// turns it on unless `--no-skill`.
    pub skills: bool,
    /// Interactive approval of tool calls (`--no-yolo`, see
    /// [`crate::approval`]). Off (yolo) by default.
    pub confirm_tools: bool,
    /// Emit [`crate::AgentEvent::ReasoningDelta`] for the model's reasoning
    /// text. Off by default (RPC and `--json` never show reasoning).
    pub reasoning_events: bool,
    /// Emit [`crate::AgentEvent::InterceptBlocked`] when an extension's
    /// `turn_start` or `assistant_message` interceptor blocks, with its
    /// reason (the TUI shows it as a status line). Off by default: the
    /// Go-compatible event streams have no such event.
    pub interception_events: bool,
    /// The language-server manager behind the `lsp` tool and the
    /// diagnostics attached after `write`/`edit` (`None`: no LSP).
    pub lsp: Option<std::sync::Arc<dyn zut_tools::CodeIntel>>,
    /// The interpreter of the `python` tool (`python_interpreter` in
    /// config.json); `None`: discovered (`VIRTUAL_ENV`, `./.venv`, PATH).
    pub python_interpreter: Option<PathBuf>,
    /// The public-web tools' settings (search backend, allowed hosts);
    /// the tools are offered when `builtin_tools` names them.
    pub web: zut_web::WebConfig,
    /// The jail switch (`--jail`, `jail_by_default`, `/jail`, `/unjail`):
    /// shared by clones, read at the start of each tool call. Off by
    /// default.
    pub jail: zut_tools::JailSwitch,
    /// What keeps long sessions working: stale-read projection, tool-result
    /// budget, repetition guard, missing-answer recovery (all on).
    pub long_session: crate::long_session::LongSessionConfig,
    /// `--orchestrate`: the parent only reads and delegates, and waits for
    /// its children's completions ([`crate::subagent::orchestrate`]).
    pub orchestrate: bool,
    /// Budgets of autonomous goals (`config.json` `goals`,
    /// `crate::goals`).
    pub goals: crate::goals::GoalBudget,
    /// Children's limits from `config.json` `subagents` (the environment's
    /// `ZUT_SUBAGENTS_*` win).
    pub subagents: crate::subagent::runtime::Limits,
    /// The MCP elicitation modes the front end shows (the TUI: forms and
    /// URLs; an ACP client: what it declared): declared to the servers
    /// from their first connection, and turned on with the conversation
    /// (`Controller::set_mcp_elicitation_modes`). None: not declared;
    /// servers asking anyway are declined.
    pub mcp_elicitation: zut_types::ElicitationModes,
}

impl AgentConfig {
    /// Defaults for `cwd`: every built-in tool but `lsp` (no manager),
    /// default limits.
    pub fn new(cwd: impl Into<PathBuf>, zut_home: impl Into<PathBuf>) -> Self {
        let cwd = cwd.into();
        Self {
            // `lsp` needs a manager ([`AgentConfig::lsp`]): embedders that
            // set one add the name too (the CLI does).
            builtin_tools: zut_tools::BUILTIN_NAMES
                .iter()
                .filter(|s| **s != "lsp")
                .map(|s| s.to_string())
                .collect(),
            max_steps: DEFAULT_MAX_STEPS,
            max_tokens: DEFAULT_MAX_TOKENS,
            reasoning: Reasoning::Off,
            compaction: Default::default(),
            system: SystemPromptOptions {
                zut_home: zut_home.into(),
                cwd: cwd.clone(),
                ..Default::default()
            },
            cwd,
            skills: false,
            confirm_tools: false,
            reasoning_events: false,
            interception_events: false,
            lsp: None,
            python_interpreter: None,
            web: zut_web::WebConfig::default(),
            jail: zut_tools::JailSwitch::default(),
            long_session: Default::default(),
            orchestrate: false,
            goals: Default::default(),
            subagents: Default::default(),
            mcp_elicitation: zut_types::ElicitationModes::NONE,
        }
    }
}
