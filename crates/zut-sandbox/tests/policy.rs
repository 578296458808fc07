//! Policy rules, one by one, on real temporary directories.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use serde_json::json;
use zut_sandbox::{resolve, Declared, JailSpec, Network, Policy, ReadScope, Vars};

struct Dirs {
    _t: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    out: PathBuf,
}

fn dirs() -> Dirs {
    let t = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let r = t.path().canonicalize().unwrap();
    let (ws, home, out) = (r.join("ws"), r.join("home"), r.join("out"));
    for d in [&ws, &home.join(".ssh"), &out, &home.join(".zut")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_ed25519"), "k").unwrap();
    Dirs {
        _t: t,
        ws,
        home,
        out,
    }
}

fn jail(d: &Dirs) -> Policy {
    Policy::jail(&JailSpec {
        cwd: d.ws.clone(),
        home: Some(d.home.clone()),
        zut_home: Some(d.home.join(".zut")),
        extra_secrets: vec![d.out.join("private")],
        extra_writable: vec![d.out.join("cache")],
        network: Network::None,
    })
}

#[test]
fn reads_are_allowed_except_secrets_and_config_additions() {
    let d = dirs();
    let p = jail(&d);
    assert!(p.check_read(&d.out.join("x")).is_ok());
    assert!(p.check_read(Path::new("/usr/bin")).is_ok());
    let e = p.check_read(&d.home.join(".ssh/id_ed25519")).unwrap_err();
    assert_eq!(e.action, "read of");
    assert!(e.rule.starts_with("secret location"), "{e}");
    assert!(p.check_read(&d.home.join(".zut/auth.json")).is_err());
    assert!(p.check_read(&d.home.join(".zut/config.json")).is_ok());
    assert!(p.check_read(&d.out.join("private/file")).is_err());
    assert!(p.check_read(&d.home.join(".aws/credentials")).is_err());
}

#[test]
fn writes_only_in_the_workspace_temp_and_configured_paths() {
    let d = dirs();
    let p = jail(&d);
    assert!(p.check_write(&d.ws.join("a/b.txt")).is_ok());
    assert!(p.check_write(Path::new("/tmp/x")).is_ok());
    assert!(p.check_write(&d.out.join("cache/x")).is_ok());
    let e = p.check_write(Path::new("/etc/hosts")).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "write to /etc/hosts denied by the jail (writable: {}, {})",
            d.ws.display(),
            e.rule
                .trim_start_matches(&format!("writable: {}, ", d.ws.display()))
        )
    );
    assert!(
        e.rule.starts_with(&format!("writable: {}", d.ws.display())),
        "{e}"
    );
    assert!(p.check_write(&d.home.join("x")).is_err());
}

#[test]
fn dot_dot_and_symlinks_resolve_like_the_kernel() {
    let d = dirs();
    let p = jail(&d);
    assert!(p.check_write(&d.ws.join("../out/x")).is_err());
    std::os::unix::fs::symlink(&d.out, d.ws.join("link")).unwrap();
    assert!(p.check_write(&d.ws.join("link/x")).is_err());
    // `link/..` is the parent of the link's target, not the workspace.
    assert_eq!(resolve(&d.ws.join("link/../ws/y")), d.ws.join("y"));
    assert_eq!(resolve(&d.ws.join("link/..")), d.out.parent().unwrap());
    // A dangling link pointing out leads out.
    std::os::unix::fs::symlink(d.out.join("missing"), d.ws.join("dangling")).unwrap();
    assert_eq!(
        resolve(&d.ws.join("dangling/new")),
        d.out.join("missing/new")
    );
    assert!(p.check_write(&d.ws.join("dangling/new")).is_err());
    // A link to a secret is a secret.
    std::os::unix::fs::symlink(d.home.join(".ssh"), d.ws.join("keys")).unwrap();
    assert!(p.check_read(&d.ws.join("keys/id_ed25519")).is_err());
}

#[test]
fn secret_environment_variables_are_withheld() {
    let d = dirs();
    let p = jail(&d);
    for k in [
        "ANTHROPIC_API_KEY",
        "openai_api_key",
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "DB_PASSWORD",
    ] {
        assert!(p.env_denied(k), "{k}");
    }
    for k in ["PATH", "HOME", "LANG", "TOKENIZERS_PARALLELISM"] {
        assert!(!p.env_denied(k), "{k}");
    }
}

