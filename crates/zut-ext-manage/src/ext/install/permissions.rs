//! Showing an extension's declared permissions before installing it, and
//! asking in a terminal (`--yes` skips the question; without a terminal
//! the install proceeds, as scripts expect).

use std::io::{BufRead, IsTerminal, Write};

use anyhow::bail;
use zut_ext_host::manifest::Manifest;

/// Prints what `new` may do (and how that differs from `old`, the
/// installed version), then asks when stdin and stderr are terminals and
/// `yes` is not set. An invalid `permissions` is an error.
pub fn confirm(new: &Manifest, old: Option<&Manifest>, yes: bool) -> anyhow::Result<()> {
    let declared = new
        .permissions()
        .map_err(|e| anyhow::anyhow!("{}: {e}", new.name))?;
    for line in lines(new, old, declared.as_ref()) {
        crate::errln!("{line}");
    }
    if yes || !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return Ok(());
    }
    eprint!("install {}? [y/N] ", new.name);
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        bail!("install cancelled; nothing was installed")
    }
}

/// The lines [`confirm`] prints.
pub fn lines(
    new: &Manifest,
    old: Option<&Manifest>,
    declared: Option<&zut_sandbox::Declared>,
) -> Vec<String> {
    let mut out = Vec::new();
    match declared {
        Some(d) => {
            out.push(format!("{} declares these permissions:", new.name));
            out.extend(d.describe().into_iter().map(|l| format!("  {l}")));
        }
        None => out.push(format!(
            "{} declares no permissions: it will run unconfined, with your full user \
             privileges (unless config.json says \"extension_sandbox\": \"strict\")",
            new.name
        )),
    }
    if let Some(old) = old {
        let before = old.permissions().ok().flatten();
        let diff = zut_sandbox::Declared::diff(before.as_ref(), declared);
        if diff.is_empty() {
            out.push("permissions unchanged from the installed version".into());
        } else {
            out.push("changes from the installed version:".into());
            out.extend(diff.into_iter().map(|l| format!("  {l}")));
        }
    }
    out
}
