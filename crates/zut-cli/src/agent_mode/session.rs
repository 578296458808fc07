//! The session the flags ask for: which file (`-c`, `-r <id>`,
//! `--session <path>`, a new one, or none with `--no-session`);
//! `zut_agent::conversation::open` opens it before extensions start and
//! before the model is called.

use std::path::Path;

use zut_session::Choice;

use crate::args::GlobalArgs;

/// The session the flags ask for; `None` with `--no-session`. Two session
/// flags at once are an error; `-r` without an id lists the candidates.
pub fn choice(args: &GlobalArgs, zut_home: &Path, cwd: &Path) -> Result<Option<Choice>, String> {
    let mut picked = Vec::new();
    if args.no_session {
        picked.push("--no-session");
    }
    if args.session.is_some() {
        picked.push("--session");
    }
    if args.continue_session {
        picked.push("--continue");
    }
    if args.resume.is_some() {
        picked.push("--resume");
    }
    if picked.len() > 1 {
        return Err(format!(
            "{} cannot be used together; choose one",
            picked.join(" and ")
        ));
    }
    if args.no_session {
        return Ok(None);
    }
    if let Some(path) = &args.session {
        let here = std::env::current_dir().map_err(|e| format!("working directory: {e}"))?;
        return Ok(Some(Choice::Path(here.join(path))));
    }
    if args.continue_session {
        return Ok(Some(Choice::Continue));
    }
    match args.resume.as_deref() {
        Some("") => Err(resume_candidates(zut_home, cwd)),
        Some(id) => Ok(Some(Choice::Resume(id.to_string()))),
        None => Ok(Some(Choice::New)),
    }
}

/// The message for `-r` without an id outside the interactive mode: the
/// sessions of this directory, newest first.
fn resume_candidates(zut_home: &Path, cwd: &Path) -> String {
    let dir = zut_session::sessions_dir(zut_home, &cwd.display().to_string());
    let list = zut_session::list(&dir, false);
    if list.is_empty() {
        return format!(
            "--resume without an id needs the interactive picker, and {} has no sessions",
            cwd.display()
        );
    }
    let mut text = String::from(
        "--resume without an id needs the interactive picker; pass one of these ids (newest first):",
    );
    for s in list.iter().take(20) {
        text.push_str(&format!(
            "\n  {}  {}  {} messages  {}",
            s.id,
            s.started,
            s.message_count,
            if s.title.is_empty() {
                "(untitled)"
            } else {
                &s.title
            }
        ));
    }
    if list.len() > 20 {
        text.push_str(&format!(
            "\n  … and {} more (zut session list)",
            list.len() - 20
        ));
    }
    text
}
