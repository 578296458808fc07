//! The embedded engine on real files: search and rewrite in several
//! languages, bad patterns, and a rewrite whose target changed after the
//! plan.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use zut_ast::{parse_language, plan_rewrite, search, AstError, Query};

fn never() -> bool {
    false
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn fixture() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    write(
        p,
        "src/lib.rs",
        "fn main() {\n    let x = old_fn(1, 2);\n    let y = old_fn(3, 4); // macro arguments are token trees, so not inside println!\n}\n",
    );
    write(
        p,
        "py/app.py",
        "def greet(name):\n    print(\"hi\", name)\n\n\ndef other():\n    print(1)\n",
    );
    write(
        p,
        "web/app.ts",
        "function f(a: number) {\n  console.log(\"a\", a);\n  console.log(a + 1);\n}\n",
    );
    write(
        p,
        "go/main.go",
        "package main\n\nimport \"fmt\"\n\nfunc run() error {\n\treturn fmt.Errorf(\"bad %d\", 3)\n}\n",
    );
    write(p, "notes.md", "console.log(x)\n");
    d
}

fn q<'a>(root: &'a Path, pattern: &'a str, lang: Option<&str>) -> Query<'a> {
    Query {
        root,
        pattern,
        language: lang.map(parse_language),
        rewrite: None,
    }
}

#[test]
fn search_in_four_languages() {
    let d = fixture();
    let root = d.path();
    let cases = [
        (
            "old_fn($A, $B)",
            Some("rust"),
            vec![("src/lib.rs", 2), ("src/lib.rs", 3)],
        ),
        (
            "print($$$ARGS)",
            Some("python"),
            vec![("py/app.py", 2), ("py/app.py", 6)],
        ),
        (
            "console.log($$$)",
            None,
            vec![("web/app.ts", 2), ("web/app.ts", 3)],
        ),
        (
            "fmt.Errorf($MSG, $$$REST)",
            Some("go"),
            vec![("go/main.go", 6)],
        ),
    ];
    for (pattern, lang, want) in cases {
        let found = search(&q(root, pattern, lang), &never).unwrap();
        let got: Vec<(String, usize)> = found
            .matches
            .iter()
            .map(|m| {
                (
                    m.path.strip_prefix(root).unwrap().display().to_string(),
                    m.line,
                )
            })
            .collect();
        let want: Vec<(String, usize)> =
            want.into_iter().map(|(p, l)| (p.to_string(), l)).collect();
        assert_eq!(got, want, "{pattern}");
        assert_eq!(found.engine, "embedded");
    }
}

#[test]
fn rewrite_in_four_languages_keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let d = fixture();
    let root = d.path();
    std::fs::set_permissions(
        root.join("py/app.py"),
        std::fs::Permissions::from_mode(0o754),
    )
    .unwrap();
    let cases = [
        (
            "old_fn($A, $B)",
            "rust",
            "new_fn($B, $A)",
            "src/lib.rs",
            "new_fn(2, 1)",
        ),
        (
            "print($$$ARGS)",
            "python",
            "log($$$ARGS)",
            "py/app.py",
            "log(\"hi\", name)",
        ),
        (
            "console.log($$$A)",
            "typescript",
            "logger.info($$$A)",
            "web/app.ts",
            "logger.info(a + 1)",
        ),
        (
            "fmt.Errorf($MSG, $$$REST)",
            "go",
            "errors.Newf($MSG, $$$REST)",
            "go/main.go",
            "errors.Newf(\"bad %d\", 3)",
        ),
    ];
    for (pattern, lang, rewrite, file, expect) in cases {
        let query = Query {
            rewrite: Some(rewrite),
            ..q(root, pattern, Some(lang))
        };
        let (_, plan) = plan_rewrite(&query, &never).unwrap();
        assert_eq!(plan.files.len(), 1, "{pattern}");
        let diff = plan.files[0].diff(file);
        assert!(diff.contains(&format!("+++ {file}")), "{diff}");
        assert!(diff.contains(expect), "{diff}");
        // Planned in memory: nothing written yet.
        assert!(!std::fs::read_to_string(root.join(file))
            .unwrap()
            .contains(expect));
        let written = zut_ast::apply(&plan).unwrap();
        assert_eq!(written.len(), 1);
        let now = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(now.contains(expect), "{now}");
    }
    let mode = std::fs::metadata(root.join("py/app.py"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o754);
    // No temporary files left behind.
    let leftovers: Vec<_> = walk(root)
        .into_iter()
        .filter(|p| p.contains(".zut-ast-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.display().to_string());
        }
    }
    out
}

#[test]
fn rewrite_refused_when_the_file_changed_after_the_plan() {
    let d = fixture();
    let root = d.path();
    let query = Query {
        rewrite: Some("new_fn($A, $B)"),
        ..q(root, "old_fn($A, $B)", Some("rust"))
    };
    let (_, plan) = plan_rewrite(&query, &never).unwrap();
    let changed = "fn main() { old_fn(9, 9); } // edited by someone else\n";
    std::fs::write(root.join("src/lib.rs"), changed).unwrap();
    let err = zut_ast::apply(&plan).unwrap_err();
    assert!(
        err.message.contains("changed while applying rewrite"),
        "{err}"
    );
    assert!(err.written.is_empty());
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        changed
    );
}

