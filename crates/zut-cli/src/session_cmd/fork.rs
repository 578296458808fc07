//! `zut session fork`.

use zut_session::ForkOptions;

use super::Ctx;

/// Branches a session and prints the new file's path.
pub fn run(ctx: &Ctx, session: &str, at: Option<usize>) -> Result<(), String> {
    let path = ctx.resolve(session)?;
    let parent = zut_session::read(&path).map_err(|e| e.to_string())?;
    let at = at.unwrap_or(parent.messages.len());
    let cwd = if parent.meta.cwd.is_empty() {
        ctx.cwd.display().to_string()
    } else {
        parent.meta.cwd.clone()
    };
    let opts = ForkOptions {
        dir: zut_session::sessions_dir(&ctx.home, &cwd),
        cwd: Some(cwd),
        version: env!("CARGO_PKG_VERSION").to_string(),
        hidden: false,
    };
    let forked = zut_session::fork(&path, at, &opts).map_err(|e| e.to_string())?;
    if forked.fork_point != at {
        crate::errln!(
            "zut session: fork point moved from {at} to {} so the tool calls of message {at} keep their results",
            forked.fork_point
        );
    }
    crate::stdio::line(&forked.path.display().to_string());
    Ok(())
}
