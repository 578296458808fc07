//! Turns the global flags into the pieces of a run: home, cwd, provider,
//! enabled built-in tools, host and agent configuration.

use anyhow::{anyhow, bail, Context};
use zut_agent::AgentConfig;
use zut_ext_host::{HostConfig, ZutHome};
use zut_providers::{Provider, Reasoning};

use crate::args::GlobalArgs;

/// Everything a conversation needs (`zut_agent::conversation::Setup`).
pub type RunSetup = zut_agent::conversation::Setup;

/// Builds the run from the flags and the environment.
pub fn build(args: &GlobalArgs) -> anyhow::Result<RunSetup> {
    let here = std::env::current_dir().context("working directory")?;
    let cwd = match &args.cwd {
        Some(p) => here.join(p),
        None => here.clone(),
    };
    let cwd = cwd
        .canonicalize()
        .map_err(|e| anyhow!("--cwd {}: {e}", cwd.display()))?;
    if !cwd.is_dir() {
        bail!("--cwd {}: not a directory", cwd.display());
    }
    let home = zut_home(&here);
    parse_reasoning(args.reasoning.as_deref())?;
    // Flags, environment, config.json, models.json and auth.json
    // (crate::settings, docs/config.md).
    let settings = crate::settings::load(args, home.root())?;
    for w in &settings.warnings {
        crate::errln!("zut: warning: {w}");
    }
    // Live model discovery, in the background (never waited for).
    zut_models::discovery::spawn(home.root().to_path_buf(), settings.clone());
    let reasoning = settings.reasoning.value;
    let provider = settings
        .provider
        .clone()
        .map_err(|e| e.to_string())
        .and_then(|c| Provider::new(c).map_err(|e| e.to_string()));
    let mut builtins = crate::web_setup::with_web(enabled_builtins(args)?, args, &settings);
    // config.json `lsp_enabled: false` works as `--no-lsp`.
    let no_lsp = args.no_lsp
        || settings
            .config_file
            .as_ref()
            .is_some_and(|c| c.lsp_enabled == Some(false));
    if no_lsp {
        builtins.retain(|n| n != "lsp");
    }
    if args.orchestrate {
        // The orchestrating parent delegates with `subagent` and keeps the
        // web tools (zut_agent::subagent::orchestrate); its children get
        // the other tools.
        if args.no_tools {
            bail!("--orchestrate needs tools: it cannot be used with --no-tools");
        }
        let extra = zut_agent::web::TOOL_NAMES.iter().map(|s| s.to_string());
        for name in extra.chain(["subagent".to_string()]) {
            if !builtins.contains(&name) {
                builtins.push(name);
            }
        }
    }

    let mut host = HostConfig::new(home.clone(), cwd.clone());
    host.ext_paths = args.ext.iter().map(|p| here.join(p)).collect();
    host.no_ext = args.no_ext;
    // hello_ack's provider/model: the resolved ones, else what was asked.
    let (name, model) = match &provider {
        Ok(p) => (p.name().to_string(), p.model().to_string()),
        Err(_) => (
            settings.provider_name.value.clone(),
            settings.model.value.clone(),
        ),
    };
    host.provider = name.clone();
    host.model = model.clone();
    host.builtin_tools = builtins.clone();
    if !args.no_skill {
        // The `skill` tool is an active built-in: extensions cannot claim it.
        host.builtin_tools
            .push(zut_agent::skills::SKILL_TOOL.to_string());
    }
    host.builtin_commands = crate::builtin_names::commands();
    host.persist_state = false;

    let mut agent = AgentConfig::new(cwd.clone(), home.root());
    // Language servers (crates/zut-lsp): for the `lsp` tool and the
    // diagnostics after `write`/`edit`; nothing starts until a file needs
    // one, except the `runOnStartup` linters (below, once the jail is known).
    let mut lsp_manager = None;
    if !no_lsp
        && builtins
            .iter()
            .any(|n| matches!(n.as_str(), "lsp" | "write" | "edit"))
    {
        let manager = zut_lsp::LspManager::new(cwd.clone(), Some(home.root()), Default::default());
        agent.lsp = Some(manager.handle());
        lsp_manager = Some(manager);
    }
    agent.builtin_tools = builtins;
    agent.web = crate::web_setup::web_config(&settings, home.root())?;
    agent.reasoning = reasoning;
    agent.skills = !args.no_skill;
    agent.python_interpreter = settings
        .config_file
        .as_ref()
        .and_then(|c| c.python_interpreter.as_deref())
        .map(std::path::PathBuf::from);
    // The user roots are scanned while the rest of start-up runs; the
    // first prompt takes the result.
    zut_agent::skills::prefetch(&agent);
    if let Some(n) = args.max_steps {
        if n == 0 {
            bail!("--max-steps must be at least 1");
        }
        agent.max_steps = n;
    }
    agent.long_session.repetition_guard = !args.no_repetition_guard;
    if let Some(g) = settings.config_file.as_ref().map(|c| &c.goals) {
        if let Some(t) = g.max_token_budget {
            agent.goals.tokens = t;
        }
        if let Some(m) = g.max_minutes {
            agent.goals.time = std::time::Duration::from_secs(m.saturating_mul(60));
        }
    }
    if let Some(s) = settings.config_file.as_ref().map(|c| &c.subagents) {
        agent.subagents = zut_agent::subagent::runtime::Limits {
            max_concurrent: s
                .max_concurrent
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            timeout: s.timeout_secs.map(std::time::Duration::from_secs),
            queue_timeout: s.queue_timeout,
            allowed_tools: s.allowed_tools.clone(),
            allowed_roots: s.allowed_roots.as_ref().map(|roots| {
                roots
                    .iter()
                    .map(|r| crate::sandbox_setup::config_path(r, &cwd))
                    .collect()
            }),
        };
    }
    agent.system.system_prompt = args.system_prompt.clone();
    agent.system.append = args.append_system_prompt.clone();
    if args.orchestrate {
        agent.orchestrate = true;
        let manager = zut_agent::subagent::orchestrate::ORCHESTRATOR_PROMPT;
        agent.system.append.push(manager.to_string());
    }
    agent.system.no_context_files = args.no_context_files;
    if let Some(n) = args.context_window {
        if n < 1024 {
            bail!("--context-window must be at least 1024 tokens");
        }
        agent.compaction.context_window = Some(n);
    } else if let Some(n) = settings.context_window.value {
        // models.json `contextWindow` of the selected model.
        agent.compaction.context_window = Some(n);
    }
    if let Some(n) = settings.max_output.value {
        // models.json `maxTokens` of the selected model.
        agent.max_tokens = n.max(1);
    }
    crate::sandbox_setup::apply(args, &settings, &cwd, home.root(), &mut host, &mut agent);
    if let Some(manager) = &lsp_manager {
        // Inside the session's jail when it starts jailed; a jail that
        // cannot be built runs nothing (the tools report why).
        if let Ok(jail) = agent.jail.current() {
            manager.lint_on_startup(jail);
        }
    }
    if let Some(share) = &args.auto_compact {
        let share: f64 = share.trim().parse().unwrap_or(f64::NAN);
        if !(0.0..=1.0).contains(&share) {
            bail!("--auto-compact must be a share between 0 and 1 (0 disables)");
        }
        agent.compaction.auto_share = share;
    } else if let Some(share) = settings.auto_compact.value {
        // config.json `auto_compact_threshold` (percent).
        agent.compaction.auto_share = share;
    }
    Ok(RunSetup {
        provider,
        provider_name: name,
        model,
        host,
        agent,
        files: None,
        // The user's and the project's MCP servers, in every mode.
        mcp: zut_agent::conversation::McpServers::Configured,
    })
}

