//! `zut ext list` (cli.md §2.1): project scope first, then global; one row
//! per directory with a readable, valid-JSON `extension.json`.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use zut_ext_host::discovery::scan_scope;
use zut_ext_host::manifest::MANIFEST_FILE;

use super::ExtContext;

/// The manifest fields `list` shows; other keys (and their types) are
/// ignored, like the Go implementation.
#[derive(Debug, Default, Deserialize)]
struct ListManifest {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    enabled: Option<bool>,
}

/// One printed row.
#[derive(Debug)]
struct Row {
    scope: &'static str,
    manifest: ListManifest,
    dir: PathBuf,
}

/// Runs `zut ext list`.
pub fn run(ctx: &ExtContext) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for (scope, dir) in [("project", ctx.project_dir()), ("global", ctx.global_dir())] {
        rows.extend(scan(scope, &dir));
    }
    if rows.is_empty() {
        crate::errln!("no extensions installed");
        crate::errln!("see docs/extensions.md to write your own, or `zut ext install <path|url>`");
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    write_table(&mut out, &rows)?;
    out.flush()?;
    // The table stays the Go original's; how each extension is confined
    // goes to stderr.
    for line in confinement_lines(&rows) {
        crate::errln!("{line}");
    }
    Ok(())
}

/// `sandbox: unconfined: a, b` / `sandbox: confined: c` / `sandbox:
/// invalid permissions (not started): d`.
fn confinement_lines(rows: &[Row]) -> Vec<String> {
    let mut groups: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
    for r in rows {
        let label = match zut_ext_host::Manifest::read(&r.dir) {
            Ok(m) => match zut_ext_host::Confinement::of(&m, false) {
                zut_ext_host::Confinement::Invalid(_) => "invalid permissions (not started)",
                zut_ext_host::Confinement::Declared(_) => "confined",
                _ => "unconfined",
            },
            Err(_) => continue,
        };
        groups
            .entry(label)
            .or_default()
            .push(dash(&r.manifest.name).to_string());
    }
    groups
        .into_iter()
        .map(|(label, names)| format!("sandbox: {label}: {}", names.join(", ")))
        .collect()
}

/// Rows of one scope directory, in directory-name order.
fn scan(scope: &'static str, scope_dir: &Path) -> Vec<Row> {
    scan_scope(scope_dir, false)
        .into_iter()
        .filter_map(|dir| {
            let text = std::fs::read_to_string(dir.join(MANIFEST_FILE)).ok()?;
            let manifest: ListManifest = serde_json::from_str(&text).ok()?;
            Some(Row {
                scope,
                manifest,
                dir,
            })
        })
        .collect()
}

fn dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

/// Columns padded to 12, 20, 10, 8, 10 (two spaces apart, like Go), then
/// `dir` padded to the widest directory, then `description` unpadded.
fn write_table(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    let dirs: Vec<String> = rows.iter().map(|r| r.dir.display().to_string()).collect();
    let dir_w = dirs
        .iter()
        .map(|d| d.chars().count())
        .max()
        .unwrap_or(0)
        .max(3);
    let line = |out: &mut dyn Write, c: [&str; 7]| -> std::io::Result<()> {
        writeln!(
            out,
            "{:<12}  {:<20}  {:<10}  {:<8}  {:<10}  {:<dir_w$}  {}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6]
        )
    };
    line(
        out,
        [
            "scope",
            "name",
            "version",
            "enabled",
            "language",
            "dir",
            "description",
        ],
    )?;
    for (r, dir) in rows.iter().zip(&dirs) {
        let m = &r.manifest;
        let enabled = if m.enabled == Some(false) {
            "no"
        } else {
            "yes"
        };
        line(
            out,
            [
                r.scope,
                &m.name,
                dash(&m.version),
                enabled,
                dash(&m.language),
                dir,
                dash(&m.description),
            ],
        )?;
    }
    Ok(())
}
