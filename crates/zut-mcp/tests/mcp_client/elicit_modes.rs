//! URL-mode elicitation and sampling against real servers: the Python SDK
//! server (`tests/fixtures/fastmcp_server.py`, tools `pay` and
//! `ask_model`) and server-everything (`trigger-url-elicitation`, and
//! `trigger-sampling-request`, which it offers only to a client declaring
//! sampling), and `notifications/elicitation/complete` (`pay_done`,
//! `pay_elsewhere`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;
use zut_mcp::{Elicitation, McpManager, McpSettings};
use zut_types::{ElicitationAnswer, ElicitationModes};

fn python_server() -> Dirs {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastmcp_server.py");
    Dirs::new(json!({"py": {"command": "python3", "args": [script.display().to_string()]}}))
}

fn start(d: &Dirs, modes: ElicitationModes) -> McpManager {
    let mut opts = d.opts(McpSettings::default());
    opts.elicitation = Elicitation::declared_from_start_modes(modes);
    McpManager::start(opts)
}

/// The Python SDK server sends a URL-mode `elicitation/create`: declared
/// (`url` in the capability) when the front end shows URLs, the request
/// reaches the asker with the URL and an empty form, accept and decline
/// reach the tool; a front end that shows forms only is not declared URL
/// mode and the request is declined without asking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_url_elicitation() {
    if !have_python_mcp() {
        return;
    }
    let d = python_server();
    let cancel = CancellationToken::new();
    let mgr = start(&d, ElicitationModes::ALL);
    let (asker, asked) = scripted_asker(vec![
        ElicitationAnswer::accept(content(json!({"ignored": true}))),
        ElicitationAnswer::decline(),
    ]);
    mgr.set_elicitation_asker(Some(asker));
    ready(&mgr, "py").await;
    let r = mgr
        .call_tool("mcp__py__pay", json!({"amount": 12}), &cancel, None)
        .await;
    assert_eq!(
        r.text().trim(),
        "payment accept; declared form=True url=True",
        "{r:?}"
    );
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].server, "py");
        assert_eq!(asked[0].message, "Confirm paying 12 EUR");
        assert_eq!(
            asked[0].url.as_deref(),
            Some("https://pay.example.com/confirm?amount=12")
        );
        assert_eq!(asked[0].url_host().as_deref(), Some("pay.example.com"));
        assert!(asked[0].fields().unwrap().is_empty());
    }
    let r = mgr
        .call_tool("mcp__py__pay", json!({"amount": 13}), &cancel, None)
        .await;
    assert!(r.text().contains("payment decline"), "{}", r.text());
    let log = d.log("py");
    assert!(
        log.contains(
            "elicitation asked (URL https://pay.example.com/confirm?amount=12): Confirm paying 12 EUR"
        ),
        "{log}"
    );
    assert!(
        log.contains("elicitation (URL at pay.example.com) answered: accept"),
        "{log}"
    );
    mgr.shutdown().await;

    // Forms only: URL mode is not declared, and the request is declined
    // without reaching the asker.
    let forms = ElicitationModes {
        form: true,
        url: false,
    };
    let mgr = start(&d, forms);
    let (asker, asked) = scripted_asker(vec![ElicitationAnswer::accept(Default::default())]);
    mgr.set_elicitation_asker_modes(Some(asker), forms);
    ready(&mgr, "py").await;
    let r = mgr
        .call_tool("mcp__py__pay", json!({"amount": 14}), &cancel, None)
        .await;
    assert_eq!(
        r.text().trim(),
        "payment decline; declared form=True url=False",
        "{r:?}"
    );
    assert!(asked.lock().unwrap().is_empty());
    assert!(
        d.log("py")
            .contains("elicitation declined: URL mode was not declared to the server"),
        "{}",
        d.log("py")
    );
    mgr.shutdown().await;
}

