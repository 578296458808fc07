//! Handshake, registration order and termination (conformance O1, O2,
//! O3, O11) plus the 4 MiB line cap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{ack, types, Host};
use serde_json::json;
use zut_ext_sdk::{
    AssistantMessageDecision, Extension, Response, ToolResult, TurnStartDecision, CAPABILITIES,
};
use zut_protocol::{CommandInvoked, HelloAck, HostFrame};

#[test]
fn hello_announces_protocol_2_name_version_and_go_capabilities() {
    let mut host = Host::start(Extension::new("greeter", "1.2.3"));
    let hello = host.expect_hello();
    assert_eq!(
        hello.json,
        json!({
            "type": "hello", "protocol_version": 2, "name": "greeter", "version": "1.2.3",
            "capabilities": ["commands","tools","events","alerts","panels","session_state","status","widgets"],
        })
    );
    assert_eq!(CAPABILITIES.len(), 8);
    host.send(&HostFrame::HelloAck(ack()));
    assert_eq!(types(&[host.next()]), ["ready"]);
    host.shutdown();
}

#[test]
fn o1_wrong_host_protocol_version_fails_run() {
    let mut host = Host::start(Extension::new("versioned", "1"));
    host.expect_hello();
    host.send(&HostFrame::HelloAck(HelloAck {
        protocol_version: 1,
        ..ack()
    }));
    assert!(
        host.try_next().is_none(),
        "nothing may follow a refused hello_ack"
    );
    let err = host.finish().unwrap_err();
    assert!(err.contains("unsupported host protocol version 1"), "{err}");
}

#[test]
fn o1_first_host_line_not_hello_ack_is_fatal() {
    for first in [
        &b"{\"type\":\"shutdown\"}\n"[..],
        b"{\"type\":\"bogus\"}\n",
        b"not json\n",
        b"{\"type\":\"hello_ack\"}\n",
    ] {
        let mut host = Host::start(Extension::new("strict", "1"));
        host.expect_hello();
        host.send_bytes(first);
        assert!(host.try_next().is_none());
        let err = host.finish().unwrap_err();
        assert!(
            err.contains("unsupported host protocol version"),
            "{}: {err}",
            String::from_utf8_lossy(first)
        );
    }
}

#[test]
fn o2_on_hello_registers_with_host_info_before_ready() {
    let mut ext = Extension::new("cwd-ext", "1");
    let handle = ext.handle();
    assert!(handle.host_info().is_none());
    ext.command("first", "registered before run", |_, _| Response::noop());
    ext.on_hello(|ext, host| {
        let cwd = host.cwd.clone();
        ext.command("cwd", "show cwd", move |_, _| {
            Response::display(cwd.clone())
        });
    });
    let mut host = Host::start(ext);
    let frames = host.handshake_with(HelloAck {
        cwd: "/work/project".into(),
        data_dir: "/data/cwd-ext".into(),
        extension_dir: "/data/cwd-ext".into(),
        ..ack()
    });
    assert_eq!(
        types(&frames),
        ["register_command", "register_command", "ready"]
    );
    assert_eq!(frames[1].json["name"], "cwd");

    let info = handle.host_info().expect("host info after handshake");
    assert_eq!(info.cwd, "/work/project");
    assert_eq!(info.data_dir, "/data/cwd-ext");
    assert_eq!(info.extension_dir, "/data/cwd-ext");
    assert_eq!(info.protocol_version, 2);
    assert_eq!(info.zut_version, "0.0.0-test");
    assert_eq!(info.provider, "anthropic");
    assert_eq!(info.model, "claude-test");

    host.send(&HostFrame::CommandInvoked(CommandInvoked {
        id: "c1".into(),
        name: "cwd".into(),
        args: String::new(),
    }));
    let reply = host.until("command_response");
    assert_eq!(
        reply.json,
        json!({"type":"command_response","id":"c1","action":"display","display":"/work/project"})
    );
    host.shutdown();
}

#[test]
fn o3_registration_frames_come_in_protocol_order() {
    let schema = json!({"type":"object"});
    let mut ext = Extension::new("order", "1");
    // Interleave registrations: the SDK still sends commands, then tools.
    ext.tool("t1", "tool one", schema.clone(), |_, _| {
        ToolResult::text("1")
    });
    ext.command("c1", "command one", |_, _| Response::noop());
    ext.deferred_tool("t2", "tool two", schema.clone(), |_, _| {
        ToolResult::text("2")
    });
    ext.command("c2", "command two", |_, _| Response::noop());
    ext.on_event("turn_end", |_| {});
    ext.on_event("session_opened", |_| {});
    ext.intercept_assistant_message(|_| AssistantMessageDecision::allow());
    ext.intercept_turn_start(|_| TurnStartDecision::allow());
    ext.intercept_tool_call(|_, _| (true, String::new()));
    let mut host = Host::start(ext);
    let frames = host.handshake();
    let json: Vec<_> = frames.iter().map(|l| l.json.clone()).collect();
    assert_eq!(
        json,
        vec![
            json!({"type":"register_command","name":"c1","description":"command one"}),
            json!({"type":"register_command","name":"c2","description":"command two"}),
            json!({"type":"register_tool","name":"t1","description":"tool one","schema":{"type":"object"}}),
            json!({"type":"register_tool","name":"t2","description":"tool two","schema":{"type":"object"},"deferred":true}),
            json!({"type":"subscribe","events":["turn_end","session_opened"],
                   "intercept":["tool_call","turn_start","assistant_message"]}),
            json!({"type":"ready"}),
        ]
    );
    host.shutdown();
}

