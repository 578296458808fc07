//! Exact frames produced by the one-way helpers, command responses and
//! tool results (conformance O4, O5, O8).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::mpsc;

use common::Host;
use serde_json::json;
use zut_ext_sdk::{
    panel, AlertKind, Extension, Level, Response, SdkError, ToolResult, WidgetPosition,
};
use zut_protocol::{CommandInvoked, HostFrame, ToolCall};

fn invoke(host: &mut Host, id: &str, name: &str, args: &str) -> serde_json::Value {
    host.send(&HostFrame::CommandInvoked(CommandInvoked {
        id: id.into(),
        name: name.into(),
        args: args.into(),
    }));
    host.until("command_response").json
}

fn call(host: &mut Host, id: &str, name: &str, args: serde_json::Value) -> serde_json::Value {
    host.send(&HostFrame::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        args,
    }));
    host.until("tool_result").json
}

#[test]
fn o4_one_way_helpers_emit_exact_frames() {
    let ext = Extension::new("chrome", "1");
    let handle = ext.handle();
    let mut host = Host::start(ext);
    host.handshake();

    let sent: Vec<Result<(), SdkError>> = vec![
        handle.open_panel(panel(
            "gate",
            "Approve?",
            ["  y  approve", "  n  deny"],
            "y/n",
        )),
        handle.set_status("progress", "2/4 tasks"),
        handle.clear_status("progress"),
        handle.set_widget("plan", WidgetPosition::AboveInput, "Plan", ["one"]),
        handle.clear_widget("plan"),
        handle.alert(AlertKind::Bell, "question_ready"),
        handle.notify(Level::Warn, "careful"),
        handle.submit("Summarize the workspace."),
        handle.submit_slash("/reload-ext"),
        handle.clear_notes(),
        handle.render_panel(panel("gate", "", ["redrawn"], "")),
        handle.close_panel("gate"),
    ];
    assert!(sent.iter().all(Result::is_ok), "{sent:?}");

    let expected = [
        json!({"type":"open_panel","panel":{"id":"gate","title":"Approve?","lines":["  y  approve","  n  deny"],"footer":"y/n"}}),
        json!({"type":"status","key":"progress","text":"2/4 tasks"}),
        json!({"type":"status","key":"progress","text":""}),
        json!({"type":"widget","id":"plan","position":"above_input","title":"Plan","lines":["one"]}),
        json!({"type":"widget_clear","id":"plan"}),
        json!({"type":"alert","kind":"bell","reason":"question_ready"}),
        json!({"type":"notify","level":"warn","message":"careful"}),
        json!({"type":"submit","text":"Summarize the workspace."}),
        json!({"type":"submit_slash","text":"/reload-ext"}),
        json!({"type":"clear_notes"}),
        json!({"type":"panel_render","panel_id":"gate","lines":["redrawn"]}),
        json!({"type":"panel_close","panel_id":"gate"}),
    ];
    for want in expected {
        assert_eq!(host.next().json, want);
    }
    host.shutdown();
}

#[test]
fn handle_refuses_to_send_outside_run() {
    let ext = Extension::new("idle", "1");
    let handle = ext.handle();
    assert!(matches!(
        handle.notify(Level::Info, "too early"),
        Err(SdkError::NotConnected)
    ));
    let mut host = Host::start(ext);
    host.handshake();
    host.shutdown();
    assert!(matches!(
        handle.set_status("k", "too late"),
        Err(SdkError::NotConnected)
    ));
}

#[test]
fn response_helpers_map_to_command_response_actions() {
    let mut ext = Extension::new("responses", "1");
    ext.command("respond", "", |args, _| match args {
        "prompt" => Response::prompt("P"),
        "insert" => Response::insert("I"),
        "display" => Response::display("D"),
        "panel" => Response::open_panel(panel("todos-main", "Todos", ["□ a"], "esc close")),
        "error" => Response::error("bad input"),
        _ => Response::noop(),
    });
    let mut host = Host::start(ext);
    host.handshake();
    let cases = [
        ("prompt", json!({"action":"prompt","prompt":"P"})),
        ("insert", json!({"action":"insert","insert":"I"})),
        ("display", json!({"action":"display","display":"D"})),
        (
            "panel",
            json!({"action":"open_panel","open_panel":{"id":"todos-main","title":"Todos","lines":["□ a"],"footer":"esc close"}}),
        ),
        ("error", json!({"action":"noop","error":"bad input"})),
        ("", json!({"action":"noop"})),
    ];
    for (i, (args, fields)) in cases.into_iter().enumerate() {
        let id = format!("r{i}");
        let mut want = json!({"type":"command_response","id":id});
        want.as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        assert_eq!(invoke(&mut host, &id, "respond", args), want);
    }
    host.shutdown();
}

