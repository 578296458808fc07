//! `zut ext enable <name>` / `zut ext disable <name>` (cli.md §2.5).
//!
//! Recommended behaviour: the manifest keeps its key order and formatting;
//! only the value of the top-level `"enabled"` key changes, or the key is
//! appended as the last member in the file's own style (see
//! [`super::json_edit`]). The file is replaced atomically (temp file in the
//! same directory + rename) and keeps its permission bits.

use std::io::Write;

use anyhow::{bail, Context};
use zut_ext_host::manifest::MANIFEST_FILE;

use super::guard::ensure_scope_child;
use super::{json_edit, lookup, ExtContext};

/// Runs `zut ext enable` (`enabled = true`) or `zut ext disable`.
pub fn run(ctx: &ExtContext, args: &[String], enabled: bool) -> anyhow::Result<()> {
    let verb = if enabled { "enable" } else { "disable" };
    let [name] = args else {
        bail!("usage: zut ext {verb} <name>");
    };
    let dir = lookup::find(ctx, name)?;
    ensure_scope_child(&dir, &[&ctx.project_dir(), &ctx.global_dir()])?;
    let path = dir.join(MANIFEST_FILE);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
    let updated = json_edit::set_top_level_bool(&text, "enabled", enabled)
        .map_err(|e| anyhow::anyhow!("parse manifest: {e}"))?;
    if updated != text {
        let perms = std::fs::metadata(&path)?.permissions();
        let mut tmp = tempfile::Builder::new()
            .prefix(".extension.json.")
            .tempfile_in(&dir)
            .with_context(|| format!("write {}", path.display()))?;
        tmp.write_all(updated.as_bytes())?;
        tmp.as_file().sync_all()?;
        std::fs::set_permissions(tmp.path(), perms)?;
        tmp.persist(&path)
            .map_err(|e| anyhow::anyhow!("write {}: {}", path.display(), e.error))?;
    }
    crate::errln!("{}d {name}", verb);
    Ok(())
}
