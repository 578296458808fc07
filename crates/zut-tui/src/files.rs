//! The `@` file picker: the project's files (respecting `.gitignore`),
//! listed once in the background on the first `@`, and the MCP resources
//! as `@server:uri` (asked on each `@`), matched as you type (substring
//! first, then subsequence; shorter paths first).

use std::path::Path;

/// Files listed at most (a huge tree is cut, not walked to the end).
pub const MAX_FILES: usize = 20_000;
/// Matches shown.
pub const MAX_SHOWN: usize = 8;

/// Lists the files under `root` (relative paths, `/`-separated), hidden
/// and ignored ones left out.
pub fn list(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in ignore::WalkBuilder::new(root)
        .max_depth(Some(12))
        .build()
        .flatten()
    {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if let Ok(rel) = entry.path().strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
        if out.len() >= MAX_FILES {
            break;
        }
    }
    out.sort();
    out
}

/// The `@word` being typed before the cursor: (byte offset of `@`, query).
pub fn query(text: &str, cursor: usize) -> Option<(usize, &str)> {
    let before = &text[..cursor];
    let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let word = &before[start..];
    word.strip_prefix('@').map(|q| (start, q))
}

/// The best matches of `q` among `files`, best first.
pub fn matches<'a>(files: &'a [String], q: &str) -> Vec<&'a str> {
    matches_in(&[files], q)
}

/// The best matches of `q` among several lists (the MCP resources'
/// `@server:uri` and the files), best first.
pub fn matches_in<'a>(lists: &[&'a [String]], q: &str) -> Vec<&'a str> {
    let q = q.to_lowercase();
    let mut hits: Vec<(u8, usize, &str)> = lists
        .iter()
        .flat_map(|l| l.iter())
        .filter_map(|f| {
            let l = f.to_lowercase();
            let score = if q.is_empty() {
                2
            } else if l.rsplit('/').next().is_some_and(|b| b.starts_with(&q)) {
                0
            } else if l.contains(&q) {
                1
            } else {
                let mut chars = l.chars();
                if q.chars().all(|qc| chars.any(|c| c == qc)) {
                    2
                } else {
                    return None;
                }
            };
            Some((score, f.len(), f.as_str()))
        })
        .collect();
    hits.sort();
    hits.into_iter()
        .take(MAX_SHOWN)
        .map(|(_, _, f)| f)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_respecting_gitignore_and_matches() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        std::fs::write(root.join("target/out.rs"), "").unwrap();
        let files = list(root);
        assert_eq!(files, ["src/lib.rs", "src/main.rs"]);
        assert_eq!(matches(&files, "main"), ["src/main.rs"]);
        assert_eq!(matches(&files, "slb"), ["src/lib.rs"]);
        assert_eq!(query("see @src/ma", 11), Some((4, "src/ma")));
        assert_eq!(query("no at", 5), None);
        let mentions = vec!["@docs:config://app".to_string()];
        assert_eq!(
            matches_in(&[&mentions, &files], "doc"),
            ["@docs:config://app"]
        );
        assert_eq!(matches_in(&[&mentions, &files], "lib"), ["src/lib.rs"]);
    }
}
