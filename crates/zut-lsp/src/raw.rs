//! The `lsp` tool's workspace-wide and raw actions: workspace symbols,
//! `capabilities` and `request` (the escape hatch).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use crate::client::Client;
use crate::format;
use crate::manager::{join_all, LspManager};
use crate::tool::{pretty, Args, Outcome};

impl LspManager {
    pub(crate) async fn workspace_symbols(&self, a: &Args, deadline: Instant) -> Outcome {
        let clients = self.running();
        if clients.is_empty() {
            return Outcome::err(
                "workspace symbols need a running language server: open a file first (e.g. symbols with a path)",
            );
        }
        let params = json!({"query": a.query});
        let answers = join_all(clients.iter().map(|c| {
            let params = params.clone();
            async move {
                let left = deadline.saturating_duration_since(Instant::now());
                (
                    c.server.clone(),
                    c.request("workspace/symbol", params, left).await,
                )
            }
        }))
        .await;
        per_server(answers, |v| format::workspace_symbols(v, self.cwd()))
    }

    pub(crate) async fn action_capabilities(
        &self,
        a: &Args,
        path: Option<&Path>,
        deadline: Instant,
    ) -> Outcome {
        let mut map = serde_json::Map::new();
        if let Some(p) = path {
            match self.clients_for(p, false, deadline).await {
                Ok((clients, _)) => {
                    for (t, c) in clients {
                        map.insert(t.spec.id, c.capabilities.clone());
                    }
                }
                Err(e) => return Outcome::err(e),
            }
        }
        for c in self.running() {
            map.entry(c.server.clone())
                .or_insert(c.capabilities.clone());
        }
        if !a.server.is_empty() {
            return match map.get(&a.server) {
                Some(v) => Outcome::ok(pretty(&json!({ a.server.clone(): v }))),
                None => Outcome::err(format!(
                    "server {:?} is not running; give a path it handles to start it",
                    a.server
                )),
            };
        }
        if map.is_empty() {
            return Outcome::err("no language server is running; give a path to start its servers");
        }
        Outcome::ok(pretty(&Value::Object(map)))
    }

    pub(crate) async fn action_request(
        &self,
        a: &Args,
        path: Option<&Path>,
        deadline: Instant,
    ) -> Outcome {
        if a.method.trim().is_empty() {
            return Outcome::err("method is required for request");
        }
        let params = a.params.clone().unwrap_or_else(|| json!({}));
        let mut clients: Vec<Arc<Client>> = Vec::new();
        if let Some(p) = path {
            match self.clients_for(p, true, deadline).await {
                Ok((list, errs)) => {
                    if list.is_empty() {
                        return Outcome::err(errs.join("; "));
                    }
                    if let Ok(text) = tokio::fs::read_to_string(p).await {
                        for (t, c) in &list {
                            let _ = c.sync_document(p, &t.spec.language_for(p), &text).await;
                        }
                    }
                    clients.extend(list.into_iter().map(|(_, c)| c));
                }
                Err(e) => return Outcome::err(e),
            }
        } else {
            clients = self.running();
        }
        if !a.server.is_empty() {
            clients.retain(|c| c.server == a.server);
        }
        if clients.is_empty() {
            return Outcome::err(if a.server.is_empty() {
                "no language server is running; give a path to start its servers".to_string()
            } else {
                format!(
                    "server {:?} is not running; give a path it handles to start it",
                    a.server
                )
            });
        }
        let answers = join_all(clients.iter().map(|c| {
            let params = params.clone();
            let method = a.method.clone();
            async move {
                let left = deadline.saturating_duration_since(Instant::now());
                (c.server.clone(), c.request(&method, params, left).await)
            }
        }))
        .await;
        per_server(answers, pretty)
    }
}

/// One section per server: `server:` and its answer as `render` shows it,
/// or `server: error: …`; the first error is the outcome's.
fn per_server<S: std::fmt::Display>(
    answers: Vec<(S, Result<Value, String>)>,
    render: impl Fn(&Value) -> String,
) -> Outcome {
    let mut out = String::new();
    let mut err = None;
    for (server, r) in answers {
        match r {
            Ok(v) => out.push_str(&format!("{server}:\n{}\n", render(&v))),
            Err(e) => {
                out.push_str(&format!("{server}: error: {e}\n"));
                err.get_or_insert(e);
            }
        }
    }
    Outcome {
        text: out.trim_end().to_string(),
        error: err,
    }
}
