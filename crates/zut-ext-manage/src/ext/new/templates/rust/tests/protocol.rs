//! Drives the built extension over pipes like zut does: cargo test

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn command_tool_and_shutdown() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_{{name}}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = || -> serde_json::Value { serde_json::from_str(&lines.next().expect("line").expect("read")).expect("json") };
    assert_eq!(next()["type"], "hello");
    for frame in [
        r#"{"type":"hello_ack","protocol_version":2}"#,
        r#"{"type":"tool_call","id":"t1","name":"{{tool}}","args":{"text":"hi"}}"#,
    ] {
        writeln!(stdin, "{frame}").expect("write");
    }
    let reply = loop {
        let f = next();
        if f["type"] == "tool_result" {
            break f;
        }
    };
    assert_eq!(reply["content"][0]["text"], "hi");
    writeln!(stdin, r#"{{"type":"shutdown"}}"#).expect("write");
    assert_eq!(next()["type"], "shutdown_ack");
    drop(stdin);
    assert!(child.wait().expect("wait").success());
}
