//! CLI linters of `lsp.json` (`kind: "cli"`): run once per check in the
//! project root, bounded in time and output, their report parsed into
//! [`Diagnostic`]s (tools.md §4.5).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::AsyncReadExt;

use crate::config::ServerConfig;
use crate::diagnostics::Diagnostic;
use crate::process::resolve_command;

/// Longest a linter may run.
pub const LINTER_TIMEOUT: Duration = Duration::from_secs(30);

/// Output kept per stream.
pub const MAX_LINTER_OUTPUT: usize = 8 * 1024 * 1024;

/// The arguments for `files` (absolute) under `root`: `{files}` expands
/// (a whole argument to one argument per file, an embedded one to one
/// argument per file with the path substituted; no files: `.`); otherwise
/// `workspace` mode (or no files) appends `.`, and `files` mode appends
/// the files.
pub fn linter_args(spec: &ServerConfig, root: &Path, files: &[PathBuf]) -> Vec<String> {
    let rel: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string())
        .collect();
    let mut out = Vec::new();
    let mut placed = false;
    for a in &spec.args {
        if a.contains("{files}") {
            placed = true;
            if rel.is_empty() {
                // The whole workspace (a run at startup).
                out.push(a.replace("{files}", "."));
            }
            for f in &rel {
                out.push(a.replace("{files}", f));
            }
        } else {
            out.push(a.clone());
        }
    }
    if !placed {
        if spec.mode == "workspace" || rel.is_empty() {
            if !out.iter().any(|a| a == ".") {
                out.push(".".into());
            }
        } else {
            out.extend(rel);
        }
    }
    out
}

/// Runs the linter `spec` on `files` in `root`; diagnostics outside `cwd`
/// are dropped.
pub async fn run(
    spec: &ServerConfig,
    root: &Path,
    cwd: &Path,
    files: &[PathBuf],
    timeout: Duration,
    jail: Option<std::sync::Arc<zut_sandbox::Prepared>>,
) -> Result<Vec<Diagnostic>, String> {
    let program = resolve_command(&spec.command, root).map_err(|e| {
        let hint = spec
            .install
            .as_deref()
            .map(|h| format!(" Install it with: {h}"))
            .unwrap_or_default();
        format!("linter {} is not installed: {e}.{hint}", spec.id)
    })?;
    // zut's launcher: own process group (killed with `guard`), inside the
    // session's jail when jailed.
    let mut launch = zut_process::Launch::new(&program, root)
        .args(linter_args(spec, root, files))
        .sandbox(jail);
    launch.env = spec.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    launch.stdin = Stdio::null();
    launch.stdout = Stdio::piped();
    launch.stderr = Stdio::piped();
    launch.kill_on_drop = true;
    launch.kill_grace = Duration::from_millis(200);
    let zut_process::Process { mut child, guard } = zut_process::spawn(launch)
        .map_err(|e| format!("linter {} could not be started: {e}", spec.id))?;
    let (Some(mut so), Some(mut se)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(format!("linter {}: no output pipes", spec.id));
    };
    let read_capped = |mut r: Box<dyn tokio::io::AsyncRead + Unpin + Send>| async move {
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match r.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = MAX_LINTER_OUTPUT.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }
        buf
    };
    let work = async {
        let (out, err, status) = tokio::join!(
            read_capped(Box::new(std::pin::Pin::new(&mut so))),
            read_capped(Box::new(std::pin::Pin::new(&mut se))),
            child.wait()
        );
        (out, err, status)
    };
    let timeout = timeout.min(LINTER_TIMEOUT);
    let (out, err, status) = match tokio::time::timeout(timeout, work).await {
        Ok(r) => r,
        Err(_) => {
            drop(guard);
            return Err(format!(
                "linter {} did not finish within {}",
                spec.id,
                crate::fmt_duration(timeout)
            ));
        }
    };
    drop(guard);
    let stdout = String::from_utf8_lossy(&out);
    let mut diags = parse(&spec.parser, &stdout, root, &spec.id).map_err(|e| {
        let tail: String = String::from_utf8_lossy(&err)
            .lines()
            .last()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
        format!(
            "linter {}: cannot read its output ({e}); stderr: {tail}",
            spec.id
        )
    })?;
    // Nothing understood, a failure status and something on stderr: the
    // linter did not run (`No module named pyflakes`), it found nothing.
    let failed = status.as_ref().map(|s| !s.success()).unwrap_or(true);
    let stderr = String::from_utf8_lossy(&err);
    if diags.is_empty() && failed && !stderr.trim().is_empty() {
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let why = match &status {
            Ok(s) => s.to_string(),
            Err(e) => e.to_string(),
        };
        return Err(format!(
            "linter {} failed ({why}): {}",
            spec.id,
            last.trim().chars().take(200).collect::<String>()
        ));
    }
    diags.retain(|d| d.path.starts_with(cwd));
    Ok(diags)
}

