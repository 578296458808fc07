//! Pull diagnostics (`textDocument/diagnostic`, LSP 3.17): for servers
//! that offer them (`diagnosticProvider` in `initialize`, or registered
//! later with `client/registerCapability`), zut asks for a file's
//! diagnostics instead of waiting for a publication. Results are kept per
//! file with their `resultId`, so an `unchanged` report reuses them.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::{json, Value};

use super::incoming::convert;
use super::{file_uri, Client, MAX_DIAGNOSTIC_FILES};
use crate::diagnostics::Diagnostic;

/// How a server is pulled from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullMode {
    /// The `identifier` its options give (sent back with each pull).
    pub identifier: Option<String>,
}

/// The pull mode a server's `initialize` capabilities announce: any
/// `diagnosticProvider` object (or `true`) means it answers pulls.
pub(super) fn from_capabilities(caps: &Value) -> Option<PullMode> {
    match caps.get("diagnosticProvider") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(v) => Some(PullMode {
            identifier: v
                .get("identifier")
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
    }
}

/// What a report said about one document.
enum Report {
    /// New items, with the id to send next time.
    Full(Option<String>, Vec<lsp_types::Diagnostic>),
    /// The items of `resultId` still hold.
    Unchanged(Option<String>),
}

fn parse_report(v: &Value) -> Result<Report, String> {
    let result_id = v
        .get("resultId")
        .and_then(Value::as_str)
        .map(str::to_string);
    match v.get("kind").and_then(Value::as_str) {
        Some("full") => {
            let items = v.get("items").cloned().unwrap_or(Value::Array(Vec::new()));
            let items: Vec<lsp_types::Diagnostic> =
                serde_json::from_value(items).map_err(|e| format!("bad items: {e}"))?;
            Ok(Report::Full(result_id, items))
        }
        Some("unchanged") => Ok(Report::Unchanged(result_id)),
        Some(other) => Err(format!("unknown report kind {other:?}")),
        None => Err("a report without `kind`".into()),
    }
}

impl Client {
    /// Whether this server answers `textDocument/diagnostic`.
    pub fn pulls(&self) -> bool {
        self.shared
            .pull
            .lock()
            .map(|p| !p.is_empty())
            .unwrap_or(false)
    }

    /// Asks the server for `path`'s diagnostics (the document must be
    /// synced first) and keeps them; related documents in the answer are
    /// kept too. Errors name the server.
    pub async fn pull_diagnostics(&self, path: &Path, deadline: Instant) -> Result<(), String> {
        let mode = self
            .shared
            .pull
            .lock()
            .ok()
            .and_then(|p| p.last().map(|(_, m)| m.clone()))
            .ok_or_else(|| format!("{} does not offer pull diagnostics", self.server))?;
        let uri = file_uri(path)?;
        let previous = self
            .shared
            .diags
            .lock()
            .ok()
            .and_then(|d| d.pulled.get(path).and_then(|(id, _)| id.clone()));
        let mut params = json!({"textDocument": {"uri": uri}});
        if let Some(id) = mode.identifier {
            params["identifier"] = id.into();
        }
        if let Some(prev) = previous {
            params["previousResultId"] = prev.into();
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let answer = self
            .request("textDocument/diagnostic", params, left)
            .await?;
        let malformed = |e: String| {
            self.shared.malformed.fetch_add(1, Ordering::Relaxed);
            format!("{} sent a malformed diagnostic report: {e}", self.server)
        };
        let main = parse_report(&answer).map_err(malformed)?;
        let mut reports = vec![(path.to_path_buf(), main)];
        if let Some(Value::Object(related)) = answer.get("relatedDocuments") {
            for (uri, report) in related {
                let Ok(url) = lsp_types::Url::parse(uri) else {
                    continue;
                };
                let (Ok(p), Ok(r)) = (url.to_file_path(), parse_report(report)) else {
                    continue;
                };
                reports.push((p, r));
            }
        }
        self.keep_pulled(reports);
        Ok(())
    }

    fn keep_pulled(&self, reports: Vec<(PathBuf, Report)>) {
        let Ok(mut st) = self.shared.diags.lock() else {
            return;
        };
        let now = Instant::now();
        for (path, report) in reports {
            match report {
                Report::Full(id, items) => {
                    let items = convert(&self.server, &path, items);
                    let known = st.pulled.contains_key(&path) || st.open.contains(&path);
                    if !known && st.pulled.len() >= MAX_DIAGNOSTIC_FILES {
                        st.dropped_files += 1;
                        continue;
                    }
                    st.pulled.insert(path.clone(), (id, items));
                }
                Report::Unchanged(id) => {
                    if let Some(entry) = st.pulled.get_mut(&path) {
                        if id.is_some() {
                            entry.0 = id;
                        }
                    }
                }
            }
            if let Some((_, got @ None, _)) = st.timing.get_mut(&path) {
                *got = Some(now);
            }
        }
    }

    /// The pulled diagnostics of `path` (all files when `None`).
    pub(super) fn pulled(&self, path: Option<&Path>) -> Vec<Diagnostic> {
        let Ok(d) = self.shared.diags.lock() else {
            return Vec::new();
        };
        match path {
            Some(p) => d.pulled.get(p).map(|(_, v)| v.clone()).unwrap_or_default(),
            None => d.pulled.values().flat_map(|(_, v)| v.clone()).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_and_reports() {
        assert_eq!(from_capabilities(&json!({})), None);
        assert_eq!(
            from_capabilities(
                &json!({"diagnosticProvider": {"identifier": "ra", "interFileDependencies": true}})
            ),
            Some(PullMode {
                identifier: Some("ra".into())
            })
        );
        assert!(matches!(
            parse_report(&json!({"kind": "full", "resultId": "3", "items": []})),
            Ok(Report::Full(Some(id), items)) if id == "3" && items.is_empty()
        ));
        assert!(matches!(
            parse_report(&json!({"kind": "unchanged", "resultId": "3"})),
            Ok(Report::Unchanged(_))
        ));
        assert!(parse_report(&json!({"kind": "full", "items": [{"bad": 1}]})).is_err());
        assert!(parse_report(&json!({"items": []})).is_err());
    }
}