#[test]
fn network_descriptions() {
    assert_eq!(Network::None.describe(), "none");
    assert_eq!(Network::Any.describe(), "any");
    assert_eq!(
        Network::Domains(vec!["a.com".into(), "*.b.org".into()]).describe(),
        "only a.com, *.b.org"
    );
}

fn vars(d: &Dirs) -> Vars {
    Vars {
        cwd: d.ws.clone(),
        data_dir: d.out.join("ext"),
        extension_dir: d.out.join("ext"),
        home: Some(d.home.clone()),
        tmp: PathBuf::from("/tmp"),
    }
}

#[test]
fn declared_permissions_become_exactly_that_policy() {
    let d = dirs();
    let decl = Declared::from_json(&json!({
        "fs": {"read": ["${cwd}"], "write": ["${home}/.cache/x", "${tmp}/y"]},
        "network": ["api.example.com"],
        "exec": ["git"],
        "env": ["PATH", "LANG"]
    }))
    .unwrap();
    let p = decl.to_policy("w", &vars(&d), &["./run".into()]).unwrap();
    assert_eq!(p.name, "extension \"w\"'s permissions");
    assert_eq!(
        p.read,
        ReadScope::Only(vec![d.out.join("ext"), d.ws.clone()])
    );
    assert_eq!(
        p.write,
        vec![
            d.out.join("ext"),
            d.home.join(".cache/x"),
            PathBuf::from("/tmp/y")
        ]
    );
    assert_eq!(p.network, Network::Domains(vec!["api.example.com".into()]));
    assert_eq!(p.exec, Some(vec!["./run".to_string(), "git".to_string()]));
    assert_eq!(p.env, Some(vec!["PATH".to_string(), "LANG".to_string()]));
    assert!(p.check_read(&d.ws.join("src/main.rs")).is_ok());
    assert!(p.check_read(&d.home.join("notes")).is_err());
    assert!(p.check_write(&d.ws.join("x")).is_err());

    // Absent keys: nothing of that kind.
    let p = Declared::default().to_policy("m", &vars(&d), &[]).unwrap();
    assert_eq!(p.network, Network::None);
    assert_eq!(p.env, Some(vec![]));
    assert_eq!(p.read, ReadScope::Only(vec![d.out.join("ext")]));
    let any = Declared::from_json(&json!({"network": "any"})).unwrap();
    assert_eq!(
        any.to_policy("a", &vars(&d), &[]).unwrap().network,
        Network::Any
    );
}

#[test]
fn malformed_permissions_are_clear_errors() {
    let cases = [
        (json!({"network": "sometimes"}), "network"),
        (json!({"network": ["bad domain!"]}), "not a domain"),
        (
            json!({"fs": {"read": ["${nope}/x"]}}),
            "unknown placeholder ${nope}",
        ),
        (json!({"fs": {"write": ["${cwd"]}}), "unclosed placeholder"),
        (json!({"fs": {"raed": []}}), "unknown field `raed`"),
        (json!({"filesystem": {}}), "unknown field `filesystem`"),
        (json!({"exec": "git"}), "invalid type"),
        (json!({"env": [""]}), "env: empty"),
        (json!([1]), "invalid type"),
    ];
    for (v, want) in cases {
        let e = Declared::from_json(&v).unwrap_err();
        assert!(e.contains(want), "{v} -> {e}");
    }
    let d = dirs();
    let rel = Declared::from_json(&json!({"fs": {"read": ["relative/path"]}})).unwrap();
    let e = rel.to_policy("r", &vars(&d), &[]).unwrap_err();
    assert!(e.contains("not absolute"), "{e}");
}

#[test]
fn permission_diffs_name_what_is_gained_and_lost() {
    let a = Declared::from_json(&json!({"network": ["a.com"], "env": ["LANG"]})).unwrap();
    let b = Declared::from_json(&json!({"network": ["a.com", "b.com"]})).unwrap();
    assert_eq!(
        Declared::diff(Some(&a), Some(&b)),
        vec!["+ network b.com", "- env LANG"]
    );
    assert_eq!(
        Declared::diff(None, Some(&b)),
        vec![
            "+ network a.com",
            "+ network b.com",
            "- unconfined (full user privileges)"
        ]
    );
}

#[test]
fn status_line_is_honest() {
    let s = zut_sandbox::status();
    let line = s.line();
    if s.enforced() {
        assert!(
            line.contains(&format!("landlock ABI {}", s.landlock_abi)),
            "{line}"
        );
    } else {
        assert!(line.starts_with("NOT ENFORCED"), "{line}");
    }
}