fn diag(
    path: PathBuf,
    severity: u8,
    code: Option<String>,
    line: u64,
    col: u64,
    message: &str,
    id: &str,
) -> Diagnostic {
    Diagnostic {
        path,
        severity,
        code,
        source: Some(id.to_string()),
        line: line.saturating_sub(1) as u32,
        character: col.saturating_sub(1) as u32,
        message: message.to_string(),
        server: id.to_string(),
        raw: None,
    }
}

fn abs(root: &Path, p: &str) -> PathBuf {
    let p = p.strip_prefix("file://").unwrap_or(p);
    // `./main.py` from a linter run over `.`.
    let p = p.strip_prefix("./").unwrap_or(p);
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

fn num(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(1)
}

fn text(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// Parses a linter report (`ruff-json`, `eslint-json`,
/// `golangci-lint-json`, `sarif`, else `path:line[:col]: message` lines).
pub fn parse(parser: &str, out: &str, root: &Path, id: &str) -> Result<Vec<Diagnostic>, String> {
    let json = || -> Result<Value, String> {
        if out.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(out.trim()).map_err(|e| format!("invalid JSON: {e}"))
    };
    let mut d = Vec::new();
    match parser {
        "ruff-json" => {
            for item in json()?.as_array().into_iter().flatten() {
                let code = text(item, "code");
                let sev = if code.is_none() || code.as_deref() == Some("E999") {
                    1
                } else {
                    2
                };
                let loc = item.get("location").cloned().unwrap_or(Value::Null);
                d.push(diag(
                    abs(root, &text(item, "filename").unwrap_or_default()),
                    sev,
                    code,
                    num(&loc, "row"),
                    num(&loc, "column"),
                    &text(item, "message").unwrap_or_default(),
                    id,
                ));
            }
        }
        "eslint-json" => {
            for file in json()?.as_array().into_iter().flatten() {
                let path = abs(root, &text(file, "filePath").unwrap_or_default());
                for m in file
                    .get("messages")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let sev = if m.get("severity").and_then(Value::as_u64) == Some(2) {
                        1
                    } else {
                        2
                    };
                    d.push(diag(
                        path.clone(),
                        sev,
                        text(m, "ruleId"),
                        num(m, "line"),
                        num(m, "column"),
                        &text(m, "message").unwrap_or_default(),
                        id,
                    ));
                }
            }
        }
        "golangci-lint-json" => {
            let v = json()?;
            for i in v
                .get("Issues")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let pos = i.get("Pos").cloned().unwrap_or(Value::Null);
                let sev = match i.get("Severity").and_then(Value::as_str) {
                    Some("error") => 1,
                    Some("info") => 3,
                    _ => 2,
                };
                d.push(diag(
                    abs(root, &text(&pos, "Filename").unwrap_or_default()),
                    sev,
                    text(i, "FromLinter"),
                    num(&pos, "Line"),
                    num(&pos, "Column"),
                    &text(i, "Text").unwrap_or_default(),
                    id,
                ));
            }
        }
        "sarif" => {
            let v = json()?;
            for run in v
                .get("runs")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for r in run
                    .get("results")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let loc = r
                        .pointer("/locations/0/physicalLocation")
                        .cloned()
                        .unwrap_or(Value::Null);
                    let uri = loc
                        .pointer("/artifactLocation/uri")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let region = loc.get("region").cloned().unwrap_or(Value::Null);
                    let sev = match r.get("level").and_then(Value::as_str) {
                        Some("error") => 1,
                        Some("note") => 3,
                        _ => 2,
                    };
                    d.push(diag(
                        abs(root, uri),
                        sev,
                        text(r, "ruleId"),
                        num(&region, "startLine"),
                        num(&region, "startColumn"),
                        r.pointer("/message/text")
                            .and_then(Value::as_str)
                            .unwrap_or(""),
                        id,
                    ));
                }
            }
        }
        _ => {
            for line in out.lines() {
                let mut parts = line.splitn(4, ':');
                let (Some(p), Some(l)) = (parts.next(), parts.next()) else {
                    continue;
                };
                let Ok(l) = l.trim().parse::<u64>() else {
                    continue;
                };
                let (col, rest) = match (parts.next(), parts.next()) {
                    (Some(c), Some(r)) if c.trim().parse::<u64>().is_ok() => {
                        (c.trim().parse().unwrap_or(1), r.to_string())
                    }
                    (Some(c), Some(r)) => (1, format!("{c}:{r}")),
                    (Some(c), None) => (1, c.to_string()),
                    _ => (1, String::new()),
                };
                let msg = rest.trim();
                let lower = msg.to_lowercase();
                let sev = if lower.starts_with("error") {
                    1
                } else if lower.starts_with("note") || lower.starts_with("info") {
                    3
                } else {
                    2
                };
                d.push(diag(abs(root, p.trim()), sev, None, l, col, msg, id));
            }
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsers_read_their_formats() {
        let root = Path::new("/w");
        let ruff = r#"[{"code":"F821","message":"Undefined name `x`","filename":"/w/a.py","location":{"row":3,"column":7}}]"#;
        let d = parse("ruff-json", ruff, root, "ruff").unwrap();
        assert_eq!((d[0].line, d[0].character, d[0].severity), (2, 6, 2));
        assert_eq!(d[0].code.as_deref(), Some("F821"));
        let eslint = r#"[{"filePath":"/w/a.js","messages":[{"ruleId":"no-undef","severity":2,"message":"x","line":1,"column":2}]}]"#;
        assert_eq!(
            parse("eslint-json", eslint, root, "eslint").unwrap()[0].severity,
            1
        );
        let go = r#"{"Issues":[{"FromLinter":"errcheck","Text":"t","Pos":{"Filename":"m.go","Line":4,"Column":2}}]}"#;
        assert_eq!(
            parse("golangci-lint-json", go, root, "g").unwrap()[0].path,
            Path::new("/w/m.go")
        );
        let g = parse(
            "generic",
            "src/a.c:10:3: error: boom\nnoise\nb.c:2: warning: w\n",
            root,
            "cc",
        )
        .unwrap();
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].severity, g[0].line, g[0].character), (1, 9, 2));
        assert_eq!(g[1].message, "warning: w");
        assert!(parse("ruff-json", "{oops", root, "ruff").is_err());
    }

    #[test]
    fn files_placeholder_and_modes() {
        let mut spec = crate::Config::from_layers(&[]).unwrap().servers["ruff"].clone();
        let root = Path::new("/w");
        let files = [PathBuf::from("/w/a.py")];
        assert_eq!(
            linter_args(&spec, root, &files),
            ["check", "--output-format", "json", "a.py"]
        );
        spec.mode = "workspace".into();
        assert_eq!(
            linter_args(&spec, root, &files),
            ["check", "--output-format", "json", "."]
        );
        spec.args = vec!["--file={files}".into()];
        assert_eq!(linter_args(&spec, root, &files), ["--file=a.py"]);
    }
}
