//! `zut ext install [--build=go|cargo] <path|git-url>` (cli.md §2.3).
//!
//! The destination is always `$ZUT_HOME/extensions/<manifest name>`. Work
//! happens in a hidden staging directory `.zut-extension-install-*` inside
//! `$ZUT_HOME/extensions` (created with `tempfile`, removed on every exit
//! path, including Ctrl+C / SIGTERM which are caught for the duration of
//! the install); the finished copy is moved into place with one rename.
//! Nothing is ever left at the destination on failure.

mod args;
mod build;
mod copy;
mod git;
mod manifest_check;
pub mod permissions;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use zut_ext_host::manifest::Manifest;

use super::guard::ensure_new_scope_child;
use super::ExtContext;
use crate::interrupt::Interrupt;
use build::BuildError;
use git::CloneError;
use manifest_check::{read_install_manifest, required_paths, validate_executable};

/// Prefix of the staging directories (hidden from discovery by the `.`).
pub const STAGING_PREFIX: &str = ".zut-extension-install-";
const INTERRUPTED: &str = "install interrupted; nothing was installed";

/// Runs `zut ext install`.
pub fn run(ctx: &ExtContext, raw: &[String]) -> anyhow::Result<()> {
    let opts = args::parse(raw).map_err(|e| anyhow!(e))?;
    let ext_dir = ctx.global_dir();
    std::fs::create_dir_all(&ext_dir).with_context(|| format!("create {}", ext_dir.display()))?;
    let interrupt = Interrupt::install().context("install signal handler")?;
    if args::is_git_url(&opts.source) {
        if let Some(b) = opts.builder {
            bail!(
                "--build={b} is currently supported only for local extension paths; \
                 clone the extension locally and build it there"
            );
        }
        return install_git(&opts.source, &ext_dir, &interrupt, opts.yes);
    }
    install_local(ctx, &opts, &ext_dir, &interrupt)
}

fn install_local(
    ctx: &ExtContext,
    opts: &args::InstallArgs,
    ext_dir: &Path,
    interrupt: &Interrupt,
) -> anyhow::Result<()> {
    let src = &opts.source;
    let meta = std::fs::metadata(src).map_err(|e| anyhow!("stat {src}: {e}"))?;
    if !meta.is_dir() {
        bail!("not a directory: {src}");
    }
    let abs_src =
        std::fs::canonicalize(ctx.cwd.join(src)).map_err(|e| anyhow!("resolve {src}: {e}"))?;
    let manifest = read_install_manifest(&abs_src).map_err(|e| anyhow!("source extension: {e}"))?;
    let dest = ext_dir.join(&manifest.name);
    ensure_absent(&dest)?;

    let staging = create_staging(ext_dir)?;
    let staged = staging.path().join("extension");
    copy::copy_extension(
        &abs_src,
        &staged,
        &required_paths(&manifest, &abs_src),
        interrupt,
    )
    .map_err(|e| match e {
        copy::CopyError::Interrupted => anyhow!(INTERRUPTED),
        other => anyhow!("copy extension: {other}"),
    })?;
    if let Some(builder) = opts.builder {
        build::build(
            builder,
            &manifest,
            &abs_src,
            &staged,
            staging.path(),
            interrupt,
        )
        .map_err(|e| match e {
            BuildError::Interrupted => anyhow!(INTERRUPTED),
            BuildError::Failed(e) => e,
        })?;
    }
    validate_executable(&staged, &manifest).map_err(|e| anyhow!(e))?;
    permissions::confirm(&manifest, None, opts.yes)?;
    finalize(&staged, &dest, ext_dir, interrupt)?;
    remove_staging(staging);
    Ok(())
}

fn install_git(url: &str, ext_dir: &Path, interrupt: &Interrupt, yes: bool) -> anyhow::Result<()> {
    let staging = create_staging(ext_dir)?;
    let cloned = staging.path().join("extension");
    git::clone(url, &cloned, interrupt).map_err(|e| match e {
        CloneError::Interrupted => anyhow!(INTERRUPTED),
        CloneError::Failed(msg) => anyhow!(msg),
    })?;
    let manifest: Manifest =
        read_install_manifest(&cloned).map_err(|e| anyhow!("cloned extension: {e}"))?;
    let dest = ext_dir.join(&manifest.name);
    ensure_absent(&dest)?;
    validate_executable(&cloned, &manifest).map_err(|e| anyhow!(e))?;
    permissions::confirm(&manifest, None, yes)?;
    finalize(&cloned, &dest, ext_dir, interrupt)?;
    remove_staging(staging);
    Ok(())
}

fn create_staging(ext_dir: &Path) -> anyhow::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(STAGING_PREFIX)
        .tempdir_in(ext_dir)
        .map_err(|e| anyhow!("create install staging directory: {e}"))
}

/// Removes the staging directory after a successful install. The install
/// already happened, so a failure here is a warning, not an error. (On
/// error paths the `TempDir` guard removes it when dropped.)
fn remove_staging(staging: tempfile::TempDir) {
    let path = staging.path().to_path_buf();
    if let Err(e) = staging.close() {
        crate::errln!("zut: warning: could not remove {}: {e}", path.display());
    }
}

fn ensure_absent(dest: &Path) -> anyhow::Result<()> {
    if std::fs::symlink_metadata(dest).is_ok() {
        bail!(
            "destination {} already exists; remove it first",
            dest.display()
        );
    }
    Ok(())
}

/// Moves the staged extension into place (one rename) and reports it.
fn finalize(
    staged: &Path,
    dest: &PathBuf,
    ext_dir: &Path,
    interrupt: &Interrupt,
) -> anyhow::Result<()> {
    if interrupt.fired() {
        bail!(INTERRUPTED);
    }
    ensure_new_scope_child(dest, ext_dir)?;
    // Re-check right before the rename: on Unix rename(2) would silently
    // replace an empty directory that appeared meanwhile.
    ensure_absent(dest)?;
    std::fs::rename(staged, dest).map_err(|e| anyhow!("finalize install: {e}"))?;
    crate::errln!("installed {}", dest.display());
    Ok(())
}
