//! `zut -p` with MCP servers end to end: the real `zut` binary, the
//! scripted model (`zut-llm-server`) on 127.0.0.1 and real server processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::{Command, Stdio};

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};
use zut_test_support::{workspace_bin, TestEnv};

fn write_config(env: &TestEnv, config: Value) {
    std::fs::write(
        env.home.join("config.json"),
        serde_json::to_string_pretty(&config).unwrap(),
    )
    .unwrap();
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

async fn zut_p(env: &TestEnv, server: &LlmServer, prompt: &str) -> Out {
    let mut cmd = Command::new(workspace_bin("zut"));
    cmd.current_dir(&env.project)
        .env("ZUT_HOME", &env.home)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .args([
            "--provider",
            "anthropic",
            "--base-url",
            &server.url(),
            "--api-key",
            "sk-test",
            "--model",
            "test-model",
        ])
        .args(["--no-ext", "-p", prompt])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn tool_names(body: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(body).unwrap();
    v["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn tools_bytes(body: &str) -> usize {
    let v: Value = serde_json::from_str(body).unwrap();
    v["tools"].to_string().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_calls_an_mcp_tool_and_the_result_reaches_the_next_request() {
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    write_config(&env, json!({"mcpServers": {"fake": fake("normal", &[])}}));
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "mcp__fake__echo",
        r#"{"text":"pong-4711"}"#,
    ));
    server.push(Script::anthropic_text("The server said pong."));
    let r = zut_p(&env, &server, "ping the server").await;
    assert_eq!(r.code, 0, "stdout {} stderr {}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "The server said pong.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let second: Value = serde_json::from_str(&reqs[1].raw_body).unwrap();
    let last = second["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(last.contains("pong-4711"), "{last}");
    // By the second request the server is ready: its tools are offered.
    assert!(tool_names(&reqs[1].raw_body).contains(&"mcp__fake__echo".to_string()));
    assert!(env.home.join("logs/mcp-fake.log").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interception_applies_to_mcp_tools() {
    // An invalid argument is refused by zut's validation before the server
    // sees it, like for a built-in.
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    write_config(&env, json!({"mcpServers": {"fake": fake("normal", &[])}}));
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "mcp__fake__echo",
        r#"{"text": 5}"#,
    ));
    server.push(Script::anthropic_text("ok"));
    let r = zut_p(&env, &server, "go").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let second = &server.requests()[1].raw_body;
    assert!(
        second.contains("invalid arguments for tool \\\"mcp__fake__echo\\\""),
        "{second}"
    );
}

/// 200 tools: deferred behind the search tool; a search activates one, a
/// deferred tool called by its exact name runs. Prints the token figure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lazy_loading_with_200_tools() {
    if !have("python3", "python3") {
        return;
    }
    let run = |mode: &'static str| async move {
        let env = TestEnv::new();
        write_config(
            &env,
            json!({"mcp_tool_search": mode, "mcpServers": {"many": fake("many", &["200"])}}),
        );
        let server = LlmServer::start().await.unwrap();
        server.push(Script::anthropic_tool_call(
            "c1",
            "mcp_tool_search",
            r#"{"query":"tool_007"}"#,
        ));
        server.push(Script::anthropic_tool_call(
            "c2",
            "mcp__many__tool_123",
            r#"{"path":"a"}"#,
        ));
        server.push(Script::anthropic_text("done"));
        let r = zut_p(&env, &server, "use a tool").await;
        (r, server.requests())
    };
    let (r, lazy) = run("auto").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    let names = tool_names(&lazy[1].raw_body);
    assert!(names.contains(&"mcp_tool_search".to_string()), "{names:?}");
    assert!(
        names.contains(&"mcp__many__tool_007".to_string()),
        "{names:?}"
    );
    assert!(!names.contains(&"mcp__many__tool_008".to_string()));
    // The exact-name call of a deferred tool ran and loaded it.
    assert!(
        lazy[2].raw_body.contains("tool_123 ok"),
        "{}",
        lazy[2].raw_body
    );
    assert!(tool_names(&lazy[2].raw_body).contains(&"mcp__many__tool_123".to_string()));

    let (r, eager) = run("never").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(tool_names(&eager[1].raw_body).len() >= 200);
    let (l, e) = (
        tools_bytes(&lazy[1].raw_body),
        tools_bytes(&eager[1].raw_body),
    );
    let builtin = tools_bytes(&lazy[0].raw_body);
    let share = (l - builtin) as f64 / (e - builtin) as f64;
    println!(
        "FIGURE lazy 200 tools: MCP tool definitions {} bytes lazy (search tool + 1 activated) vs {} bytes all loaded = {:.2} %",
        l - builtin,
        e - builtin,
        share * 100.0
    );
    assert!(share <= 0.05, "{share}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untrusted_and_malformed_project_files() {
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    std::fs::write(
        env.project.join(".mcp.json"),
        serde_json::to_string(&json!({"mcpServers": {"proj": fake("normal", &[])}})).unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(env.project.join(".zut")).unwrap();
    std::fs::write(
        env.project.join(".zut/mcp.json"),
        "{\"mcpServers\": {\n  \"x\": {\"command\": }\n}}",
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__proj__echo",
        r#"{"text":"trusted-now"}"#,
    ));
    server.push(Script::anthropic_text("fine"));
    let r = zut_p(&env, &server, "hi").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "fine\n");
    assert!(r.stderr.contains("mcp.json:2:"), "{}", r.stderr);
    assert!(r.stderr.contains("zut mcp trust"), "{}", r.stderr);
    // Nothing started: the call is an unknown tool.
    let second = &server.requests()[1].raw_body;
    assert!(second.contains("unknown tool"), "{second}");
    assert!(
        !env.home.join("logs/mcp-proj.log").exists(),
        "an untrusted project server ran"
    );

    // After `zut mcp trust` it starts.
    let out = Command::new(workspace_bin("zut"))
        .current_dir(&env.project)
        .env("ZUT_HOME", &env.home)
        .args(["mcp", "trust"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("trusted proj"));
    server.push(Script::anthropic_tool_call(
        "c1",
        "mcp__proj__echo",
        r#"{"text":"trusted-now"}"#,
    ));
    server.push(Script::anthropic_text("fine"));
    let r = zut_p(&env, &server, "hi").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("zut mcp trust"), "{}", r.stderr);
    let fourth = &server.requests()[3].raw_body;
    assert!(fourth.contains("trusted-now"), "{fourth}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_prompt_as_slash_command() {
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    write_config(&env, json!({"mcpServers": {"fake": fake("normal", &[])}}));
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Hello, Ada!"));
    let r = zut_p(&env, &server, "/mcp__fake__greet Ada").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(server.requests()[0].raw_body.contains("Say hello to Ada."));
}

#[test]
fn cli_add_list_get_remove() {
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    let zut = |args: &[&str]| {
        let out = Command::new(workspace_bin("zut"))
            .current_dir(&env.project)
            .env("ZUT_HOME", &env.home)
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let script = fake_server().display().to_string();
    let (code, out, err) = zut(&[
        "mcp",
        "add",
        "--timeout",
        "5000",
        "fake",
        "python3",
        &script,
        "normal",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Added MCP server fake (stdio)"), "{out}");
    let cfg: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.join("config.json")).unwrap())
            .unwrap();
    assert_eq!(cfg["mcpServers"]["fake"]["args"][1], "normal");
    assert_eq!(cfg["mcpServers"]["fake"]["timeout"], 5000);
    let (code, out, _) = zut(&[
        "mcp",
        "add",
        "-s",
        "project",
        "-t",
        "http",
        "-H",
        "Authorization: Bearer ${TOKEN}",
        "remote",
        "http://127.0.0.1:9/mcp",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains(".mcp.json"));
    let (code, out, _) = zut(&["mcp", "list"]);
    assert_eq!(code, 0);
    assert!(out.contains("fake: python3"), "{out}");
    assert!(out.contains("ready, 6 tools"), "{out}");
    assert!(
        out.contains("remote: http://127.0.0.1:9/mcp (http, project) - failed"),
        "{out}"
    );
    let (_, out, _) = zut(&["mcp", "list", "--json"]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["servers"].as_array().unwrap().len(), 2);
    let (code, out, _) = zut(&["mcp", "get", "fake"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("mcp__fake__echo - Echo the text back."),
        "{out}"
    );
    assert!(out.contains("prompt /mcp__fake__greet"), "{out}");
    assert!(out.contains("resource mem://notes"), "{out}");
    let (code, _, _) = zut(&["mcp", "remove", "fake"]);
    assert_eq!(code, 0);
    let (code, _, err) = zut(&["mcp", "remove", "fake"]);
    assert_eq!(code, 1);
    assert!(err.contains("no MCP server named fake"));
    let (code, _, err) = zut(&["mcp", "get", "nothing"]);
    assert_eq!(code, 1);
    assert!(err.contains("no MCP server named nothing"));
}

/// `zut mcp serve`: a client speaking MCP over the real binary's stdio
/// (newline-delimited JSON-RPC, as the stdio transport is) lists the
/// built-in tools and calls `read` in the project directory; a path
/// outside the project's files is answered as a tool error, not a crash.
#[test]
fn zut_mcp_serve_answers_a_client_over_stdio() {
    use std::io::{BufRead, BufReader, Write};
    let env = TestEnv::new();
    std::fs::write(env.project.join("hello.txt"), "line one\nline two\n").unwrap();
    let mut child = Command::new(workspace_bin("zut"))
        .current_dir(&env.project)
        .env("ZUT_HOME", &env.home)
        .args(["mcp", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let mut answer = |id: i64| -> Value {
        loop {
            let mut line = String::new();
            assert!(out.read_line(&mut line).unwrap() > 0, "zut closed stdout");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    };
    send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"zut-test","version":"0"}}}),
    );
    let init = answer(1);
    assert!(init["result"]["serverInfo"]["name"].is_string(), "{init}");
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    send(json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}));
    let list = answer(2);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for needed in ["read", "write", "edit", "bash", "grep"] {
        assert!(names.contains(&needed), "{needed} missing: {names:?}");
    }
    send(
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{
        "name":"read","arguments":{"path":"hello.txt"}}}),
    );
    let read = answer(3);
    assert_eq!(read["result"]["isError"], json!(false), "{read}");
    assert!(read.to_string().contains("line two"), "{read}");
    send(
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{
        "name":"read","arguments":{"path":"missing.txt"}}}),
    );
    let missing = answer(4);
    assert_eq!(missing["result"]["isError"], json!(true), "{missing}");
    // End of input ends the server.
    drop(stdin);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("zut mcp serve did not exit at end of input");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "zut mcp serve exited with {status}");
}

