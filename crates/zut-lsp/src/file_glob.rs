//! The file patterns the `lsp` tool's diagnostics action takes
//! (`src/**/*.rs`): expanded under the working directory, bounded.

use std::path::{Path, PathBuf};

/// Most files a `diagnostics` glob checks.
const MAX_GLOB_FILES: usize = 50;

/// Files under `cwd` matching `pattern` (relative to `cwd`; `**` allowed),
/// sorted, bounded, ignoring `.gitignore`d and hidden entries.
pub(crate) fn expand_glob(cwd: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let glob = globset::GlobBuilder::new(pattern.trim_start_matches("./"))
        .literal_separator(true)
        .build()
        .map_err(|e| format!("bad glob {pattern:?}: {e}"))?
        .compile_matcher();
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(cwd)
        .max_depth(Some(32))
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = entry.path().strip_prefix(cwd).unwrap_or(entry.path());
        if glob.is_match(rel) {
            out.push(entry.path().to_path_buf());
            if out.len() >= MAX_GLOB_FILES {
                break;
            }
        }
    }
    out.sort();
    Ok(out)
}
