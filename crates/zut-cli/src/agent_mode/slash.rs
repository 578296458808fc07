//! Extension slash commands outside the interactive mode (`zut -p "/hello"`).

use tokio_util::sync::CancellationToken;
use zut_agent::AgentEvent;
use zut_ext_host::ExtensionHost;

use super::output::Output;
use crate::args::Mode;

/// What a slash command led to.
pub enum SlashOutcome {
    /// The command's `prompt` action: run a turn with this text.
    RunPrompt(String),
    /// The run was aborted (Ctrl+C / SIGTERM) while the command ran.
    Aborted,
    /// Finished without a turn (display/noop); exit 0.
    Done,
    /// Failed with this message; exit 1.
    Failed(String),
    /// The built-in `/compact [instructions]`.
    Compact(String),
}

/// Runs `/name args`.
pub async fn run(
    name: &str,
    args: &str,
    host: &ExtensionHost,
    out: &Output,
    mode: Mode,
    cancel: &CancellationToken,
) -> SlashOutcome {
    if name.eq_ignore_ascii_case("compact") {
        return SlashOutcome::Compact(args.to_string());
    }
    if crate::builtin_names::is_command(name) {
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
        () = cancel.cancelled() => return SlashOutcome::Aborted,
    };
    let r = &reply.response;
    let label = format!("/{} ({})", reply.command, reply.extension);
    if !r.error.is_empty() {
        return SlashOutcome::Failed(format!("{label}: {}", r.error));
    }
    match r.action.as_str() {
        "prompt" => SlashOutcome::RunPrompt(r.prompt.clone()),
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
                crate::stdio::line(&r.display);
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
