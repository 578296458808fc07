//! `zut ext new <name> [--lang rust|python|typescript|go|shell] [--dir <path>]`:
//! writes a working extension directory — manifest, source with a command
//! and a tool, a test in the language's own runner, a README — that
//! `zut ext test` passes at once (after the build step for Rust and Go).
//!
//! | file | concern |
//! |---|---|
//! | `args.rs` | command line, name rules |
//! | `templates.rs` | the files of each language (sources in `templates/`, SDKs vendored from `sdk/`) |

mod args;
mod templates;

pub(crate) use args::Lang;
pub(crate) use templates::build_step;

use std::path::Path;

use super::ExtContext;

/// Runs `zut ext new <args>`; returns the exit status.
pub fn run(ctx: &ExtContext, argv: &[String]) -> anyhow::Result<i32> {
    let a = match args::parse(argv) {
        Ok(a) => a,
        Err(e) => {
            crate::errln!("zut ext new: {e}");
            return Ok(2);
        }
    };
    if a.help {
        crate::errln!("{}", args::USAGE);
        return Ok(0);
    }
    let dir = match &a.dir {
        Some(d) if d.is_absolute() => d.clone(),
        Some(d) => ctx.cwd.join(d),
        None => ctx.cwd.join(&a.name),
    };
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        crate::errln!(
            "zut ext new: {} already exists and is not empty; nothing written",
            dir.display()
        );
        return Ok(1);
    }
    let files = templates::files(a.lang, &a.name);
    if let Err(e) = write_all(&dir, &files) {
        crate::errln!("zut ext new: {e:#}");
        return Ok(1);
    }
    let shown = dir
        .strip_prefix(&ctx.cwd)
        .unwrap_or(&dir)
        .display()
        .to_string();
    let shown = if shown.is_empty() {
        ".".to_string()
    } else {
        shown
    };
    crate::stdio::line(&format!(
        "created {} extension {:?} in {shown}",
        a.lang.label(),
        a.name
    ));
    for step in templates::next_steps(a.lang, &a.name, &shown) {
        crate::stdio::line(&format!("  {step}"));
    }
    Ok(0)
}

fn write_all(dir: &Path, files: &[templates::File]) -> anyhow::Result<()> {
    use anyhow::Context as _;
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("create {}", parent.display()))?;
        }
        std::fs::write(&path, &f.contents).with_context(|| format!("write {}", path.display()))?;
        #[cfg(unix)]
        if f.executable {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("chmod {}", path.display()))?;
        }
    }
    Ok(())
}
