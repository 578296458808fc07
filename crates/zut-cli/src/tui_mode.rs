//! The interactive mode's wiring: the run is set up as in the other modes
//! (plus what only the TUI offers), and the terminal is handed to the
//! interactive application (`zut-tui-app`).

use std::io::IsTerminal;

use crate::agent_mode::{session, setup};
use crate::args::GlobalArgs;

/// Runs the interactive mode; returns the exit status.
pub fn run(args: &GlobalArgs) -> i32 {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return fail(
            "the interactive mode needs a terminal on stdin and stdout; \
             use -p, --stream or --json (see zut --help)",
        );
    }
    let mut setup = match setup::build(args) {
        Ok(s) => s,
        Err(e) => return fail(&format!("{e:#}")),
    };
    if let Err(e) = &setup.provider {
        return fail(e);
    }
    // `--no-yolo`: every tool call waits for the confirmation dialog; the
    // thinking indicator needs the reasoning deltas; interception blocks
    // are shown with their reasons.
    setup.agent.confirm_tools = args.no_yolo;
    // The TUI shows MCP servers' elicitation forms.
    setup.agent.mcp_elicitation = zut_agent::ElicitationModes::ALL;
    setup.agent.reasoning_events = true;
    setup.agent.interception_events = true;
    // The `subagent` tool is on by default here; headless runs offer it
    // only when `--tools` names it (docs/subagents.md).
    if args.tools.is_none() && !args.no_tools {
        setup.agent.builtin_tools.push("subagent".to_string());
        setup.host.builtin_tools.push("subagent".to_string());
        // `schedule` is interactive only (zut_agent::schedule).
        setup.agent.builtin_tools.push("schedule".to_string());
        setup.host.builtin_tools.push("schedule".to_string());
    }
    let initial_prompt = Some(args.prompt.join(" ")).filter(|p| !p.trim().is_empty());
    let (zut_home, cwd) = (&setup.agent.system.zut_home, &setup.agent.cwd);
    // `-r` without an id: a new session, and the sessions picker at once.
    let pick_session = args.resume.as_deref() == Some("");
    let mut chosen = args.clone();
    if pick_session {
        chosen.resume = None;
    }
    let choice = match session::choice(&chosen, zut_home, cwd) {
        Err(e) => return fail(&e),
        Ok(c) => c,
    };
    // config.json's `terminal_alerts_enabled` and the context window
    // (setup::build already reported any problem with the files).
    let (alerts_enabled, context_window, theme) =
        match crate::settings::load(args, setup.host.home.root()) {
            Ok(s) => (
                s.terminal_alerts_enabled.value,
                s.context_window.value,
                s.theme.value,
            ),
            Err(_) => (true, None, String::new()),
        };
    let launch = zut_tui_app::Launch {
        setup,
        choice,
        pick_session,
        initial_prompt,
        reasoning: args.reasoning.clone().unwrap_or_default(),
        loading_extensions: !args.no_ext || !args.ext.is_empty(),
        alerts_enabled,
        context_window,
        theme,
        restore_model: !crate::args::model_explicit(args),
    };
    zut_tui_app::run(launch).unwrap_or_else(|e| fail(&e))
}

fn fail(msg: &str) -> i32 {
    crate::errln!("zut: {msg}");
    1
}
