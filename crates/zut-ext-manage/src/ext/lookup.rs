//! Finding an installed extension by name for `remove`, `enable` and
//! `disable` (cli.md §2.4): the directory name first (project scope, then
//! global), then the manifest name (same order).

use std::path::{Path, PathBuf};

use zut_ext_host::discovery::scan_scope;
use zut_ext_host::manifest::{Manifest, MANIFEST_FILE};

use super::guard::check_plain_name;
use super::ExtContext;

/// Resolves `name` to an extension directory that holds an
/// `extension.json`. Symlinked directories are ignored, like discovery.
pub fn find(ctx: &ExtContext, name: &str) -> anyhow::Result<PathBuf> {
    check_plain_name(name)?;
    let scopes = [ctx.project_dir(), ctx.global_dir()];
    for scope in &scopes {
        let dir = scope.join(name);
        if is_extension_dir(&dir) {
            return Ok(dir);
        }
    }
    for scope in &scopes {
        for dir in scan_scope(scope, true) {
            if Manifest::read(&dir).is_ok_and(|m| m.name == name) {
                return Ok(dir);
            }
        }
    }
    anyhow::bail!("extension {name:?} not found")
}

/// A real directory (not a symlink) with a manifest file.
fn is_extension_dir(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) && dir.join(MANIFEST_FILE).is_file()
}
