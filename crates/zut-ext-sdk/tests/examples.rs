//! End-to-end tests of the example extensions: each is spawned as a real
//! process and driven over its stdin/stdout by a fake host.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::{ack, example_bin, example_dir, have, manifest, types, Host};
use serde_json::json;
use zut_protocol::{
    CommandInvoked, Event, EventIntercept, HelloAck, HostFrame, PanelKey, ToolCall,
};

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

fn key(panel_id: &str, key: &str, text: &str) -> HostFrame {
    HostFrame::PanelKey(PanelKey {
        panel_id: panel_id.into(),
        key: key.into(),
        text: text.into(),
    })
}

fn rust_example(dir: &str, bin: &str) -> Host {
    let mut command = Command::new(example_bin(bin));
    command.current_dir(example_dir(dir));
    Host::spawn(command)
}

#[test]
fn rust_manifests_exec_their_binary() {
    for (dir, name, bin) in [
        ("hello", "hello", "./hello"),
        ("guard", "guard", "./guard"),
        ("todo", "todo-panel", "./todo"),
    ] {
        let manifest = manifest(&example_dir(dir));
        assert_eq!(manifest["name"], name);
        assert_eq!(manifest["exec"], bin);
        assert_eq!(manifest["language"], "rust");
        assert!(example_dir(dir).join("README.md").is_file(), "{dir} README");
    }
}

#[test]
fn hello_example_commands_tool_and_shutdown() {
    let mut host = rust_example("hello", "hello");
    let hello = host.expect_hello();
    assert_eq!(hello.json["name"], "hello");
    host.send(&HostFrame::HelloAck(HelloAck {
        cwd: "/home/u/proj".into(),
        ..ack()
    }));
    let mut frames = Vec::new();
    loop {
        let line = host.next();
        let ready = line.json["type"] == "ready";
        frames.push(line);
        if ready {
            break;
        }
    }
    assert_eq!(
        types(&frames),
        [
            "register_command",
            "register_command",
            "register_tool",
            "ready"
        ]
    );
    assert_eq!(frames[0].json["name"], "hello");
    assert_eq!(frames[1].json["name"], "cwd");
    assert_eq!(frames[2].json["name"], "greet");

    assert_eq!(
        invoke(&mut host, "1", "hello", ""),
        json!({"type":"command_response","id":"1","action":"prompt","prompt":"Greet me in one short sentence."})
    );
    assert_eq!(invoke(&mut host, "2", "cwd", "")["display"], "/home/u/proj");
    assert_eq!(
        call(&mut host, "3", "greet", json!({"name":"Ada"})),
        json!({"type":"tool_result","id":"3","content":[{"type":"text","text":"Hello, Ada!"}]})
    );
    assert_eq!(call(&mut host, "4", "greet", json!({}))["is_error"], true);
    host.shutdown();
}

