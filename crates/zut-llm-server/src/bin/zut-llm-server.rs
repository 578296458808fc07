//! `zut-llm-server [--prerender] [--quiet] <script.json | ->`: serve scripted
//! LLM replies on 127.0.0.1.
//!
//! The script file is either a JSON array of scripts (see `Script`'s serde
//! form) or `{"cycle": true, "scripts": [...]}`; with `cycle` each consumed
//! script is queued again, so the server answers forever. The first line
//! printed on stdout is the base URL; the server runs until interrupted or
//! killed. `--prerender` renders each reply once at start-up
//! (`Script::prerendered`); `--quiet` neither logs nor records requests
//! (for benchmarks that send thousands).

use std::process::ExitCode;

use serde::Deserialize;
use zut_llm_server::{LlmServer, Script};

#[derive(Deserialize)]
#[serde(untagged)]
enum ScriptFile {
    List(Vec<Script>),
    Full {
        #[serde(default)]
        cycle: bool,
        scripts: Vec<Script>,
    },
}

const USAGE: &str = "\
usage: zut-llm-server [--prerender] [--quiet] <script.json | ->

Serve scripted Anthropic / OpenAI chat / OpenAI Responses / Gemini SSE
replies and Bedrock event streams on 127.0.0.1 (random port).

<script.json> is a JSON array of scripts, or {\"cycle\": true, \"scripts\": [...]}
to replay them forever; `-` reads it from stdin. A script looks like
  {\"body\": {\"kind\": \"reply\", \"format\": \"anthropic\",
            \"blocks\": [{\"type\": \"text\", \"text\": \"hi\"}]},
   \"delta_bytes\": 10}
(formats: anthropic, openai, responses, gemini, bedrock; blocks: text,
thinking with a signature, tool_call with id, name and raw JSON args).
Other bodies: {\"kind\": \"error\", \"error_type\": .., \"message\": ..} (with
\"status\": 429, \"headers\": [[\"retry-after\", \"1\"]]), {\"kind\": \"events\",
\"frames\": [{\"event\": .., \"data\": ..}]}, {\"kind\": \"raw\", \"text\": ..},
{\"kind\": \"json\", \"text\": ..} (sent as application/json), {\"kind\":
\"event_stream\", \"frames\": [{\"message_type\": \"event\", \"event_type\": ..,
\"payload\": .., \"corrupt\": false}]} (Bedrock binary frames).
Knobs: delta_bytes, chunk_bytes, cut_after, hang_after, delay_ms, event_delay_ms.

The first line on stdout is the base URL (Anthropic clients post to
<url>/v1/messages, OpenAI-compatible and Responses clients use <url>/v1 as
base URL; `zut --provider google|amazon-bedrock --base-url <url>` for the
others).
Each request received is logged to stderr. Runs until interrupted.

options:
  --prerender    render each reply once at start-up and send it in one write
                 (scripts with cut_after, hang_after or event_delay_ms are
                 kept as they are; OpenAI replies include the usage chunk)
  -q, --quiet    do not log or record requests (only the start-up line)
  -h, --help     show this help
  -V, --version  show the version
";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut prerender = false;
    let mut quiet = false;
    args.retain(|a| match a.as_str() {
        "--prerender" => {
            prerender = true;
            false
        }
        "-q" | "--quiet" => {
            quiet = true;
            false
        }
        _ => true,
    });
    let path = match args.as_slice() {
        [flag] if flag == "-h" || flag == "--help" => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        [flag] if flag == "-V" || flag == "--version" => {
            println!("zut-llm-server {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        [flag] if flag.starts_with('-') && flag != "-" => {
            eprintln!("zut-llm-server: unknown option {flag}\n\n{USAGE}");
            return ExitCode::from(2);
        }
        [path] => path.clone(),
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let text = if path == "-" {
        let mut text = String::new();
        match std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
            Ok(_) => text,
            Err(e) => {
                eprintln!("zut-llm-server: cannot read stdin: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("zut-llm-server: cannot read {path}: {e}");
                return ExitCode::from(1);
            }
        }
    };
    let (cycle, scripts) = match serde_json::from_str::<ScriptFile>(&text) {
        Ok(ScriptFile::List(scripts)) => (false, scripts),
        Ok(ScriptFile::Full { cycle, scripts }) => (cycle, scripts),
        Err(e) => {
            eprintln!("zut-llm-server: invalid script file {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let server = match LlmServer::start().await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("zut-llm-server: cannot bind: {e}");
            return ExitCode::from(1);
        }
    };
    server.set_cycle(cycle);
    server.set_record(!quiet);
    for script in scripts {
        server.push(if prerender {
            script.prerendered()
        } else {
            script
        });
    }
    println!("{}", server.url());
    // Flush the URL line before serving (stdout may be a pipe).
    let _ = std::io::Write::flush(&mut std::io::stdout());
    eprintln!(
        "zut-llm-server: listening on {} ({} script(s){}{}); OpenAI base URL {}",
        server.url(),
        server.pending(),
        if cycle { ", cycling" } else { "" },
        if prerender { ", pre-rendered" } else { "" },
        server.openai_base_url()
    );
    if quiet {
        let _ = tokio::signal::ctrl_c().await;
        return ExitCode::SUCCESS;
    }
    // Serve until interrupted (SIGINT) or killed, logging requests as they come.
    let mut seen = 0;
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
    loop {
        tokio::select! {
            _ = &mut ctrl_c => break,
            _ = tick.tick() => {
                let requests = server.requests_since(seen);
                for req in &requests {
                    let model = req.body.get("model").and_then(|m| m.as_str()).unwrap_or("-");
                    eprintln!(
                        "zut-llm-server: {} {} (model {model}, {} bytes); {} script(s) left",
                        req.method,
                        req.path,
                        req.raw_body.len(),
                        server.pending()
                    );
                }
                seen += requests.len();
            }
        }
    }
    ExitCode::SUCCESS
}
