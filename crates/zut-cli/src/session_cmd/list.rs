//! `zut session list`.

use serde_json::json;

use super::Ctx;

/// Prints this project's sessions, newest first.
pub fn run(ctx: &Ctx, all: bool, json: bool) -> Result<(), String> {
    let sessions = zut_session::list(&ctx.dir(), all);
    if json {
        for s in &sessions {
            let line = json!({
                "id": s.id,
                "title": s.title,
                "started": s.started,
                "messages": s.message_count,
                "path": s.path.display().to_string(),
                "parent": s.parent,
                "hidden": s.hidden,
            });
            crate::stdio::line(&line.to_string());
        }
        return Ok(());
    }
    if sessions.is_empty() {
        crate::errln!("no sessions for {}", ctx.cwd.display());
        return Ok(());
    }
    let mut out = String::new();
    for s in &sessions {
        let started = s.started.replace('T', " ");
        let started = started.get(..16).unwrap_or(&started);
        let title = if s.title.is_empty() {
            "(untitled)"
        } else {
            &s.title
        };
        let branch = if s.parent.is_empty() { "" } else { " (branch)" };
        out.push_str(&format!(
            "{}  {started}  {:>4} msgs  {title}{branch}\n",
            s.id, s.message_count
        ));
    }
    crate::stdio::line(out.trim_end());
    Ok(())
}