/// `$ZUT_HOME` (relative to `here`, the process's directory, when relative).
fn zut_home(here: &std::path::Path) -> ZutHome {
    let home = ZutHome::from_env();
    if home.root().is_absolute() {
        home
    } else {
        ZutHome::new(here.join(home.root()))
    }
}

/// Starts the skill prefetch before the flags are parsed, when `argv`
/// (the global flags, without the program name) asks for a
/// non-interactive run that [`build`] will prefetch for anyway: the scan
/// then overlaps flag parsing, the configuration files and provider set-up
/// instead of starting after them. It assumes the working directory and
/// `$ZUT_HOME` of [`build`] without `--cwd`; nothing when a flag could
/// change that or skip the run (`--cwd`, `--no-skill`, help, version,
/// `--list-models`). A wrong guess is only wasted work: the first prompt
/// takes a prefetched scan only when it was made for its own options.
pub fn prefetch_early(argv: &[String]) {
    let flags = argv.iter().take_while(|a| a.as_str() != "--");
    let mut run = false;
    for a in flags {
        match a.as_str() {
            "-p" | "--print" | "--json" | "--stream" => run = true,
            "--no-skill" | "--no-skills" | "-h" | "--help" | "-V" | "--version"
            | "--list-models" => return,
            s if s.starts_with("--cwd") || s.starts_with("--mode") => return,
            _ => {}
        }
    }
    if !run {
        return;
    }
    let Ok(here) = std::env::current_dir() else {
        return;
    };
    let Ok(cwd) = here.canonicalize() else {
        return;
    };
    zut_agent::skills::prefetch_early(&cwd, zut_home(&here).root());
}

/// `--reasoning` values: zut's seven levels and their aliases
/// ([`zut_providers::parse_reasoning`]); absent means off.
fn parse_reasoning(v: Option<&str>) -> anyhow::Result<Reasoning> {
    match v {
        None => Ok(Reasoning::Off),
        Some(v) => zut_providers::parse_reasoning(v).map_err(|_| {
            anyhow!("--reasoning {v:?}: expected off, minimum, low, medium, high, xhigh or max")
        }),
    }
}

/// `--tools a,b` (names checked) / `--no-tools` / all built-ins.
fn enabled_builtins(args: &GlobalArgs) -> anyhow::Result<Vec<String>> {
    if args.no_tools {
        return Ok(Vec::new());
    }
    let Some(list) = &args.tools else {
        return Ok(zut_tools::BUILTIN_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect());
    };
    let mut out = Vec::new();
    for name in list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if name.starts_with("web_") {
            continue; // the web tools come as a set: crate::web_setup
        }
        // `subagent` (or the Go original's `subagent:<action>`, which here
        // selects the whole tool): offered headless only when named.
        if name == "subagent" || name.starts_with("subagent:") {
            if !out.iter().any(|n: &String| n == "subagent") {
                out.push("subagent".to_string());
            }
            continue;
        }
        // The seed-era name of `plan` (zut_agent::plan).
        let name = if name == zut_agent::plan::PLAN_ALIAS {
            zut_agent::plan::PLAN_TOOL
        } else {
            name
        };
        if !zut_tools::BUILTIN_NAMES.contains(&name) {
            if name == "skill" {
                continue; // on unless --no-skill
            }
            if crate::builtin_names::GO_TOOLS.contains(&name) {
                crate::errln!(
                    "zut: warning: --tools: {name:?} is not available in zut yet; ignored"
                );
                continue;
            }
            bail!(
                "--tools: unknown built-in tool {name:?} (built-ins: {})",
                zut_tools::BUILTIN_NAMES.join(", ")
            );
        }
        if !out.iter().any(|n: &String| n == name) {
            out.push(name.to_string());
        }
    }
    Ok(out)
}
