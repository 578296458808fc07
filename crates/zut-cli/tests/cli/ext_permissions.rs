//! `zut ext install` shows declared permissions; a malformed `permissions`
//! refuses the install; `zut ext list` and `doctor` say who is unconfined.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::*;
use serde_json::json;

#[test]
fn install_lists_permissions_and_refuses_malformed_ones() {
    let env = TestEnv::new();
    let src = source_dir(&env, "weather");
    script_extension(&src, "weather", "run.sh", "#!/bin/sh\n");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("extension.json")).unwrap())
            .unwrap();
    m["permissions"] =
        json!({"fs": {"read": ["${cwd}"]}, "network": ["api.example.com"], "env": ["LANG"]});
    write_manifest(&src, &m);
    // No terminal: the install proceeds after printing the permissions.
    let r = zut(&env, &["ext", "install", "--yes", src.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr.contains("weather declares these permissions:"),
        "{r:?}"
    );
    assert!(r.stderr.contains("network:  api.example.com"), "{r:?}");
    assert!(r.stderr.contains("fs.read:  ${cwd}"), "{r:?}");

    let plain = source_dir(&env, "plain");
    script_extension(&plain, "plain", "run.sh", "#!/bin/sh\n");
    let r = zut(&env, &["ext", "install", plain.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("plain declares no permissions: it will run unconfined"),
        "{r:?}"
    );

    let bad = source_dir(&env, "bad");
    script_extension(&bad, "badperm", "run.sh", "#!/bin/sh\n");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bad.join("extension.json")).unwrap())
            .unwrap();
    m["permissions"] = json!({"network": "sometimes"});
    write_manifest(&bad, &m);
    let r = zut(&env, &["ext", "install", bad.to_str().unwrap()]);
    assert_ne!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("permissions: network"), "{r:?}");
    assert!(!env.global_dir("badperm").exists());

    let r = zut(&env, &["ext", "list"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stderr.contains("sandbox: unconfined: plain"), "{r:?}");
    assert!(r.stderr.contains("sandbox: confined: weather"), "{r:?}");
}
