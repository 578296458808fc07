//! Extension slash commands outside the interactive mode (`zut -p "/hello"`).

use tokio_util::sync::CancellationToken;
use zut_agent::{Agent, AgentEvent, PromptOutcome};
use zut_ext_host::ExtensionHost;
use zut_providers::Part;

use super::output::Output;
use super::setup::BUILTIN_COMMANDS;
use crate::args::Mode;

/// What a slash command led to.
pub enum SlashOutcome {
    /// The command's `prompt` action ran a turn.
    Prompt(PromptOutcome),
    /// Finished without a turn (display/noop); exit 0.
    Done,
    /// Failed with this message; exit 1.
    Failed(String),
}

/// Runs `/name args`.
pub async fn run(
    name: &str,
    args: &str,
    host: &ExtensionHost,
    agent: &mut Agent,
    out: &Output,
    mode: Mode,
    cancel: &CancellationToken,
) -> SlashOutcome {
    if BUILTIN_COMMANDS.contains(&name) {
        return SlashOutcome::Failed(format!("/{name} needs the interactive mode"));
    }
    if !host.has_command(name) {
        let known: Vec<String> = host
            .commands()
            .into_iter()
            .map(|c| format!("/{}", c.name))
            .collect();
        let hint = if known.is_empty() {
            "no extension commands are loaded".to_string()
        } else {
            format!("extension commands: {}", known.join(", "))
        };
        return SlashOutcome::Failed(format!("unknown command /{name} ({hint})"));
    }
    // Ctrl+C / SIGTERM while the extension works on the command ends the
    // run at once; the late reply is then ignored as an unknown id.
    let reply = tokio::select! {
        r = host.invoke_command(name, args) => match r {
            Ok(r) => r,
            Err(e) => return SlashOutcome::Failed(e.to_string()),
        },
        () = cancel.cancelled() => return SlashOutcome::Prompt(PromptOutcome::Aborted),
    };
    let r = &reply.response;
    let label = format!("/{} ({})", reply.command, reply.extension);
    if !r.error.is_empty() {
        return SlashOutcome::Failed(format!("{label}: {}", r.error));
    }
    match r.action.as_str() {
        "prompt" => {
            let mut sink = |ev: AgentEvent| out.agent_event(&ev);
            let text = r.prompt.clone();
            SlashOutcome::Prompt(
                agent
                    .prompt(vec![Part::Text { text }], cancel, &mut sink)
                    .await,
            )
        }
        "display" => {
            if mode == Mode::Json {
                out.json_line(
                    &AgentEvent::ExtDisplay {
                        extension: reply.extension.clone(),
                        text: r.display.clone(),
                    }
                    .to_json(),
                );
            } else {
                println!("{}", r.display);
            }
            SlashOutcome::Done
        }
        "insert" => SlashOutcome::Failed(format!(
            "{label} wants to insert text into the editor, which needs the interactive mode"
        )),
        "open_panel" => SlashOutcome::Failed(format!(
            "{label} wants to open a panel, which needs the interactive mode"
        )),
        "" | "noop" => SlashOutcome::Done,
        other => SlashOutcome::Failed(format!("{label}: unknown action {other:?}")),
    }
}
