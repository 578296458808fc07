//! `zut ext doctor` with MCP servers configured: the servers start next to
//! the extensions and tool name clashes are reported with the one that
//! wins (an extension tool named like an MCP tool is used, the server's is
//! not offered; the same tool name under different names is listed).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::{script_extension, zut, TestEnv};
use serde_json::json;

#[test]
fn doctor_reports_mcp_tool_name_clashes() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(std::env::var_os("CI").is_none(), "python3 is required");
        eprintln!("skipped: no python3");
        return;
    }
    let env = TestEnv::new();
    let tool = |name: &str| {
        format!(
            r#"{{"type":"register_tool","name":"{name}","description":"d","schema":{{"type":"object","properties":{{}}}}}}"#
        )
    };
    let body = format!(
        "#!/bin/sh\necho '{{\"type\":\"hello\",\"protocol_version\":2,\"name\":\"e\"}}'\nread ack\necho '{}'\necho '{}'\necho '{{\"type\":\"ready\"}}'\ncat >/dev/null\n",
        tool("echo"),
        tool("mcp__fake__pid")
    );
    script_extension(&env.global_dir("e"), "e", "run.sh", &body);
    let fake =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../zut-mcp/tests/fixtures/fake_server.py");
    std::fs::write(
        env.home.join("config.json"),
        json!({"mcpServers": {
            "fake": {"command": "python3", "args": [fake.to_str().unwrap(), "normal"]},
            "gone": {"command": "/nonexistent/zut-mcp-server"}
        }})
        .to_string(),
    )
    .unwrap();
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let out = &r.stdout;
    assert!(
        out.contains("\nmcp servers: 1 of 2 ready, 6 tools\n"),
        "{out}"
    );
    assert!(
        out.contains("  gone: failed: cannot start `/nonexistent/zut-mcp-server`"),
        "{out}"
    );
    assert!(out.contains("mcp tool name clashes:\n"), "{out}");
    assert!(
        out.contains(
            "  mcp__fake__pid: extension e's mcp__fake__pid is used; server fake's tool pid is not offered (same name)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "  echo: offered by extension e as echo, server fake as mcp__fake__echo; each under its own name"
        ),
        "{out}"
    );
}
