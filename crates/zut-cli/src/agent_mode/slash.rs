//! Slash commands outside the interactive mode (`zut -p "/hello"`),
//! through the conversation controller.

use zut_agent::controller::{CommandOutcome, JobHandle};
use zut_agent::Controller;

use crate::args::Mode;

/// Runs `/name args`: `Ok(Some(job))` when it queued a job (a `prompt`
/// action, `/compact`), `Ok(None)` when it finished without one (display,
/// noop), `Err` with the text to print otherwise.
pub async fn run(
    ctrl: &Controller,
    name: &str,
    args: &str,
    mode: Mode,
) -> Result<Option<JobHandle>, String> {
    if !name.eq_ignore_ascii_case("compact")
        && zut_agent::commands::find(name).is_some_and(|c| !c.headless)
    {
        return Err(format!("/{name} needs the interactive mode"));
    }
    let label = format!("/{name}");
    match ctrl.command(name, args, None).await? {
        CommandOutcome::Queued(job) => Ok(Some(job)),
        CommandOutcome::Display { text, .. } => {
            // JSON mode has it as an `ext_display` event already.
            if mode != Mode::Json {
                crate::stdio::line(&text);
            }
            Ok(None)
        }
        CommandOutcome::Insert { extension, .. } => Err(format!(
            "{label} ({extension}) wants to insert text into the editor, which needs the interactive mode"
        )),
        CommandOutcome::OpenPanel { extension, .. } => Err(format!(
            "{label} ({extension}) wants to open a panel, which needs the interactive mode"
        )),
        CommandOutcome::Done(text) => {
            if mode != Mode::Json {
                crate::stdio::line(&text);
            }
            Ok(None)
        }
        CommandOutcome::Noop => Ok(None),
    }
}
