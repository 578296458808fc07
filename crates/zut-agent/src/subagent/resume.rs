//! Children of an earlier run of the parent session: listed by `status`
//! (`previous_run`, a turn that was queued or running then shown as
//! `interrupted`) and brought back by `resume`/`message` with their
//! transcript reopened.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::{mpsc, watch};
use zut_ext_host::ExtensionHost;
use zut_providers::Provider;

use crate::agent::Agent;
use crate::config::AgentConfig;
use crate::subagent::child_files::read_meta;
use crate::subagent::runtime::{child_config, clip, Child, ChildState, ChildStatus, Runtime};

impl Runtime {
    /// Children of the parent session `parent_id` left by an earlier run
    /// (not live here): their state from `result.json`, a turn that was
    /// queued or running then shown as `interrupted`. Newest last.
    pub fn previous(&self, parent_id: &str) -> Vec<Value> {
        let live: Vec<String> = self.children().iter().map(|c| c.id.clone()).collect();
        let mut out = Vec::new();
        let Ok(rd) = std::fs::read_dir(self.zut_home.join("subagents")) else {
            return out;
        };
        let mut dirs: Vec<PathBuf> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs {
            let Some(id) = dir.file_name().and_then(|n| n.to_str()).map(str::to_string) else {
                continue;
            };
            if live.contains(&id) {
                continue;
            }
            let Some(meta) = read_meta(&dir.join("transcript.jsonl")) else {
                continue;
            };
            if parent_id.is_empty() || meta.parent != parent_id {
                continue;
            }
            let sub = meta.extra.get("subagent").cloned().unwrap_or(Value::Null);
            let result: Value = std::fs::read_to_string(dir.join("result.json"))
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
                .unwrap_or(Value::Null);
            let state = match result["state"].as_str() {
                None | Some("running" | "queued") => "interrupted",
                Some(s) => s,
            };
            let mut v = json!({
                "agent_id": id,
                "state": state,
                "provider": meta.provider,
                "model": meta.model,
                "workspace_mode": sub["workspace"],
                "task": clip(sub["task"].as_str().unwrap_or_default(), 200),
                "transcript": dir.join("transcript.jsonl").display().to_string(),
                "live": false,
                "resumable": state != "stopped",
            });
            if let Some(p) = sub["profile"].as_str() {
                v["profile"] = json!(p);
            }
            out.push(v);
        }
        out
    }

    /// Brings back child `id` of an earlier run of this parent session:
    /// its transcript is reopened (history restored) and it waits for a
    /// follow-up. Errors: no such child of this parent, or its file busy.
    pub fn reattach(
        &self,
        id: &str,
        parent_id: &str,
        parent_provider: &Provider,
        host: Option<Arc<ExtensionHost>>,
        parent: &AgentConfig,
    ) -> Result<Arc<Child>, String> {
        let found = self
            .previous(parent_id)
            .into_iter()
            .filter(|v| {
                v["agent_id"]
                    .as_str()
                    .is_some_and(|a| a == id || a.starts_with(id))
            })
            .collect::<Vec<_>>();
        let [entry] = found.as_slice() else {
            return Err(format!("subagent: no such agent \"{id}\""));
        };
        let id = entry["agent_id"].as_str().unwrap_or_default().to_string();
        if entry["state"] == "stopped" {
            return Err(format!("subagent: agent \"{id}\" was stopped"));
        }
        let dir = self.zut_home.join("subagents").join(&id);
        let transcript = dir.join("transcript.jsonl");
        let meta = read_meta(&transcript)
            .ok_or_else(|| format!("subagent: {}: unreadable", transcript.display()))?;
        let sub = meta.extra.get("subagent").cloned().unwrap_or(Value::Null);
        let profile = sub["profile"]
            .as_str()
            .and_then(|n| self.profiles.get(n))
            .cloned();
        let cwd = PathBuf::from(&meta.cwd);
        let workspace = if sub["workspace"] == "worktree" {
            "worktree"
        } else {
            "shared"
        };
        let config = child_config(parent, profile.as_ref(), &cwd)?;
        let provider = if meta.model.is_empty() || meta.model == parent_provider.model() {
            parent_provider.clone()
        } else {
            parent_provider.with_model(&meta.model)
        };
        let timeout = profile
            .as_ref()
            .and_then(|p| p.timeout_secs)
            .map(Duration::from_secs)
            .unwrap_or(self.timeout);
        if workspace == "shared" {
            self.policy.check_root(&cwd)?;
        }
        let (writer, snapshot) = zut_session::SessionWriter::open(&transcript)
            .map_err(|e| format!("subagent: {}: {e}", transcript.display()))?;
        let (inbox_tx, inbox_rx) = mpsc::unbounded_channel();
        let ext_session = zut_protocol::SessionInfo {
            id: meta.id.clone(),
            parent_id: meta.parent.clone(),
            path: transcript.display().to_string(),
            cwd: cwd.display().to_string(),
            ..Default::default()
        };
        let child = Arc::new(Child {
            id: id.clone(),
            task: sub["task"].as_str().unwrap_or_default().to_string(),
            profile: profile.as_ref().map(|p| p.name.clone()),
            provider: provider.name().to_string(),
            model: provider.model().to_string(),
            reasoning: config.reasoning,
            workspace,
            cwd,
            dir,
            transcript,
            required: false,
            ext_session,
            started: Instant::now(),
            status: Mutex::new(ChildStatus {
                state: ChildState::Interrupted,
                final_text: String::new(),
                error: None,
                turns: 0,
                steps: 0,
                tokens: (0, 0),
                usage: Default::default(),
                tool: None,
                pending: 0,
            }),
            changed: watch::channel(0u64).0,
            inbox: inbox_tx,
            stop: self.root.child_token(),
            turn: Mutex::new(None),
        });
        let mut agent = Agent::new(provider, host, config);
        agent.attach_session(writer, Some(&snapshot));
        let only = profile.as_ref().and_then(|p| p.tools.clone());
        self.start_child(&child, agent, only, timeout, inbox_rx);
        Ok(child)
    }
}
