//! `hello`: the smallest useful Rust extension.
//!
//! - `/hello` asks the agent for a one-sentence greeting (action `prompt`);
//! - `greet` is a tool the model can call;
//! - `/cwd` is registered from `on_hello`, using the host's project dir.

use serde_json::{json, Value};
use zut_ext_sdk::{Extension, Response, SdkError, ToolResult};

fn main() -> Result<(), SdkError> {
    let mut ext = Extension::new("hello", "1.0.0");
    ext.command("hello", "say hi", |_args, _ctx| {
        Response::prompt("Greet me in one short sentence.")
    });
    ext.tool(
        "greet",
        "Build a friendly greeting for a person.",
        json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}),
        |args, _ctx| match args.get("name").and_then(Value::as_str) {
            Some(name) if !name.trim().is_empty() => {
                ToolResult::text(format!("Hello, {}!", name.trim()))
            }
            _ => ToolResult::error("`name` must be a non-empty string"),
        },
    );
    ext.on_hello(|ext, host| {
        if !host.cwd.is_empty() {
            let cwd = host.cwd.clone();
            ext.command(
                "cwd",
                "show the current project directory",
                move |_args, _ctx| Response::display(cwd.clone()),
            );
        }
    });
    ext.run()
}