#[test]
fn overlapping_matches_rewrite_the_outermost() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "a.py", "x = f(f(1))\n");
    let query = Query {
        root: &d.path().join("a.py"),
        pattern: "f($A)",
        language: None,
        rewrite: Some("g($A)"),
    };
    let (found, plan) = plan_rewrite(&query, &never).unwrap();
    assert_eq!(found.matches.len(), 2);
    assert_eq!(plan.files[0].updated, "x = g(f(1))\n");
}

#[test]
fn a_pattern_that_does_not_parse_names_the_problem() {
    let d = fixture();
    let err = search(&q(d.path(), "fn (", Some("rust")), &never).unwrap_err();
    let AstError::Pattern(msg) = err else {
        panic!("{err:?}")
    };
    assert!(msg.contains("does not parse as rust"), "{msg}");
    assert!(
        msg.contains("syntax error") || msg.contains("parse"),
        "{msg}"
    );
    // By extension: a pattern valid in no language met is the same error.
    let only_rs = d.path().join("src");
    let err = search(&q(&only_rs, "let = = ;", None), &never).unwrap_err();
    assert!(matches!(err, AstError::Pattern(_)), "{err:?}");
}

#[test]
fn unknown_language_without_cli_is_a_clear_error() {
    let d = fixture();
    if zut_ast::fallback::find_cli().is_some() {
        // The CLI is installed: the fallback path is exercised instead.
        let found = search(&q(d.path(), "$X", Some("nosuchlang")), &never);
        assert!(found.is_err());
        return;
    }
    let err = search(&q(d.path(), "x", Some("zig")), &never).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("not built into zut") && text.contains("ast-grep-cli"),
        "{text}"
    );
}

#[test]
fn cancelled_search_stops() {
    let d = fixture();
    let yes = || true;
    let err = search(&q(d.path(), "print($$$A)", None), &yes).unwrap_err();
    assert_eq!(err, AstError::Cancelled);
}

#[test]
fn more_embedded_languages_parse() {
    let d = tempfile::tempdir().unwrap();
    let files = [
        ("a.java", "class A { void f() { g(1); } }\n", "g($X)"),
        ("a.c", "int main() { g(1); return 0; }\n", "return $X;"),
        ("a.cpp", "int main() { g(1); }\n", "g($X)"),
        ("a.cs", "class A { void F() { G(1); } }\n", "G($X)"),
        ("a.rb", "g(1)\n", "g($X)"),
        ("a.sh", "echo hi\n", "echo $X"),
        ("a.json", "{\"k\": 1}\n", "\"k\""),
        ("a.yaml", "k: 1\n", "k: $V"),
        ("a.html", "<p>hi</p>\n", "<p>$$$C</p>"),
        ("a.css", "a { color: red; }\n", "color: $V;"),
        ("a.kt", "fun f() { g(1) }\n", "g($X)"),
        ("a.swift", "g(1)\n", "g($X)"),
        ("a.lua", "g(1)\n", "g($X)"),
        ("a.php", "<?php g(1);\n", "g($X)"),
        ("a.scala", "object A { g(1) }\n", "g($X)"),
        ("a.js", "g(1);\n", "g($X)"),
        ("a.tsx", "const a = <div>{g(1)}</div>;\n", "g($X)"),
    ];
    for (name, src, pattern) in files {
        write(d.path(), name, src);
        let path = d.path().join(name);
        let found =
            search(&q(&path, pattern, None), &never).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(found.matches.len(), 1, "{name}: {found:?}");
    }
}

#[test]
fn other_languages_use_the_installed_ast_grep() {
    if zut_ast::fallback::find_cli().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "ast-grep (pip install ast-grep-cli) is required in CI"
        );
        eprintln!("ast-grep not installed: skipping the CLI fallback test");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "lib/a.zig",
        "fn main() void {\n    foo(1);\n    foo(2);\n}\n",
    );
    let found = search(&q(d.path(), "foo($A)", Some("zig")), &never).unwrap();
    assert_eq!(found.engine, "ast-grep");
    let lines: Vec<usize> = found.matches.iter().map(|m| m.line).collect();
    assert_eq!(lines, [2, 3]);
    assert!(found.matches[0].path.ends_with("lib/a.zig"));
    // A rewrite through the CLI is planned and applied like an embedded one.
    let query = Query {
        rewrite: Some("bar($A)"),
        ..q(d.path(), "foo($A)", Some("zig"))
    };
    let (_, plan) = plan_rewrite(&query, &never).unwrap();
    zut_ast::apply(&plan).unwrap();
    assert_eq!(
        std::fs::read_to_string(d.path().join("lib/a.zig")).unwrap(),
        "fn main() void {\n    bar(1);\n    bar(2);\n}\n"
    );
}

#[test]
fn odd_patterns_never_panic_in_any_language() {
    let patterns = [
        "",
        " ",
        "$",
        "$$$",
        "$$$A",
        "$A",
        "(((",
        "}{",
        "\0",
        "$A $B $$$C",
        "µ",
        "<<<",
        "'",
        "\"",
        "#",
        "// x",
        "$A.$B($$$)",
        "\u{feff}",
        "a\nb\n\n",
        "$_",
        "$$A",
        "${A}",
    ];
    let sources = [
        "",
        "x",
        "fn f() {}",
        "((((((",
        "\u{fffd}\0",
        "def f(:\n  pass",
    ];
    for id in zut_ast::embedded_ids().split(", ") {
        let zut_ast::LangChoice::Embedded(lang) = parse_language(id) else {
            panic!("{id} is not embedded");
        };
        for p in patterns {
            for s in sources {
                let _ = zut_ast::matches_in_source(p, lang, s);
            }
        }
    }
}