#[test]
fn o5_tool_details_are_sent_verbatim() {
    let mut ext = Extension::new("details-ext", "1");
    ext.tool("details", "", json!({"type":"object"}), |_, _| {
        ToolResult::text("ok").with_details(json!({"state":1}))
    });
    ext.tool("clear", "", json!({"type":"object"}), |_, _| {
        ToolResult::text("cleared").with_details(serde_json::Value::Null)
    });
    let mut host = Host::start(ext);
    host.handshake();
    let result = call(&mut host, "call-1", "details", json!({}));
    assert_eq!(
        result,
        json!({"type":"tool_result","id":"call-1","content":[{"type":"text","text":"ok"}],"details":{"state":1}})
    );
    let result = call(&mut host, "call-2", "clear", json!({}));
    assert_eq!(result["details"], serde_json::Value::Null);
    assert!(result.as_object().unwrap().contains_key("details"));
    host.shutdown();
}

#[test]
fn o8_deferred_tool_and_activate_tools() {
    let mut ext = Extension::new("deferred-ext", "1");
    ext.deferred_tool(
        "weather",
        "weather lookup",
        json!({"type":"object"}),
        |_, _| ToolResult::text("sunny"),
    );
    ext.tool(
        "search_tools",
        "find tools",
        json!({"type":"object"}),
        |_, _| ToolResult::text("enabled").with_activate_tools(["weather"]),
    );
    let mut host = Host::start(ext);
    let frames = host.handshake();
    assert_eq!(frames[0].json["name"], "weather");
    assert_eq!(frames[0].json["deferred"], true);
    assert!(frames[1].json.get("deferred").is_none());
    let result = call(&mut host, "call-1", "search_tools", json!({}));
    assert_eq!(result["activate_tools"], json!(["weather"]));
    assert!(result.get("is_error").is_none());
    host.shutdown();
}

#[test]
fn tool_results_carry_images_and_errors() {
    let mut ext = Extension::new("blocks", "1");
    ext.tool("pic", "", json!({"type":"object"}), |args, _| {
        ToolResult::text("a picture")
            .with_image("image/png", b"\x89PNG")
            .with_image_base64("image/gif", "R0lG")
            .with_text(args["caption"].as_str().unwrap_or("none").to_string())
    });
    ext.tool("fail", "", json!({"type":"object"}), |_, _| {
        ToolResult::error("city is required")
    });
    let mut host = Host::start(ext);
    host.handshake();
    let result = call(&mut host, "1", "pic", json!({"caption":"cap"}));
    assert_eq!(
        result["content"],
        json!([
            {"type":"text","text":"a picture"},
            {"type":"image","mime_type":"image/png","data":"iVBORw=="},
            {"type":"image","mime_type":"image/gif","data":"R0lG"},
            {"type":"text","text":"cap"},
        ])
    );
    let result = call(&mut host, "2", "fail", json!({}));
    assert_eq!(
        result,
        json!({"type":"tool_result","id":"2","content":[{"type":"text","text":"city is required"}],"is_error":true})
    );
    host.shutdown();
}

#[test]
fn frames_from_many_threads_never_interleave() {
    let ext = Extension::new("busy", "1");
    let handle = ext.handle();
    let mut host = Host::start(ext);
    host.handshake();
    let (done_tx, done_rx) = mpsc::channel();
    let big = "x".repeat(100_000);
    for t in 0..4 {
        let handle = handle.clone();
        let done = done_tx.clone();
        let big = big.clone();
        std::thread::spawn(move || {
            for i in 0..25 {
                handle
                    .notify(Level::Info, format!("{t}-{i}-{big}"))
                    .unwrap();
            }
            done.send(()).unwrap();
        });
    }
    for _ in 0..100 {
        let line = host.next();
        assert_eq!(line.json["type"], "notify");
        assert!(line.json["message"].as_str().unwrap().ends_with(&big));
    }
    for _ in 0..4 {
        done_rx.recv().unwrap();
    }
    host.shutdown();
}
