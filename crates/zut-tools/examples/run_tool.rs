//! Runs one built-in tool once in the current directory and prints its
//! result: `run_tool <name> '<json args>'`. Used by
//! `scripts/bench/glob-ast` to time `glob` and `ast` against fd, ripgrep
//! and the ast-grep CLI as whole processes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use zut_tools::{run_builtin, ToolContext};

#[tokio::main]
async fn main() {
    let mut argv = std::env::args().skip(1);
    let (Some(name), Some(args)) = (argv.next(), argv.next()) else {
        eprintln!("usage: run_tool <name> '<json args>'");
        std::process::exit(2);
    };
    let args: serde_json::Value = serde_json::from_str(&args).expect("JSON arguments");
    let cwd = std::env::current_dir().expect("cwd");
    let out = run_builtin(&name, &args, &ToolContext::new(cwd)).await;
    println!("{}", out.text_content());
    std::process::exit(i32::from(out.is_error));
}