#[test]
fn guard_example_refuses_rewrites_and_allows() {
    let mut host = rust_example("guard", "guard");
    let frames = host.handshake();
    assert_eq!(
        frames[0].json,
        json!({"type":"subscribe","events":["tool_call"],"intercept":["tool_call"]})
    );
    assert_eq!(types(&frames), ["subscribe", "ready"]);

    let bash = |id: &str, command: &str| {
        HostFrame::EventIntercept(EventIntercept {
            id: id.into(),
            event: "tool_call".into(),
            tool_id: format!("t-{id}"),
            tool_name: "bash".into(),
            tool_args: Some(json!({"command": command, "timeout": 30})),
            ..EventIntercept::default()
        })
    };
    // A one-way event never gets an answer; the next frame is the reply
    // to the intercept that follows it.
    host.send(&HostFrame::Event(Event {
        tool_id: "t-0".into(),
        tool_name: "bash".into(),
        tool_args: Some(json!({"command":"ls"})),
        ..Event::named("tool_call")
    }));
    host.send(&bash("1", "rm -rf /tmp/foo"));
    assert_eq!(
        host.until("event_intercept_response").json,
        json!({"type":"event_intercept_response","id":"1","block":true,
               "reason":"refused: matches danger pattern \"rm -rf\""})
    );
    for (id, command, label) in [
        ("2", "mkfs.ext4 /dev/sdb1", "mkfs"),
        ("3", "dd if=/dev/zero of=/dev/sda", "dd of=/dev/"),
        ("4", ":(){ :|:& };:", "fork bomb"),
        ("5", "echo x > /dev/sda", "> /dev/sd"),
        ("6", "chmod -R 777 /", "chmod -R 777 /"),
    ] {
        host.send(&bash(id, command));
        let reply = host.until("event_intercept_response").json;
        assert_eq!(reply["id"], id);
        assert_eq!(reply["block"], true);
        assert_eq!(
            reply["reason"],
            format!("refused: matches danger pattern {label:?}")
        );
    }
    host.send(&bash("7", "git push --force origin main"));
    assert_eq!(
        host.until("event_intercept_response").json,
        json!({"type":"event_intercept_response","id":"7",
               "modified_args":{"command":"git push --force-with-lease origin main","timeout":30}})
    );
    host.send(&bash("8", "ls -la"));
    assert_eq!(
        host.until("event_intercept_response").json,
        json!({"type":"event_intercept_response","id":"8"})
    );
    host.send(&HostFrame::EventIntercept(EventIntercept {
        id: "9".into(),
        event: "tool_call".into(),
        tool_name: "read".into(),
        tool_args: Some(json!({"path":"rm -rf"})),
        ..EventIntercept::default()
    }));
    assert_eq!(
        host.until("event_intercept_response").json,
        json!({"type":"event_intercept_response","id":"9"})
    );
    host.shutdown();
}

#[test]
fn todo_example_panel_tool_status_and_persistence() {
    let data = tempfile::tempdir().unwrap();
    let data_dir = data.path().to_str().unwrap().to_string();
    let hello_ack = HelloAck {
        data_dir: data_dir.clone(),
        extension_dir: data_dir.clone(),
        ..ack()
    };

    let mut host = rust_example("todo", "todo");
    assert_eq!(host.expect_hello().json["name"], "todo-panel");
    host.send(&HostFrame::HelloAck(hello_ack.clone()));
    let frames = {
        let mut frames = Vec::new();
        loop {
            let line = host.next();
            let ready = line.json["type"] == "ready";
            frames.push(line);
            if ready {
                break frames;
            }
        }
    };
    // Empty list: no status yet.
    assert_eq!(
        types(&frames),
        ["register_command", "register_tool", "ready"]
    );
    assert_eq!(frames[0].json["name"], "todos");
    assert_eq!(frames[1].json["name"], "todos");

    // The model adds two items through the tool.
    let result = call(
        &mut host,
        "t1",
        "todos",
        json!({"action":"add","text":"ship panel api"}),
    );
    assert_eq!(
        result["details"],
        json!({"version":1,"items":[{"text":"ship panel api","done":false}]})
    );
    call(
        &mut host,
        "t2",
        "todos",
        json!({"action":"add","text":"persist state"}),
    );

    // The user opens the panel and completes the second item.
    let reply = invoke(&mut host, "c1", "todos", "");
    assert_eq!(reply["action"], "open_panel");
    let panel = &reply["open_panel"];
    assert_eq!(panel["id"], "todos-main");
    assert_eq!(
        panel["lines"],
        json!(["▸ □ ship panel api", "  □ persist state"])
    );
    host.send(&key("todos-main", "down", ""));
    let render = host.until("panel_render").json;
    assert_eq!(
        render["lines"],
        json!(["  □ ship panel api", "▸ □ persist state"])
    );
    host.send(&key("todos-main", "rune", "x"));
    let status = host.until("status").json;
    assert_eq!(
        status,
        json!({"type":"status","key":"todos","text":"1/2 done"})
    );
    let render = host.until("panel_render").json;
    assert_eq!(
        render["lines"],
        json!(["  □ ship panel api", "▸ ✓ persist state"])
    );

    // Adding from the panel: a, type, enter.
    host.send(&key("todos-main", "rune", "a"));
    host.until("panel_render");
    for c in ["t", "e", "a"] {
        host.send(&key("todos-main", "rune", c));
        host.until("panel_render");
    }
    host.send(&key("todos-main", "enter", ""));
    assert_eq!(host.until("status").json["text"], "1/3 done");
    host.until("panel_render");

    // The tool sees the panel's edits and completes one more item.
    let result = call(
        &mut host,
        "t3",
        "todos",
        json!({"action":"complete","index":1}),
    );
    assert_eq!(
        result["content"][0]["text"],
        "Completed #1.\n1. [x] ship panel api\n2. [x] persist state\n3. [ ] tea"
    );
    assert_eq!(result["details"]["version"], 5);
    let bad = call(
        &mut host,
        "t4",
        "todos",
        json!({"action":"complete","index":9}),
    );
    assert_eq!(bad["is_error"], true);
    host.send(&HostFrame::PanelClose(zut_protocol::PanelClose {
        panel_id: "todos-main".into(),
    }));
    host.shutdown();

    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.path().join("todos.json")).unwrap()).unwrap();
    assert_eq!(saved["version"], 5);
    assert_eq!(saved["items"].as_array().unwrap().len(), 3);

    // A new process starts from the saved list and shows its status.
    let mut host = rust_example("todo", "todo");
    let frames = host.handshake_with(hello_ack);
    assert_eq!(
        frames[0].json,
        json!({"type":"status","key":"todos","text":"2/3 done"})
    );
    let list = call(&mut host, "t5", "todos", json!({"action":"list"}));
    assert_eq!(list["details"]["items"][2]["text"], "tea");
    host.shutdown();
}

