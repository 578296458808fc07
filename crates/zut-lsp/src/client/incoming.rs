//! What a language server sends: answers to zut's requests, its own
//! requests (answered here, or handed to the `lsp` tool for
//! `workspace/applyEdit`), and notifications (published diagnostics,
//! rust-analyzer's loading status).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::{Shared, MAX_DIAGNOSTICS_PER_FILE, MAX_DIAGNOSTIC_FILES};
use crate::diagnostics::Diagnostic;

/// Why a `workspace/applyEdit` that arrives outside a command run is
/// declined.
pub const UNSOLICITED_EDIT: &str = "zut applies a server's edits only while its lsp tool runs \
     that server's command (code_actions with apply) or applies a rename";

/// A `workspace/applyEdit` request waiting for the `lsp` tool.
#[derive(Debug)]
pub struct EditRequest {
    /// The JSON-RPC id to answer.
    pub id: Value,
    /// Its `params` (`{label?, edit}`).
    pub params: Value,
}

pub(super) fn handle_message(shared: &Shared, out: &mpsc::UnboundedSender<Vec<u8>>, body: &[u8]) {
    let msg: Value = match serde_json::from_slice(body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) | Err(_) => {
            let n = shared.malformed.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(server = %shared.server, count = n, "language server sent a malformed JSON-RPC message; skipped");
            return;
        }
    };
    let method = msg.get("method").and_then(Value::as_str);
    let id = msg.get("id").cloned();
    match (method, id) {
        (Some("workspace/applyEdit"), Some(id)) => {
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            // Handed to the tool call that runs a command, if one does;
            // otherwise declined at once.
            let sink = shared
                .edits
                .lock()
                .ok()
                .and_then(|s| s.as_ref().map(|(_, tx)| tx.clone()));
            let request = EditRequest { id, params };
            let declined = match sink {
                Some(tx) => tx.send(request).err().map(|e| e.0),
                None => Some(request),
            };
            if let Some(r) = declined {
                reply(
                    out,
                    &r.id,
                    Ok(json!({"applied": false, "failureReason": UNSOLICITED_EDIT})),
                );
            }
        }
        (Some(method), Some(id)) => {
            let result = answer_server_request(shared, method, msg.get("params"));
            reply(out, &id, result);
        }
        (Some(method), None) => {
            if method == "textDocument/publishDiagnostics" {
                if let Some(params) = msg.get("params") {
                    store_diagnostics(shared, params);
                }
            } else if method == "experimental/serverStatus" {
                if let Some(q) = msg
                    .get("params")
                    .and_then(|p| p.get("quiescent"))
                    .and_then(Value::as_bool)
                {
                    shared.ready.send_replace(q);
                }
            }
        }
        (None, Some(id)) => {
            let Some(id) = id.as_i64() else {
                shared.malformed.fetch_add(1, Ordering::Relaxed);
                return;
            };
            let sender = shared.pending.lock().ok().and_then(|mut p| p.remove(&id));
            let Some(sender) = sender else {
                return;
            };
            let result = if let Some(err) = msg.get("error") {
                let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
                let text = err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error");
                Err(format!("{text} (code {code})"))
            } else {
                Ok(msg.get("result").cloned().unwrap_or(Value::Null))
            };
            let _ = sender.send(result);
        }
        (None, None) => {
            shared.malformed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Sends the answer to the server's request `id`.
pub(super) fn reply(
    out: &mpsc::UnboundedSender<Vec<u8>>,
    id: &Value,
    result: Result<Value, (i64, String)>,
) {
    let body = match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err((code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    };
    if let Ok(bytes) = serde_json::to_vec(&body) {
        let _ = out.send(bytes);
    }
}

fn answer_server_request(
    shared: &Shared,
    method: &str,
    params: Option<&Value>,
) -> Result<Value, (i64, String)> {
    match method {
        "workspace/configuration" => {
            let items = params
                .and_then(|p| p.get("items"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let answers: Vec<Value> = items
                .iter()
                .map(|item| {
                    let section = item.get("section").and_then(Value::as_str).unwrap_or("");
                    let mut v = &shared.settings;
                    for part in section.split('.').filter(|s| !s.is_empty()) {
                        match v.get(part) {
                            Some(x) => v = x,
                            None => return Value::Null,
                        }
                    }
                    v.clone()
                })
                .collect();
            Ok(Value::Array(answers))
        }
        "client/registerCapability" => {
            registrations(shared, params, true);
            Ok(Value::Null)
        }
        "client/unregisterCapability" => {
            registrations(shared, params, false);
            Ok(Value::Null)
        }
        // Pulled diagnostics are asked again whenever they are needed.
        "workspace/diagnostic/refresh"
        | "window/workDoneProgress/create"
        | "window/showMessageRequest"
        | "workspace/semanticTokens/refresh"
        | "workspace/inlayHint/refresh"
        | "workspace/codeLens/refresh" => Ok(Value::Null),
        _ => Err((-32601, format!("method not supported by zut: {method}"))),
    }
}

/// `client/registerCapability` / `unregisterCapability`: a server that
/// registers `textDocument/diagnostic` dynamically is pulled from.
fn registrations(shared: &Shared, params: Option<&Value>, register: bool) {
    // `unregisterations` is the protocol's spelling.
    let key = if register {
        "registrations"
    } else {
        "unregisterations"
    };
    let Some(list) = params.and_then(|p| p.get(key)).and_then(Value::as_array) else {
        return;
    };
    for r in list {
        if r.get("method").and_then(Value::as_str) != Some("textDocument/diagnostic") {
            continue;
        }
        let id = r
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let Ok(mut pull) = shared.pull.lock() else {
            continue;
        };
        // Servers re-register before unregistering the old one (pyright):
        // pulled from while any registration stands.
        pull.retain(|(known, _)| *known != id);
        if register {
            let identifier = r
                .get("registerOptions")
                .and_then(|o| o.get("identifier"))
                .and_then(Value::as_str)
                .map(str::to_string);
            pull.push((id, super::pull::PullMode { identifier }));
        }
        drop(pull);
        // Wakes a caller waiting for a publication that will not come.
        shared.generation.send_modify(|g| *g += 1);
    }
}

/// zut's form of a server's diagnostics for `path`.
pub(super) fn convert(
    server: &str,
    path: &Path,
    list: Vec<lsp_types::Diagnostic>,
) -> Vec<Diagnostic> {
    list.into_iter()
        .take(MAX_DIAGNOSTICS_PER_FILE)
        .map(|d| {
            let raw = serde_json::to_value(&d).ok();
            Diagnostic {
                path: path.to_path_buf(),
                severity: match d.severity {
                    Some(s) if s == lsp_types::DiagnosticSeverity::ERROR => 1,
                    Some(s) if s == lsp_types::DiagnosticSeverity::WARNING => 2,
                    Some(s) if s == lsp_types::DiagnosticSeverity::HINT => 4,
                    _ => 3,
                },
                code: d.code.map(|c| match c {
                    lsp_types::NumberOrString::Number(n) => n.to_string(),
                    lsp_types::NumberOrString::String(s) => s,
                }),
                source: d.source,
                line: d.range.start.line,
                character: d.range.start.character,
                message: d.message,
                server: server.to_string(),
                raw,
            }
        })
        .collect()
}

fn store_diagnostics(shared: &Shared, params: &Value) {
    let Ok(p) = serde_json::from_value::<lsp_types::PublishDiagnosticsParams>(params.clone())
    else {
        shared.malformed.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let Ok(path) = p.uri.to_file_path() else {
        return;
    };
    let items = convert(&shared.server, &path, p.diagnostics);
    if let Ok(mut st) = shared.diags.lock() {
        let known = st.by_path.contains_key(&path) || st.open.contains(&path);
        if !known && st.by_path.len() >= MAX_DIAGNOSTIC_FILES && !items.is_empty() {
            st.dropped_files += 1;
        } else if items.is_empty() {
            st.by_path.remove(&path);
        } else {
            st.by_path.insert(path.clone(), items);
        }
        match p.version {
            Some(v) => {
                st.versions.insert(path.clone(), v);
            }
            None => {
                st.versions.remove(&path);
            }
        }
        if let Some((_, got @ None, sent)) = st.timing.get_mut(&path) {
            if p.version.is_none_or(|v| v >= *sent) {
                *got = Some(Instant::now());
            }
        }
        *st.published.entry(path).or_default() += 1;
    }
    shared.generation.send_modify(|g| *g += 1);
}
