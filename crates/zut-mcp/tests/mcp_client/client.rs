//! The MCP client against real stdio server processes (a raw JSON-RPC
//! Python server producing each fault on purpose).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_mcp::{McpContent, McpSettings, ServerStatus};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_results_prompts_resources() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"fake": fake("badschema", &[])}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "fake").await;
    let names: Vec<String> = mgr.tools().into_iter().map(|t| t.name).collect();
    assert!(names.contains(&"mcp__fake__echo".to_string()), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("broken")));
    let info = mgr
        .servers()
        .into_iter()
        .find(|s| s.name == "fake")
        .unwrap();
    assert_eq!(info.skipped.len(), 1);
    assert!(
        info.skipped[0].reason.contains("invalid JSON Schema"),
        "{:?}",
        info.skipped
    );
    assert_eq!((info.prompts, info.resources), (1, 1));

    let cancel = CancellationToken::new();
    let r = mgr
        .call_tool(
            "mcp__fake__echo",
            json!({"text": "hi there"}),
            &cancel,
            None,
        )
        .await;
    assert!(!r.is_error);
    assert_eq!(r.content, vec![McpContent::Text("hi there".into())]);
    let r = mgr
        .call_tool("mcp__fake__image", json!({}), &cancel, None)
        .await;
    assert!(
        matches!(&r.content[1], McpContent::Image { mime_type, data } if mime_type == "image/png" && data == "iVBORw0KGgo=")
    );
    let r = mgr
        .call_tool("mcp__fake__fail", json!({}), &cancel, None)
        .await;
    assert!(r.is_error);
    assert_eq!(r.text(), "it broke");
    let r = mgr
        .call_tool("mcp__fake__structured", json!({}), &cancel, None)
        .await;
    assert!(r.text().contains("\"answer\": 42"), "{}", r.text());
    let r = mgr
        .call_tool("mcp__fake__nope", json!({}), &cancel, None)
        .await;
    assert!(r.is_error && r.text().contains("not available"));

    let text = mgr
        .expand_prompt_command("/mcp__fake__greet Ada", &cancel)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(text, "Say hello to Ada.");
    let res = mgr
        .read_resource("fake", "mem://notes", &cancel)
        .await
        .unwrap();
    assert_eq!(
        res,
        vec![McpContent::Text(
            "[resource mem://notes]\nremember the milk".into()
        )]
    );
    assert!(d
        .log("fake")
        .contains("fake server started in mode badschema"));
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_sends_cancellation_and_progress_arrives() {
    if !have("python3", "python3") {
        return;
    }
    let fake_log = tempfile::NamedTempFile::new().unwrap();
    let mut entry = fake("normal", &[]);
    entry["env"] = json!({"FAKE_LOG": fake_log.path().display().to_string()});
    entry["timeout"] = json!(400);
    let d = Dirs::new(json!({"fake": entry}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "fake").await;
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = seen.clone();
    let progress: zut_mcp::ProgressFn = std::sync::Arc::new(move |s| sink.lock().unwrap().push(s));
    let r = mgr
        .call_tool(
            "mcp__fake__slow",
            json!({"ms": 20000}),
            &CancellationToken::new(),
            Some(progress),
        )
        .await;
    assert!(r.is_error);
    assert!(r.text().contains("timed out after 400 ms"), "{}", r.text());
    assert!(!seen.lock().unwrap().is_empty(), "no progress arrived");
    assert!(
        seen.lock().unwrap()[0].starts_with("[0/10]"),
        "{:?}",
        seen.lock().unwrap()
    );
    // The server got notifications/cancelled and stopped working.
    for _ in 0..100 {
        if file_contains(fake_log.path(), "cancelled ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = std::fs::read_to_string(fake_log.path()).unwrap();
    assert!(
        log.contains("cancel-notification") && log.contains("timeout"),
        "{log}"
    );
    assert!(log.contains("cancelled "), "{log}");

    // A cancellation by the user is forwarded too.
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let r = mgr
        .call_tool("mcp__fake__slow", json!({"ms": 300}), &cancel, None)
        .await;
    assert!(r.text().contains("cancelled"), "{}", r.text());
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn global_timeout_from_settings() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"fake": fake("normal", &[])}));
    let settings = McpSettings {
        tool_timeout: Duration::from_millis(300),
        ..Default::default()
    };
    let mgr = d.start(settings);
    ready(&mgr, "fake").await;
    let r = mgr
        .call_tool(
            "mcp__fake__slow",
            json!({"ms": 10000}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(r.text().contains("timed out after 300 ms"), "{}", r.text());
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_that_never_answers_initialize() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"silent": fake("silent", &[]), "ok": fake("normal", &[])}));
    // Long enough for the healthy Python server to start on a busy machine
    // (it has the same budget).
    let settings = McpSettings {
        startup_timeout: Duration::from_millis(2000),
        ..Default::default()
    };
    let mgr = d.start(settings);
    // The healthy server is not held up by the silent one.
    ready(&mgr, "ok").await;
    let st = wait_status(&mgr, "silent", |s| matches!(s, ServerStatus::Failed(_))).await;
    assert!(
        format!("{st:?}").contains("did not answer initialize within 2000 ms"),
        "{st:?}"
    );
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_that_exits_at_once() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"gone": fake("exit", &[])}));
    let mgr = d.start(McpSettings::default());
    let st = wait_status(&mgr, "gone", |s| matches!(s, ServerStatus::Failed(_))).await;
    let text = format!("{st:?}");
    assert!(text.contains("initialize failed"), "{text}");
    assert!(text.contains("mcp-gone.log"), "{text}");
    assert!(d.log("gone").contains("exiting at once"));
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_command_is_a_clear_failure() {
    let d = Dirs::new(json!({"none": {"command": "/nonexistent/zut-mcp-server"}}));
    let mgr = d.start(McpSettings::default());
    let st = wait_status(&mgr, "none", |s| matches!(s, ServerStatus::Failed(_))).await;
    assert!(
        format!("{st:?}").contains("cannot start `/nonexistent/zut-mcp-server`"),
        "{st:?}"
    );
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_json_stdout_is_ignored() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"noisy": fake("garbage", &[])}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "noisy").await;
    let r = mgr
        .call_tool(
            "mcp__noisy__echo",
            json!({"text": "still fine"}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert_eq!(r.text(), "still fine");
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_100_mb_message_is_dropped_and_the_call_times_out() {
    if !have("python3", "python3") {
        return;
    }
    let mut entry = fake("huge", &[]);
    entry["timeout"] = json!(3000);
    let d = Dirs::new(json!({"huge": entry}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "huge").await;
    let r = mgr
        .call_tool(
            "mcp__huge__echo",
            json!({"text": "x"}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(r.is_error);
    assert!(
        r.text().contains("timed out"),
        "{}",
        &r.text()[..r.text().len().min(300)]
    );
    // The connection survives the oversized line.
    assert_eq!(mgr.servers()[0].status, ServerStatus::Ready);
    if let Some(kib) = zut_test_support::rss_kib() {
        assert!(
            kib < 400 * 1024,
            "resident memory {kib} KiB after a 100 MB message"
        );
    }
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_flood_does_not_lose_the_reply() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"flood": fake("flood", &[])}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "flood").await;
    let r = mgr
        .call_tool(
            "mcp__flood__echo",
            json!({"text": "after the flood"}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert_eq!(r.text(), "after the flood");
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_then_restart_with_backoff() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"crashy": fake("crash", &[])}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "crashy").await;
    let r = mgr
        .call_tool(
            "mcp__crashy__echo",
            json!({"text": "x"}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(r.is_error, "{r:?}");
    // It comes back.
    wait_status(&mgr, "crashy", |s| {
        matches!(s, ServerStatus::Failed(_) | ServerStatus::Starting)
    })
    .await;
    ready(&mgr, "crashy").await;
    let info = mgr.servers().into_iter().next().unwrap();
    assert!(info.restarts >= 1);
    assert!(
        d.log("crashy")
            .contains("[zut] failed: the connection closed"),
        "{}",
        d.log("crashy")
    );
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_leaves_no_process() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({"a": fake("normal", &[]), "b": fake("normal", &[])}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "a").await;
    ready(&mgr, "b").await;
    let mut pids = Vec::new();
    for name in ["mcp__a__pid", "mcp__b__pid"] {
        let r = mgr
            .call_tool(name, json!({}), &CancellationToken::new(), None)
            .await;
        pids.push(r.text().trim().parse::<i32>().unwrap());
    }
    mgr.shutdown().await;
    for pid in pids {
        assert!(
            !zut_test_support::process_alive(pid),
            "server {pid} outlived the shutdown"
        );
    }
    assert!(mgr
        .servers()
        .iter()
        .all(|s| s.status == ServerStatus::Stopped));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_project_servers_do_not_start() {
    if !have("python3", "python3") {
        return;
    }
    let d = Dirs::new(json!({}));
    let marker = d.project.path().join("started");
    let script = format!(
        "import pathlib; pathlib.Path({:?}).write_text('x')",
        marker.display().to_string()
    );
    std::fs::write(
        d.project.path().join(".mcp.json"),
        serde_json::to_string(
            &json!({"mcpServers": {"proj": {"command": "python3", "args": ["-c", script]}}}),
        )
        .unwrap(),
    )
    .unwrap();
    let mgr = d.start(McpSettings::default());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(mgr.servers()[0].status, ServerStatus::Untrusted);
    assert!(!marker.exists(), "an untrusted server ran");
    assert!(
        mgr.notes().iter().any(|n| n.contains("zut mcp trust")),
        "{:?}",
        mgr.notes()
    );
    mgr.shutdown().await;
}
