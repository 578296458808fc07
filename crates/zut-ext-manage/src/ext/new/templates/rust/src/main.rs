//! {{name}}: a zut extension (Rust SDK).

use serde_json::{json, Value};
use zut_ext_sdk::{Extension, Response, ToolResult};

fn main() -> Result<(), zut_ext_sdk::SdkError> {
    let mut ext = Extension::new("{{name}}", "0.1.0");
    ext.command("{{name}}", "say hello from {{name}}", |args, _ctx| {
        let who = if args.is_empty() { "me" } else { args };
        Response::prompt(format!("Say hello to {who} in one short sentence."))
    });
    ext.tool(
        "{{tool}}",
        "Echo a text back (an example tool of {{name}}).",
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
        |args, _ctx| match args.get("text").and_then(Value::as_str) {
            Some(text) => ToolResult::text(text),
            None => ToolResult::error("text must be a string"),
        },
    );
    ext.run()
}
