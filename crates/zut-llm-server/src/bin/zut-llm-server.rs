//! `zut-llm-server <script.json>`: serve scripted LLM replies on 127.0.0.1.
//!
//! The script file is either a JSON array of scripts (see `Script`'s serde
//! form) or `{"cycle": true, "scripts": [...]}`; with `cycle` each consumed
//! script is queued again, so the server answers forever. The first line
//! printed on stdout is the base URL; the server runs until interrupted or
//! killed.

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

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: zut-llm-server <script.json>");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("zut-llm-server: cannot read {path}: {e}");
            return ExitCode::from(1);
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
    for script in scripts {
        server.push(script);
    }
    println!("{}", server.url());
    // Flush the URL line before serving (stdout may be a pipe).
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // Serve until interrupted (SIGINT) or killed.
    let _ = tokio::signal::ctrl_c().await;
    ExitCode::SUCCESS
}