/// `@server:uri` in a `-p` prompt: the resource's contents reach the
/// model's request with the prompt; an unknown server and a resource the
/// server refuses become lines saying so, and the prompt still goes out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mentions_attach_mcp_resources_to_the_prompt() {
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    write_config(&env, json!({"mcpServers": {"fake": fake("normal", &[])}}));
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("noted"));
    let r = zut_p(
        &env,
        &server,
        "what do @fake:mem://notes say? also @ghost:res://x and @fake:file:///nope.",
    )
    .await;
    assert_eq!(r.code, 0, "stdout {} stderr {}", r.stdout, r.stderr);
    let body: Value = serde_json::from_str(&server.requests()[0].raw_body).unwrap();
    let user = body["messages"][0].to_string();
    assert!(
        user.contains("what do @fake:mem://notes say?"),
        "the prompt is kept: {user}"
    );
    assert!(
        user.contains(
            r#"<mcp-resource server=\"fake\" uri=\"mem://notes\">\n[resource mem://notes]\nremember the milk\n</mcp-resource>"#
        ),
        "{user}"
    );
    assert!(
        user.contains(
            r#"[@ghost:res://x was not attached: no MCP server named \"ghost\" (configured: fake)]"#
        ),
        "{user}"
    );
    assert!(
        user.contains("[@fake:file:///nope was not attached: MCP server fake could not read it:")
            && user.contains("Resource not found: file:///nope")
            && user.contains("(it lists: mem://notes)"),
        "{user}"
    );
}

