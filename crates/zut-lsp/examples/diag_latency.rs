//! Post-edit diagnostics latency with a warm server (scripts/bench/lsp-diagnostics).
//!
//! `diag_latency <rust|python|ts> [iterations]` makes a small fixture
//! project, warms its language server, then edits one file repeatedly
//! (alternating a version with an error and one without) and times
//! `LspManager::diagnostics_after_mutation`, next to the server's own
//! time (change sent → first diagnostics publication for the file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use zut_lsp::{LspManager, Options};
use zut_tools::{run_builtin, ToolContext};

fn fixture(lang: &str, dir: &Path) -> (PathBuf, String, String) {
    let w = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    match lang {
        "rust" => {
            w(
                "Cargo.toml",
                "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            );
            let good = "pub fn greet(name: &str) -> String {\n    format!(\"hello {name}\")\n}\n\npub fn twice() -> String {\n    greet(\"a\") + &greet(\"b\")\n}\n";
            w("src/lib.rs", good);
            (
                dir.join("src/lib.rs"),
                good.into(),
                good.replace("greet(\"a\")", "greet(\"a\", 2)"),
            )
        }
        "python" => {
            w(
                "pyproject.toml",
                "[project]\nname = \"fx\"\nversion = \"0.1.0\"\n",
            );
            let good = "def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n";
            w("main.py", good);
            (
                dir.join("main.py"),
                good.into(),
                good.replace("print(", "print(undefined_name, "),
            )
        }
        _ => {
            w(
                "package.json",
                "{\"name\": \"fx\", \"version\": \"1.0.0\"}\n",
            );
            w(
                "tsconfig.json",
                "{\"compilerOptions\": {\"strict\": true}}\n",
            );
            let good = "export function greet(name: string): string {\n  return \"hi \" + name;\n}\nconsole.log(greet(\"x\"));\n";
            w("a.ts", good);
            (
                dir.join("a.ts"),
                good.into(),
                good.replace("greet(\"x\")", "greet(1)"),
            )
        }
    }
}

fn stats(name: &str, mut v: Vec<f64>) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let p = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "{name:>28}: median {:7.1} ms  p90 {:7.1} ms  min {:7.1} ms  max {:7.1} ms",
        p(0.5),
        p(0.9),
        v[0],
        v[v.len() - 1]
    );
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let lang = args.next().unwrap_or_else(|| "python".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (file, good, bad) = fixture(&lang, &root);
    let opts = Options {
        // Generous, so a slow server's own time is measured, not cut.
        mutation_budget: Duration::from_secs(10),
        ..Options::default()
    };
    let mgr = LspManager::new(&root, None, opts);
    let ctx = ToolContext::new(&root).with_lsp(mgr.handle());
    let rel = file.strip_prefix(&root).unwrap().display().to_string();
    let warm = run_builtin(
        "lsp",
        &json!({"action": "diagnostics", "path": rel, "timeout_ms": 120000}),
        &ctx,
    )
    .await;
    if warm.is_error {
        eprintln!("warm-up failed: {}", warm.text_content());
        std::process::exit(1);
    }
    let server = mgr
        .running()
        .first()
        .map(|c| c.server.clone())
        .unwrap_or_default();
    // Two warm-up edits.
    for text in [&bad, &good] {
        std::fs::write(&file, text).unwrap();
        mgr.diagnostics_after_mutation(std::slice::from_ref(&file))
            .await;
    }
    let (mut total, mut own, mut over) = (Vec::new(), Vec::new(), Vec::new());
    let mut reported = 0;
    for i in 0..n {
        let text = if i % 2 == 0 { &bad } else { &good };
        std::fs::write(&file, text).unwrap();
        let t0 = Instant::now();
        let out = mgr
            .diagnostics_after_mutation(std::slice::from_ref(&file))
            .await;
        let t = t0.elapsed();
        if out.is_some() {
            reported += 1;
        }
        let Some(s) = mgr.running().iter().find_map(|c| c.server_time(&file)) else {
            eprintln!("iteration {i}: the server published nothing in time");
            continue;
        };
        total.push(t.as_secs_f64() * 1000.0);
        own.push(s.as_secs_f64() * 1000.0);
        over.push((t.saturating_sub(s)).as_secs_f64() * 1000.0);
    }
    println!("{lang} ({server}), {n} edits, {reported} with new diagnostics attached");
    if total.is_empty() {
        return;
    }
    stats("attached after edit", total);
    stats("server's own time", own);
    stats("zut overhead", over);
    mgr.shutdown().await;
}
