//! Switching servers on and off at run time (`/mcp enable|disable`, for
//! every front end through the controller): real stdio server processes
//! (the raw JSON-RPC fake server).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_mcp::{McpSettings, ServerStatus};

async fn pid(mgr: &zut_mcp::McpManager, tool: &str) -> i32 {
    mgr.call_tool(tool, json!({}), &CancellationToken::new(), None)
        .await
        .text()
        .trim()
        .parse()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disable_stops_the_server_and_enable_starts_it_again() {
    if !have("python3", "python3") {
        return;
    }
    let mut off = fake("normal", &[]);
    off["disabled"] = json!(true);
    let d = Dirs::new(json!({"a": fake("normal", &[]), "off": off}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "a").await;
    let first = pid(&mgr, "mcp__a__pid").await;

    mgr.disable("a").await.unwrap();
    let info = |name: &str| mgr.servers().into_iter().find(|s| s.name == name).unwrap();
    assert_eq!(info("a").status, ServerStatus::Disabled);
    assert_eq!(info("a").tools, 0);
    assert!(!mgr.tools().iter().any(|t| t.server == "a"));
    assert!(
        !zut_test_support::process_alive(first),
        "a disabled server kept running"
    );
    assert!(mgr
        .disable("a")
        .await
        .unwrap_err()
        .contains("already disabled"));
    assert!(mgr
        .disable("nope")
        .await
        .unwrap_err()
        .contains("no MCP server named \"nope\""));

    // Enabled again: a new process, its tools back.
    assert_eq!(mgr.enable("a").unwrap(), ServerStatus::Starting);
    ready(&mgr, "a").await;
    let second = pid(&mgr, "mcp__a__pid").await;
    assert_ne!(first, second);
    assert!(mgr.enable("a").unwrap_err().contains("a is ready"));

    // `disabled: true` in the configuration: enabled for this run.
    assert_eq!(info("off").status, ServerStatus::Disabled);
    mgr.enable("off").unwrap();
    ready(&mgr, "off").await;
    assert!(mgr.tools().iter().any(|t| t.server == "off"));
    // Nothing was written to the configuration.
    let cfg = std::fs::read_to_string(d.home.path().join("config.json")).unwrap();
    assert!(cfg.contains("\"disabled\":true"), "{cfg}");
    mgr.shutdown().await;
    assert!(!zut_test_support::process_alive(second));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_project_server_stays_off_until_trusted() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({}));
    let server = fake("normal", &[]);
    std::fs::write(
        d.project.path().join(".mcp.json"),
        json!({"mcpServers": {"proj": server.clone(), "other": server}}).to_string(),
    )
    .unwrap();
    let mgr = d.start(McpSettings::default());
    let proj = mgr
        .servers()
        .into_iter()
        .find(|s| s.name == "proj")
        .unwrap();
    assert_eq!(proj.status, ServerStatus::Untrusted);
    assert!(proj.target.starts_with("python3 ") && proj.target.ends_with(" normal"));
    assert!(proj.source.unwrap().ends_with(".mcp.json"));
    assert_eq!(mgr.enable("proj").unwrap(), ServerStatus::Untrusted);
    // `/mcp trust other`: recorded like `zut mcp trust other`, started.
    assert_eq!(mgr.trust("other").unwrap(), ServerStatus::Starting);
    ready(&mgr, "other").await;
    let configured = zut_mcp::sources::load(d.home.path(), d.project.path());
    assert!(configured.get("other").unwrap().trusted);
    assert!(!configured.get("proj").unwrap().trusted);
    assert!(mgr.trust("nope").unwrap_err().contains("no MCP server"));
    // Trusted meanwhile (`zut mcp trust`): enable starts it.
    let configured = zut_mcp::sources::load(d.home.path(), d.project.path());
    let mut store = zut_mcp::trust::TrustStore::load(d.home.path());
    store.trust(&configured.get("proj").unwrap().config);
    store.save(d.home.path()).unwrap();
    assert_eq!(mgr.enable("proj").unwrap(), ServerStatus::Starting);
    ready(&mgr, "proj").await;
    mgr.shutdown().await;
}

/// The print modes' held start (`McpManager::start_default_held`): nothing
/// is started (no log line, status `starting`) until the first model
/// request releases the starts; then the server comes up. Waiting for a
/// server (a call, a mention, `/mcp__…`) releases them as well.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_starts_begin_with_the_first_request_or_a_wait() {
    if !have("python3", "python3") {
        return;
    }
    let hold = std::time::Duration::from_secs(3600);
    let held = |d: &Dirs| {
        zut_mcp::McpManager::start_default_held(
            d.home.path(),
            d.project.path(),
            zut_tools::JailSwitch::default(),
            zut_mcp::Elicitation::default(),
            hold,
        )
        .0
    };
    let d = Dirs::new(json!({"a": fake("normal", &[])}));
    let mgr = held(&d);
    // Time for a start to show if the hold were not kept.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(mgr.servers()[0].status, ServerStatus::Starting);
    assert!(!d.log("a").contains("starting"), "{}", d.log("a"));
    mgr.release_starts();
    ready(&mgr, "a").await;
    assert!(d.log("a").contains("starting"), "{}", d.log("a"));
    mgr.shutdown().await;

    let d = Dirs::new(json!({"b": fake("normal", &[])}));
    let mgr = held(&d);
    assert!(
        mgr.wait_for_tool_server("mcp__b__pid", std::time::Duration::from_secs(30))
            .await
    );
    mgr.shutdown().await;
}