/// A server's `sampling/createMessage` gets a JSON-RPC error at once
/// (zut declares no sampling): the Python SDK server's tool sees
/// `-32601` with the reason and answers; server-everything does not even offer
/// its sampling tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_is_refused_with_an_error_not_a_hang() {
    if !have_python_mcp() {
        return;
    }
    let d = python_server();
    let mgr = start(&d, ElicitationModes::NONE);
    ready(&mgr, "py").await;
    let cancel = CancellationToken::new();
    let t = Instant::now();
    let r = mgr
        .call_tool(
            "mcp__py__ask_model",
            json!({"question": "hi"}),
            &cancel,
            None,
        )
        .await;
    assert_eq!(
        r.text().trim(),
        "sampling refused: -32601 zut does not offer sampling (sampling/createMessage); \
         the sampling capability was not declared",
        "{r:?}"
    );
    assert!(
        d.log("py")
            .contains("sampling/createMessage refused: zut offers no sampling"),
        "{}",
        d.log("py")
    );
    // Not a timeout (the per-call timeout is 10 minutes).
    assert!(t.elapsed() < Duration::from_secs(60));
    mgr.shutdown().await;

    if !have("node", "node") {
        return;
    }
    let Some(nm) = node_modules() else { return };
    let d =
        Dirs::new(json!({"everything": {"command": "node", "args": [everything(&nm), "stdio"]}}));
    let mgr = start(&d, ElicitationModes::ALL);
    let (asker, asked) = scripted_asker(vec![ElicitationAnswer::decline()]);
    mgr.set_elicitation_asker(Some(asker));
    ready(&mgr, "everything").await;
    let names: Vec<String> = mgr.tools().into_iter().map(|t| t.name).collect();
    assert!(
        !names.iter().any(|n| n.contains("sampling")),
        "sampling tools offered though sampling is not declared: {names:?}"
    );
    // URL mode is declared: its URL tool is offered, and a decline
    // reaches it.
    assert!(
        names
            .iter()
            .any(|n| n == "mcp__everything__trigger-url-elicitation"),
        "{names:?}"
    );
    let r = mgr
        .call_tool(
            "mcp__everything__trigger-url-elicitation",
            json!({"url": "https://example.com/connect", "message": "Connect your account"}),
            &cancel,
            None,
        )
        .await;
    assert!(!r.is_error, "{r:?}");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked[0].url.as_deref(),
        Some("https://example.com/connect"),
        "{r:?}"
    );
    assert_eq!(asked[0].message, "Connect your account");
    assert!(r.text().to_lowercase().contains("decline"), "{}", r.text());
    mgr.shutdown().await;
}

/// Waits (at most 20 s) until `told` holds `n` entries.
async fn told_count(told: &Mutex<Vec<(u64, String)>>, n: usize) -> Vec<(u64, String)> {
    for _ in 0..400 {
        if told.lock().unwrap().len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    told.lock().unwrap().clone()
}

/// `notifications/elicitation/complete` from the Python SDK server (rmcp
/// 3.11 has no type for it; read as a custom notification): after an
/// accepted URL request the front end is told the flow finished; while
/// the request still waits for the user, the front end is told and the
/// dialog closes (the asker's future is dropped, the server gets
/// `cancel`); an id never sent is ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_completed_url_flow_is_told_and_closes_a_waiting_dialog() {
    if !have_python_mcp() {
        return;
    }
    let d = python_server();
    let cancel = CancellationToken::new();
    let mgr = start(&d, ElicitationModes::ALL);
    let told = Arc::new(Mutex::new(Vec::<(u64, String)>::new()));
    let sink = told.clone();
    mgr.set_elicitation_completer(Some(Arc::new(move |id, server: &str| {
        sink.lock().unwrap().push((id, server.to_string()));
    })));
    let (asker, asked) = scripted_asker(vec![ElicitationAnswer::accept(Default::default())]);
    mgr.set_elicitation_asker(Some(asker));
    ready(&mgr, "py").await;
    let r = mgr
        .call_tool("mcp__py__pay_done", json!({"amount": 5}), &cancel, None)
        .await;
    assert_eq!(r.text().trim(), "payment accept", "{r:?}");
    let first = asked.lock().unwrap()[0].id;
    assert_eq!(told_count(&told, 1).await, vec![(first, "py".to_string())]);
    let log = d.log("py");
    assert!(log.contains("elicitation \"done-5\" complete"), "{log}");
    assert!(
        log.contains("elicitation complete for an unknown or finished id \"nobody\": ignored"),
        "{log}"
    );

    // Finished elsewhere while the dialog is open: the asker shows it
    // (writes the file the server waits for) and never answers.
    let shown = d.project.path().join("shown");
    let marker = shown.clone();
    let open = Arc::new(Mutex::new(Vec::<u64>::new()));
    let dialogs = open.clone();
    let asker: zut_mcp::Asker = Arc::new(move |req| {
        dialogs.lock().unwrap().push(req.id);
        std::fs::write(&marker, "").unwrap();
        Box::pin(std::future::pending())
    });
    mgr.set_elicitation_asker(Some(asker));
    let r = mgr
        .call_tool(
            "mcp__py__pay_elsewhere",
            json!({"path": shown.display().to_string()}),
            &cancel,
            None,
        )
        .await;
    assert_eq!(r.text().trim(), "payment cancel", "{r:?}");
    let second = open.lock().unwrap()[0];
    assert_ne!(second, first);
    let told = told_count(&told, 2).await;
    assert_eq!(told.len(), 2, "{told:?}");
    assert_eq!(told[1], (second, "py".to_string()));
    let log = d.log("py");
    assert!(
        log.contains(
            "elicitation \"elsewhere\" complete before the user answered: the dialog closes"
        ),
        "{log}"
    );
    assert!(
        log.contains("elicitation closed: the server says its flow is complete"),
        "{log}"
    );
    mgr.shutdown().await;
}
