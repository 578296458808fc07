//! `zut ext list` (L12, B2, B5c).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;

#[test]
fn l12_nothing_installed_prints_two_lines_on_stderr() {
    let env = TestEnv::new();
    let r = zut(&env, &["ext", "list"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.is_empty(), "{r:?}");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{r:?}");
    assert!(lines[0].contains("no extensions installed"));
    assert!(lines[1].contains("zut ext install <path|url>"));
    // $ZUT_HOME/extensions missing entirely is fine too.
    std::fs::remove_dir_all(env.home.join("extensions")).unwrap();
    assert_eq!(zut(&env, &["ext", "list"]).code, 0);
}

#[test]
fn l12_b2_b5c_rows_project_first_then_global() {
    let env = TestEnv::new();
    write_manifest(
        &env.global_dir("a-global"),
        &json!({"name": "g", "version": "2.0", "exec": "node", "language": "js", "description": "global one"}),
    );
    // B2: disabled shows `no`; empty version/language show `-`.
    write_manifest(
        &env.project_dir("p"),
        &json!({"name": "proj", "exec": "./x", "enabled": false}),
    );
    // Same directory name in both scopes: both listed (no shadowing marker).
    write_manifest(
        &env.project_dir("dup"),
        &json!({"name": "dup", "exec": "node"}),
    );
    write_manifest(
        &env.global_dir("dup"),
        &json!({"name": "dup", "exec": "node"}),
    );
    // Skipped silently: B5c dot directory, invalid JSON, no manifest, a file.
    write_manifest(
        &env.global_dir(".hidden"),
        &json!({"name": "hidden", "exec": "node"}),
    );
    std::fs::create_dir_all(env.global_dir("bad")).unwrap();
    std::fs::write(env.global_dir("bad").join("extension.json"), "{oops").unwrap();
    std::fs::create_dir_all(env.global_dir("empty")).unwrap();
    std::fs::write(env.home.join("extensions/file.json"), "{}").unwrap();

    let r = zut(&env, &["ext", "list"]);
    assert_eq!(r.code, 0, "{r:?}");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{}", r.stdout);
    assert!(
        lines[0].starts_with(
            "scope         name                  version     enabled   language    dir"
        ),
        "{}",
        lines[0]
    );
    assert!(lines[0].trim_end().ends_with("description"));
    let cols: Vec<Vec<&str>> = lines[1..]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let pd = env.project_dir("dup").display().to_string();
    let pp = env.project_dir("p").display().to_string();
    let ga = env.global_dir("a-global").display().to_string();
    let gd = env.global_dir("dup").display().to_string();
    assert_eq!(
        cols[0],
        vec!["project", "dup", "-", "yes", "-", pd.as_str(), "-"]
    );
    assert_eq!(
        cols[1],
        vec!["project", "proj", "-", "no", "-", pp.as_str(), "-"]
    );
    assert_eq!(
        cols[2],
        vec![
            "global",
            "g",
            "2.0",
            "yes",
            "js",
            ga.as_str(),
            "global",
            "one"
        ]
    );
    assert_eq!(
        cols[3],
        vec!["global", "dup", "-", "yes", "-", gd.as_str(), "-"]
    );
    // Exact padding: 12, 20, 10, 8, 10, two spaces apart.
    assert!(lines[3].starts_with(&format!(
        "{:<12}  {:<20}  {:<10}  {:<8}  {:<10}  {ga}",
        "global", "g", "2.0", "yes", "js"
    )));
    assert!(
        !r.stdout.contains("hidden") && !r.stdout.contains("/bad") && !r.stdout.contains("/empty")
    );
}
