//! Finding extension directories: `--ext` paths, project scope, global
//! scope, shadowing and the deterministic load order.

use std::path::{Path, PathBuf};

use crate::home::{project_extensions_dir, ZutHome};
use crate::manifest::{Manifest, ManifestError, MANIFEST_FILE};

/// Where an extension directory was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Given with `--ext` / `-e`.
    Cli,
    /// `<cwd>/.zut/extensions/`.
    Project,
    /// `$ZUT_HOME/extensions/`.
    Global,
}

impl Scope {
    /// `cli`, `project` or `global`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cli => "cli",
            Self::Project => "project",
            Self::Global => "global",
        }
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One extension directory to consider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Absolute extension directory.
    pub dir: PathBuf,
    /// Where it was found.
    pub scope: Scope,
}

/// Inputs of discovery.
#[derive(Debug, Clone)]
pub struct DiscoveryOptions {
    /// Project directory (made absolute by the caller).
    pub cwd: PathBuf,
    /// `$ZUT_HOME`.
    pub home: ZutHome,
    /// `--ext` paths, in command-line order, already absolute.
    pub ext_paths: Vec<PathBuf>,
    /// `--no-ext`: skip project and global scopes.
    pub no_ext: bool,
}

/// Result of discovery: candidates in load order, plus the global
/// directories hidden by a project directory of the same name.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// `--ext` paths, then project (sorted), then global (sorted).
    pub candidates: Vec<Candidate>,
    /// Global directories shadowed by a project directory with the same name.
    pub shadowed: Vec<Candidate>,
}

/// Lists the extension directories of one scope directory: real
/// directories only (symlinks are not followed), names starting with `.`
/// skipped, sorted by name. With `need_manifest`, directories without an
/// `extension.json` are skipped too.
pub fn scan_scope(scope_dir: &Path, need_manifest: bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(scope_dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .filter(|p| !need_manifest || p.join(MANIFEST_FILE).is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Runs discovery. Directories without `extension.json` are skipped and
/// shadow nothing.
pub fn discover(opts: &DiscoveryOptions) -> Discovery {
    let mut out = Discovery::default();
    for p in &opts.ext_paths {
        out.candidates.push(Candidate {
            dir: p.clone(),
            scope: Scope::Cli,
        });
    }
    if opts.no_ext {
        return out;
    }
    let project = scan_scope(&project_extensions_dir(&opts.cwd), true);
    let names: Vec<_> = project
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_os_string())
        .collect();
    out.candidates.extend(project.iter().map(|dir| Candidate {
        dir: dir.clone(),
        scope: Scope::Project,
    }));
    for dir in scan_scope(&opts.home.extensions_dir(), true) {
        let c = Candidate {
            dir,
            scope: Scope::Global,
        };
        if c.dir
            .file_name()
            .is_some_and(|n| names.iter().any(|p| p == n))
        {
            out.shadowed.push(c);
        } else {
            out.candidates.push(c);
        }
    }
    out
}

/// What loading decided for one candidate before anything is spawned.
#[derive(Debug, Clone)]
pub enum Planned {
    /// To be started (or registered as theme-only).
    Load(Candidate, Manifest),
    /// `enabled: false`: skipped silently.
    Disabled(Candidate, Manifest),
    /// Another candidate earlier in load order has the same manifest name.
    Duplicate(Candidate, Manifest),
    /// The manifest is missing or invalid.
    Invalid(Candidate, ManifestError),
}

/// Reads every candidate's manifest and applies `enabled` and first-wins
/// manifest-name de-duplication, in load order. Never spawns anything.
pub fn plan(candidates: &[Candidate]) -> Vec<Planned> {
    let mut seen: Vec<String> = Vec::new();
    candidates
        .iter()
        .map(|c| match Manifest::load(&c.dir) {
            Err(e) => Planned::Invalid(c.clone(), e),
            Ok(m) if !m.enabled => Planned::Disabled(c.clone(), m),
            Ok(m) if seen.contains(&m.name) => Planned::Duplicate(c.clone(), m),
            Ok(m) => {
                seen.push(m.name.clone());
                Planned::Load(c.clone(), m)
            }
        })
        .collect()
}
