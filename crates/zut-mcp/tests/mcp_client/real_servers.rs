//! The client against real servers from the package registries, installed
//! by `.ci/run`: `@modelcontextprotocol/server-everything` (stdio,
//! streamable HTTP, legacy SSE), `@modelcontextprotocol/server-filesystem`
//! and a FastMCP server written with the official `mcp` Python package.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use common::*;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use zut_mcp::{McpContent, McpSettings};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child killed on drop (the HTTP servers the tests start themselves).
struct Spawned(std::process::Child);
impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn wait_port(port: u16) {
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("nothing listens on {port}");
}

async fn check_echo(mgr: &zut_mcp::McpManager, server: &str) {
    let r = mgr
        .call_tool(
            &format!("mcp__{server}__echo"),
            json!({"message": "hi from zut"}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(!r.is_error, "{r:?}");
    assert_eq!(r.text(), "Echo: hi from zut");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_stdio() {
    if !have("node", "node") {
        return;
    }
    let Some(nm) = node_modules() else { return };
    let d =
        Dirs::new(json!({"everything": {"command": "node", "args": [everything(&nm), "stdio"]}}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "everything").await;
    let names: Vec<String> = mgr.tools().into_iter().map(|t| t.name).collect();
    for n in [
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__everything__get-tiny-image",
    ] {
        assert!(names.contains(&n.to_string()), "{n} missing from {names:?}");
    }
    // zut declares no sampling: the sampling tool is not offered at all.
    assert!(!names.iter().any(|n| n.contains("sampling")), "{names:?}");
    check_echo(&mgr, "everything").await;
    let cancel = CancellationToken::new();
    let r = mgr
        .call_tool(
            "mcp__everything__get-sum",
            json!({"a": 2, "b": 40}),
            &cancel,
            None,
        )
        .await;
    assert!(r.text().contains("42"), "{}", r.text());
    let r = mgr
        .call_tool("mcp__everything__get-tiny-image", json!({}), &cancel, None)
        .await;
    assert!(
        r.content
            .iter()
            .any(|c| matches!(c, McpContent::Image { mime_type, .. } if mime_type == "image/png")),
        "{r:?}"
    );
    // Progress notifications reach the caller.
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = seen.clone();
    let progress: zut_mcp::ProgressFn = Arc::new(move |s| sink.lock().unwrap().push(s));
    let r = mgr
        .call_tool(
            "mcp__everything__trigger-long-running-operation",
            json!({"duration": 1, "steps": 3}),
            &cancel,
            Some(progress),
        )
        .await;
    assert!(!r.is_error, "{r:?}");
    assert!(
        seen.lock().unwrap().len() >= 2,
        "{:?}",
        seen.lock().unwrap()
    );
    // Roots: the project directory, honestly declared.
    if names.iter().any(|n| n == "mcp__everything__get-roots-list") {
        let r = mgr
            .call_tool("mcp__everything__get-roots-list", json!({}), &cancel, None)
            .await;
        assert!(
            r.text().contains(&d.project.path().display().to_string()),
            "{}",
            r.text()
        );
    }
    assert!(!mgr.prompts().is_empty());
    let res = mgr.resources();
    assert!(!res.is_empty());
    let content = mgr
        .read_resource("everything", &res[0].uri, &cancel)
        .await
        .unwrap();
    assert!(!content.is_empty());
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http_and_legacy_sse() {
    if !have("node", "node") {
        return;
    }
    let Some(nm) = node_modules() else { return };
    let (p1, p2) = (free_port(), free_port());
    let spawn = |mode: &str, port: u16| {
        Spawned(
            std::process::Command::new("node")
                .args([everything(&nm), mode.to_string()])
                .env("PORT", port.to_string())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let _http = spawn("streamableHttp", p1);
    let _sse = spawn("sse", p2);
    wait_port(p1).await;
    wait_port(p2).await;
    let d = Dirs::new(json!({
        "web": {"type": "http", "url": format!("http://127.0.0.1:{p1}/mcp")},
        "old": {"type": "sse", "url": format!("http://127.0.0.1:{p2}/sse")}
    }));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "web").await;
    ready(&mgr, "old").await;
    check_echo(&mgr, "web").await;
    check_echo(&mgr, "old").await;
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_server() {
    if !have("node", "node") {
        return;
    }
    let Some(nm) = node_modules() else { return };
    let d = Dirs::new(json!({}));
    let project = d.project.path().canonicalize().unwrap();
    std::fs::write(project.join("hello.txt"), "hello from the project\n").unwrap();
    let script = nm
        .join("@modelcontextprotocol/server-filesystem/dist/index.js")
        .display()
        .to_string();
    std::fs::write(
        d.home.path().join("config.json"),
        serde_json::to_string(&json!({"mcpServers": {"fs": {"command": "node", "args": [script, project.display().to_string()]}}})).unwrap(),
    )
    .unwrap();
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "fs").await;
    let names: Vec<String> = mgr.tools().into_iter().map(|t| t.name).collect();
    let read = if names.contains(&"mcp__fs__read_text_file".to_string()) {
        "mcp__fs__read_text_file"
    } else {
        "mcp__fs__read_file"
    };
    let r = mgr
        .call_tool(
            read,
            json!({"path": project.join("hello.txt").display().to_string()}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(!r.is_error, "{r:?}");
    assert!(r.text().contains("hello from the project"), "{}", r.text());
    let r = mgr
        .call_tool(
            read,
            json!({"path": "/etc/passwd"}),
            &CancellationToken::new(),
            None,
        )
        .await;
    assert!(r.is_error, "outside the allowed directory: {r:?}");
    mgr.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fastmcp_python_server() {
    if !have_python_mcp() {
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastmcp_server.py");
    let d =
        Dirs::new(json!({"py": {"command": "python3", "args": [script.display().to_string()]}}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "py").await;
    let cancel = CancellationToken::new();
    let r = mgr
        .call_tool("mcp__py__add", json!({"a": 20, "b": 22}), &cancel, None)
        .await;
    assert!(!r.is_error, "{r:?}");
    assert!(r.text().contains("42"), "{}", r.text());
    let r = mgr
        .call_tool("mcp__py__shout", json!({"text": "quiet"}), &cancel, None)
        .await;
    assert!(r.text().contains("QUIET"));
    let text = mgr
        .get_prompt(
            "py",
            "review",
            [("code".to_string(), "x = 1".to_string())].into(),
            &cancel,
        )
        .await
        .unwrap();
    assert!(text.contains("Please review:\nx = 1"), "{text}");
    let res = mgr
        .read_resource("py", "config://app", &cancel)
        .await
        .unwrap();
    assert_eq!(
        res,
        vec![McpContent::Text(
            "[resource config://app]\ndebug=true".into()
        )]
    );
    let _: Value = json!(null);
    mgr.shutdown().await;
}

/// `zut mcp serve` driven by the official Python MCP client.
#[test]
fn zut_mcp_serve_with_the_python_client() {
    if !have_python_mcp() {
        return;
    }
    let zut = zut_test_support::workspace_bin("zut");
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("notes.txt"), "line one\nline two\n").unwrap();
    let client = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=["mcp", "serve", "--cwd", sys.argv[2]],
                                   env={"ZUT_HOME": sys.argv[3], "PATH": "/usr/bin:/bin"})
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            tools = await s.list_tools()
            names = sorted(t.name for t in tools.tools)
            read = await s.call_tool("read", {"path": "notes.txt"})
            bad = await s.call_tool("read", {"path": "missing.txt"})
            err = lambda r: getattr(r, "is_error", None) if hasattr(r, "is_error") else r.isError
            print(json.dumps({"names": names,
                              "read": read.content[0].text, "read_error": err(read),
                              "bad_error": err(bad)}))

asyncio.run(main())
"#;
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            client,
            &zut.display().to_string(),
            &project.display().to_string(),
            &dir.path().join("home").display().to_string(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Every built-in tool of this build but the conversation-state ones
    // (`plan`), sorted.
    let mut builtins: Vec<&str> = zut_tools::BUILTIN_NAMES
        .iter()
        .copied()
        .filter(|n| !zut_tools::SESSION_TOOLS.contains(n))
        .collect();
    builtins.sort_unstable();
    assert_eq!(v["names"], json!(builtins));
    assert!(v["read"].as_str().unwrap().contains("line two"), "{v}");
    assert_eq!(v["read_error"], false);
    assert_eq!(v["bad_error"], true);
}

/// The Python SDK server elicits in a tool: the form reaches the asker
/// (fields in the server's order), an accepted answer reaches the tool,
/// an answer that does not fit the form is sent as `cancel`, a decline as
/// `decline`. Without an asker nothing is declared and the server is told
/// no.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_server_elicitation() {
    if !have_python_mcp() {
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fastmcp_server.py");
    let d =
        Dirs::new(json!({"py": {"command": "python3", "args": [script.display().to_string()]}}));
    let cancel = CancellationToken::new();
    // Nobody to ask: not declared.
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "py").await;
    assert!(!mgr.elicitation_declared());
    let r = mgr
        .call_tool("mcp__py__book", json!({"day": "monday"}), &cancel, None)
        .await;
    assert!(r.text().contains("not booked"), "{}", r.text());
    mgr.shutdown().await;

    let mut opts = d.opts(McpSettings::default());
    opts.elicitation = zut_mcp::Elicitation::declared_from_start(true);
    let mgr = zut_mcp::McpManager::start(opts);
    let (asker, asked) = scripted_asker(vec![
        zut_types::ElicitationAnswer::accept(content(
            json!({"name": "Ada", "guests": 3, "vegetarian": true}),
        )),
        zut_types::ElicitationAnswer::accept(content(json!({"name": "Ada", "guests": 99}))),
        zut_types::ElicitationAnswer::decline(),
    ]);
    mgr.set_elicitation_asker(Some(asker));
    ready(&mgr, "py").await;
    assert!(mgr.elicitation_declared());
    let r = mgr
        .call_tool("mcp__py__book", json!({"day": "monday"}), &cancel, None)
        .await;
    assert_eq!(
        r.text().trim(),
        "booked for Ada, 3 guests, vegetarian=True",
        "{r:?}"
    );
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked[0].server, "py");
        assert_eq!(asked[0].message, "Book a table on monday?");
        let fields = asked[0].fields().unwrap();
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name", "guests", "vegetarian"]);
        assert!(fields[0].required);
    }
    let r = mgr
        .call_tool("mcp__py__book", json!({"day": "tuesday"}), &cancel, None)
        .await;
    assert!(r.text().contains("not booked: cancel"), "{}", r.text());
    let r = mgr
        .call_tool("mcp__py__book", json!({"day": "friday"}), &cancel, None)
        .await;
    assert!(r.text().contains("not booked: decline"), "{}", r.text());
    let log = std::fs::read_to_string(d.home.path().join("logs/mcp-py.log")).unwrap();
    assert!(
        log.contains("elicitation asked: Book a table on monday?"),
        "{log}"
    );
    assert!(
        log.contains(
            "elicitation cancelled: the answer does not fit the form (guests: at most 10)"
        ),
        "{log}"
    );
    mgr.shutdown().await;
}

/// server-everything offers `trigger-elicitation-request` only to a
/// client that declares elicitation: a front end setting an asker later
/// makes the running server reconnect and offer it; the answer reaches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_elicitation_after_a_front_end_can_answer() {
    if !have("node", "node") {
        return;
    }
    let Some(nm) = node_modules() else { return };
    let d =
        Dirs::new(json!({"everything": {"command": "node", "args": [everything(&nm), "stdio"]}}));
    let mgr = d.start(McpSettings::default());
    ready(&mgr, "everything").await;
    let has = |m: &zut_mcp::McpManager| {
        m.tools()
            .iter()
            .any(|t| t.name == "mcp__everything__trigger-elicitation-request")
    };
    assert!(!has(&mgr), "offered without elicitation declared");
    let (asker, asked) = scripted_asker(vec![zut_types::ElicitationAnswer::accept(content(
        json!({"name": "Ada Lovelace", "check": true, "integer": 7,
               "untitledMultipleSelectEnum": ["Piano"]}),
    ))]);
    mgr.set_elicitation_asker(Some(asker));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !has(&mgr) {
        assert!(std::time::Instant::now() < deadline, "never offered");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let cancel = CancellationToken::new();
    let r = mgr
        .call_tool(
            "mcp__everything__trigger-elicitation-request",
            json!({}),
            &cancel,
            None,
        )
        .await;
    assert!(r.text().contains("- Name: Ada Lovelace"), "{}", r.text());
    assert!(r.text().contains("- Favorite Integer: 7"), "{}", r.text());
    let fields = asked.lock().unwrap()[0].fields().unwrap();
    assert!(fields.len() >= 10, "{fields:?}");
    mgr.shutdown().await;
}