/// Two servers whose tools get the same zut name (`a` with `b__c`, `a__b`
/// with `c`: both `mcp__a__b__c`) and the same tool name on two servers:
/// `/mcp` names them and which one is used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_reports_tool_name_clashes() {
    if !have("python3", "python3") {
        return;
    }
    let env = TestEnv::new();
    write_config(
        &env,
        json!({"mcpServers": {
            "a": fake("normal", &[]),
            "b": fake("normal", &[]),
        }}),
    );
    let server = LlmServer::start().await.unwrap();
    let r = zut_p(&env, &server, "/mcp").await;
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Tool name clashes:\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "  echo: offered by server a as mcp__a__echo, server b as mcp__b__echo; each under its own name"
        ),
        "{}",
        r.stdout
    );
}

/// `zut mcp serve --jail` (and `jail_by_default`): the tools it serves run
/// under the jail, so a client cannot make zut's `bash` read a secret or
/// write outside the project; `--no-jail` overrides the default.
#[cfg(target_os = "linux")]
#[test]
fn zut_mcp_serve_runs_its_tools_under_the_jail() {
    let s = zut_sandbox::status();
    if !(s.enforced() && s.seccomp) {
        assert!(std::env::var_os("CI").is_none(), "{}", s.line());
        eprintln!("skipped: {}", s.line());
        return;
    }
    // Outside /tmp, which the jail makes writable.
    let base = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&base).unwrap();
    let root = tempfile::Builder::new()
        .prefix("serve-jail-")
        .tempdir_in(&base)
        .unwrap();
    let r = root.path().canonicalize().unwrap();
    let (project, home, outside) = (r.join("ws"), r.join("home"), r.join("outside"));
    let zut_home = home.join(".zut");
    for d in [&project, &outside, &zut_home, &home.join(".ssh")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".ssh/id_ed25519"), "FAKE-KEY-31337").unwrap();
    let run = |args: &[&str], calls: &[Value]| -> Vec<Value> {
        let mut child = Command::new(workspace_bin("zut"))
            .current_dir(&project)
            .env("ZUT_HOME", &zut_home)
            .env("HOME", &home)
            .arg("mcp")
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = String::new();
        input.push_str(
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-06-18","capabilities":{},
            "clientInfo":{"name":"zut-test","version":"0"}}})
            .to_string(),
        );
        input.push('\n');
        input.push_str(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string());
        input.push('\n');
        for (i, c) in calls.iter().enumerate() {
            input.push_str(
                &json!({"jsonrpc":"2.0","id": i + 1,"method":"tools/call","params": c}).to_string(),
            );
            input.push('\n');
        }
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        // Answers come before end of input is acted on: read them all on a
        // thread, close stdin once every answer is in.
        let want = calls.len();
        let reader = std::thread::spawn(move || {
            use std::io::BufRead;
            let mut answers = Vec::new();
            let mut lines = std::io::BufReader::new(&mut stdout).lines();
            while answers.len() < want {
                let Some(Ok(line)) = lines.next() else { break };
                let v: Value = serde_json::from_str(&line).unwrap();
                if v["id"].as_u64().is_some_and(|id| id >= 1) {
                    answers.push(v);
                }
            }
            answers
        });
        use std::io::Write;
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut answers = reader.join().unwrap();
        drop(stdin);
        let status = child.wait().unwrap();
        assert!(status.success(), "zut mcp serve exited with {status}");
        answers.sort_by_key(|v| v["id"].as_u64());
        answers
    };
    let calls = [
        json!({"name": "bash", "arguments": {"command": "cat ~/.ssh/id_ed25519", "timeout": 30}}),
        json!({"name": "bash", "arguments": {"command": format!("echo pwned > {}/new.txt", outside.display()), "timeout": 30}}),
        json!({"name": "read", "arguments": {"path": home.join(".ssh/id_ed25519").display().to_string()}}),
        json!({"name": "bash", "arguments": {"command": "echo fine > inside.txt && cat inside.txt", "timeout": 30}}),
    ];
    for args in [&["--jail"][..], &[][..]] {
        if args.is_empty() {
            std::fs::write(zut_home.join("config.json"), r#"{"jail_by_default": true}"#).unwrap();
        }
        let a = run(args, &calls);
        assert_eq!(a.len(), 4, "{a:?}");
        let text = |i: usize| a[i]["result"].to_string();
        assert!(!text(0).contains("FAKE-KEY-31337"), "{}", text(0));
        assert!(text(0).contains("denied by the jail"), "{}", text(0));
        assert!(!outside.join("new.txt").exists(), "{}", text(1));
        assert!(text(1).contains("denied by the jail"), "{}", text(1));
        assert_eq!(a[2]["result"]["isError"], json!(true), "{}", text(2));
        assert!(!text(2).contains("FAKE-KEY-31337"), "{}", text(2));
        assert!(text(3).contains("fine"), "{}", text(3));
        assert_eq!(a[3]["result"]["isError"], json!(false), "{}", text(3));
    }
    // --no-jail wins over jail_by_default: the same command reads the key.
    let a = run(&["--no-jail"], &calls[..1]);
    assert!(
        a[0]["result"].to_string().contains("FAKE-KEY-31337"),
        "{a:?}"
    );
}
