//! The jail as the tools see it: path checks for `read`, `write`, `edit`
//! and `grep`, and denial explanations for `bash` (and the `python` tool:
//! it runs its interpreter through [`zut_process::spawn`] with
//! [`ToolContext::jail`] as the sandbox, then calls [`annotate`]).
//!
//! The path checks are the same rules the kernel applies to a jailed
//! `bash` ([`zut_sandbox::Policy::check_read`], `check_write`); they run in
//! zut's own process, so they are checks, not confinement: a path swapped
//! for a symlink between the check and the open is not caught (the kernel
//! catches it for `bash`).

use std::path::Path;

use crate::{ToolContent, ToolContext, ToolOutput};

/// `Ok` when `path` may be read (or when not jailed); otherwise the error
/// output naming the path and the rule.
pub fn check_read(ctx: &ToolContext, path: &Path) -> Result<(), ToolOutput> {
    match &ctx.jail {
        Some(j) => j.policy().check_read(path).map_err(refusal),
        None => Ok(()),
    }
}

/// `Ok` when `path` may be written (or when not jailed); otherwise the
/// error output naming the path and the rule.
pub fn check_write(ctx: &ToolContext, path: &Path) -> Result<(), ToolOutput> {
    match &ctx.jail {
        Some(j) => j.policy().check_write(path).map_err(refusal),
        None => Ok(()),
    }
}

fn refusal(d: zut_sandbox::Denied) -> ToolOutput {
    ToolOutput::error(format!(
        "{d}. The jail confines tools to the session directory; ask the user to /unjail if this \
         path is needed."
    ))
}

/// Appends to a jailed command's output what the jail refused (paths and
/// the rule, network, system calls), the proxy's refusals, and — once per
/// jail — what this machine could not enforce. The program's own output
/// is kept. No-op when not jailed.
pub fn annotate(ctx: &ToolContext, out: &mut ToolOutput) {
    let Some(j) = &ctx.jail else {
        return;
    };
    let mut notes: Vec<String> = Vec::new();
    let text: String = out
        .content
        .iter()
        .filter_map(|c| match c {
            ToolContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(e) = zut_sandbox::explain(&text, j.policy(), &ctx.cwd) {
        notes.push(e);
    }
    if let Some(p) = j.proxy() {
        notes.extend(
            p.take_denials()
                .into_iter()
                .map(|d| format!("[sandbox] {d}")),
        );
    }
    if let Some(n) = j.take_notes_once() {
        notes.push(format!("[sandbox] not enforced here: {n}"));
    }
    if notes.is_empty() {
        return;
    }
    if let Some(ToolContent::Text(t)) = out.content.last_mut() {
        t.push_str("\n\n");
        t.push_str(&notes.join("\n"));
    } else {
        out.content.push(ToolContent::Text(notes.join("\n")));
    }
}
