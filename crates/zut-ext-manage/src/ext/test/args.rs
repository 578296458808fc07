//! `zut ext test [DIR] [--json] [--args TOOL=JSON]... [--timeout SECS] [--scenario FILE]...`

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::ext::flags::Flags;

/// Usage line.
pub const USAGE: &str = "usage: zut ext test [DIR] [--json] [--args TOOL=JSON]... [--timeout SECS] [--scenario FILE]...";

/// Parsed arguments.
#[derive(Debug, Default)]
pub struct Args {
    /// Extension directory (default `.`).
    pub dir: Option<PathBuf>,
    /// `--json`.
    pub json: bool,
    /// `--args TOOL=JSON`.
    pub tool_args: BTreeMap<String, Value>,
    /// `--timeout SECS` (hello and each command/tool reply; default 10).
    pub timeout_secs: Option<f64>,
    /// `--scenario FILE`.
    pub scenarios: Vec<PathBuf>,
    /// `-h` / `--help`.
    pub help: bool,
}

/// Parses `argv` (after `test`).
pub fn parse(argv: &[String]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut flags = Flags::new(argv, USAGE);
    while let Some(arg) = flags.next_arg() {
        let mut value = |name: &str| flags.value(&arg, name);
        match arg.flag {
            "-h" | "--help" => a.help = true,
            "--json" => a.json = true,
            "--args" => {
                let v = value("--args")?;
                let (tool, json) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--args {v:?}: expected TOOL=JSON, e.g. --args weather='{{\"city\":\"Paris\"}}'"))?;
                let parsed: Value = serde_json::from_str(json)
                    .map_err(|e| format!("--args {tool}: invalid JSON: {e}"))?;
                if !parsed.is_object() {
                    return Err(format!(
                        "--args {tool}: the arguments must be a JSON object"
                    ));
                }
                a.tool_args.insert(tool.to_string(), parsed);
            }
            "--timeout" => {
                let v = value("--timeout")?;
                let secs: f64 = v
                    .parse()
                    .map_err(|_| format!("--timeout {v:?}: expected seconds"))?;
                if !(secs > 0.0 && secs <= 3600.0) {
                    return Err(format!(
                        "--timeout {v}: expected a number of seconds between 0 and 3600"
                    ));
                }
                a.timeout_secs = Some(secs);
            }
            "--scenario" => a.scenarios.push(PathBuf::from(value("--scenario")?)),
            s if s.starts_with('-') => return Err(format!("unknown flag {s}\n{USAGE}")),
            _ => {
                if a.dir.is_some() {
                    return Err(format!(
                        "only one extension directory can be tested at a time\n{USAGE}"
                    ));
                }
                a.dir = Some(PathBuf::from(arg.raw));
            }
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn flags() {
        let a = parse(&argv(&[
            "ext",
            "--json",
            "--args",
            "w={\"city\":\"P\"}",
            "--timeout=2.5",
        ]))
        .unwrap();
        assert_eq!(a.dir, Some(PathBuf::from("ext")));
        assert!(a.json);
        assert_eq!(a.tool_args["w"]["city"], "P");
        assert_eq!(a.timeout_secs, Some(2.5));
    }

    #[test]
    fn bad_input() {
        assert!(parse(&argv(&["--args", "w"]))
            .unwrap_err()
            .contains("TOOL=JSON"));
        assert!(parse(&argv(&["--args", "w={"]))
            .unwrap_err()
            .contains("invalid JSON"));
        assert!(parse(&argv(&["--args", "w=[1]"]))
            .unwrap_err()
            .contains("JSON object"));
        assert!(parse(&argv(&["--timeout", "x"]))
            .unwrap_err()
            .contains("seconds"));
        assert!(parse(&argv(&["--timeout"]))
            .unwrap_err()
            .contains("needs a value"));
        assert!(parse(&argv(&["--bogus"]))
            .unwrap_err()
            .contains("unknown flag"));
        assert!(parse(&argv(&["a", "b"]))
            .unwrap_err()
            .contains("one extension directory"));
    }
}