#[test]
fn o3_no_subscribe_frame_when_nothing_is_subscribed() {
    let mut ext = Extension::new("plain", "1");
    ext.command("c", "", |_, _| Response::noop());
    let mut host = Host::start(ext);
    assert_eq!(types(&host.handshake()), ["register_command", "ready"]);
    host.shutdown();
}

#[test]
fn o3_subscribe_lists_only_the_interceptors_that_exist() {
    let mut ext = Extension::new("guard-only", "1");
    ext.intercept_turn_start(|_| TurnStartDecision::allow());
    let mut host = Host::start(ext);
    let frames = host.handshake();
    assert_eq!(
        frames[0].json,
        json!({"type":"subscribe","intercept":["turn_start"]})
    );
    host.shutdown();
}

#[test]
fn on_all_events_subscribes_to_every_lifecycle_event() {
    let mut ext = Extension::new("all", "1");
    ext.on_event("turn_end", |_| {});
    ext.on_all_events(|_| {});
    let mut host = Host::start(ext);
    let frames = host.handshake();
    let events: Vec<&str> = frames[0].json["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(events[0], "turn_end");
    let mut sorted = events.clone();
    sorted.sort_unstable();
    let mut expected = zut_protocol::LIFECYCLE_EVENTS.to_vec();
    expected.sort_unstable();
    assert_eq!(sorted, expected);
    host.shutdown();
}

#[test]
fn o11_shutdown_is_acknowledged_and_run_succeeds() {
    let mut host = Host::start(Extension::new("bye", "1"));
    host.handshake();
    host.send(&HostFrame::Shutdown);
    assert_eq!(types(&[host.next()]), ["shutdown_ack"]);
    // run returned: the SDK dropped its writer, so stdout reaches EOF even
    // though stdin is still open.
    assert!(host.try_next().is_none());
    host.finish().unwrap();
}

#[test]
fn o11_stdin_eof_ends_run_successfully() {
    let mut host = Host::start(Extension::new("eof", "1"));
    host.handshake();
    host.close_stdin();
    assert!(host.try_next().is_none());
    host.finish().unwrap();
}

#[test]
fn stdin_eof_before_hello_ack_ends_run_successfully() {
    let mut host = Host::start(Extension::new("early-eof", "1"));
    host.expect_hello();
    host.close_stdin();
    assert!(host.try_next().is_none());
    host.finish().unwrap();
}

#[test]
fn host_lines_are_capped_at_4_mib() {
    let mut host = Host::start(Extension::new("capped", "1"));
    host.handshake();
    // A line of exactly 4 MiB including its LF is accepted (an unknown
    // frame, logged and skipped)...
    let limit = zut_protocol::limits::MAX_INBOUND_LINE;
    let prefix = b"{\"type\":\"x\",\"pad\":\"";
    let suffix = b"\"}\n";
    let mut line = prefix.to_vec();
    line.resize(limit - suffix.len(), b'a');
    line.extend_from_slice(suffix);
    assert_eq!(line.len(), limit);
    host.send_bytes(&line);
    host.send(&HostFrame::CommandInvoked(CommandInvoked {
        id: "after".into(),
        name: "missing".into(),
        args: String::new(),
    }));
    assert_eq!(host.until("command_response").json["id"], "after");
    // ...one byte more is fatal.
    let mut too_long = prefix.to_vec();
    too_long.resize(limit + 1 - suffix.len(), b'a');
    too_long.extend_from_slice(suffix);
    host.send_bytes(&too_long);
    assert!(host.try_next().is_none());
    let err = host.finish().unwrap_err();
    assert!(err.contains("exceeds"), "{err}");
}

#[test]
fn malformed_and_unknown_host_frames_are_skipped() {
    let mut ext = Extension::new("tolerant", "1");
    ext.command("ping", "", |args, _| {
        Response::display(format!("pong {args}"))
    });
    let mut host = Host::start(ext);
    host.handshake();
    host.send_bytes(b"garbage\n\n{\"type\":\"panel_resize\",\"panel_id\":\"p\",\"width\":1,\"height\":2}\n{\"type\":\"future_frame\"}\r\n");
    host.send(&HostFrame::HelloAck(ack()));
    host.send(&HostFrame::CommandInvoked(CommandInvoked {
        id: "p1".into(),
        name: "ping".into(),
        args: "x".into(),
    }));
    assert_eq!(host.next().json["display"], "pong x");
    host.shutdown();
}