#[test]
fn hello_py_example_matches_the_quick_start() {
    if !have("python3") {
        eprintln!("skipped: python3 is not installed");
        return;
    }
    let dir = example_dir("hello-py");
    let manifest = manifest(&dir);
    assert_eq!(manifest["exec"], "./hello.py");
    let mut command = Command::new(dir.join("hello.py"));
    command.current_dir(&dir);
    let mut host = Host::spawn(command);
    let hello = host.expect_hello();
    assert_eq!(
        hello.json,
        json!({"type":"hello","protocol_version":2,"name":"hello-py","version":"1.0.0","capabilities":["commands"]})
    );
    host.send(&HostFrame::HelloAck(ack()));
    assert_eq!(
        host.next().json,
        json!({"type":"register_command","name":"hellopy","description":"say hi (python)"})
    );
    assert_eq!(host.next().json, json!({"type":"ready"}));
    assert_eq!(
        invoke(&mut host, "p1", "hellopy", ""),
        json!({"type":"command_response","id":"p1","action":"prompt","prompt":"Greet me very briefly in one sentence."})
    );
    host.shutdown();
}

#[test]
fn clock_example_in_plain_node() {
    if !have("node") {
        eprintln!("skipped: node is not installed");
        return;
    }
    let dir = example_dir("clock");
    let manifest = manifest(&dir);
    assert_eq!(manifest["exec"], "node");
    assert_eq!(manifest["args"], json!(["clock.js"]));
    let mut command = Command::new("node");
    command.arg("clock.js").current_dir(&dir);
    let mut host = Host::spawn(command);
    let frames = host.handshake();
    let names: Vec<_> = frames.iter().map(|f| f.json["name"].clone()).collect();
    assert_eq!(
        names,
        [json!("clock"), json!("timer"), json!("timers"), json!(null)]
    );

    let reply = invoke(&mut host, "1", "clock", "");
    assert_eq!(reply["action"], "display");
    let text = reply["display"].as_str().unwrap();
    assert!(
        text.starts_with("It is ") && text.contains("(UTC"),
        "{text}"
    );

    let reply = invoke(&mut host, "2", "timer", "soon");
    assert_eq!(reply["error"], "usage: /timer <seconds|Ns|Nm|Nh> [label]");
    let reply = invoke(&mut host, "3", "timer", "0 tea");
    assert_eq!(reply["display"], "⏱ tea: 0s");
    // The zero-length timer fires: a note, then a bell.
    assert_eq!(
        host.until("notify").json,
        json!({"type":"notify","level":"success","message":"⏰ tea is done"})
    );
    assert_eq!(
        host.next().json,
        json!({"type":"alert","kind":"bell","reason":"timer_done"})
    );
    let reply = invoke(&mut host, "4", "timers", "");
    assert_eq!(reply["display"], "No timers running.");
    assert_eq!(
        invoke(&mut host, "5", "nope", "")["error"],
        "no handler for /nope"
    );
    host.shutdown();
}
