//! The `subagent` tool (tools.md §11): one flat schema, one action per
//! call — `spawn`, `status`, `stop`, `resume`, `interrupt` as in the Go
//! original, plus zut's `wait` (block until children settle) and
//! `message`/`steer` (aliases of `resume` with `mode: steer`).

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use zut_providers::Part;

use crate::agent::Agent;
use crate::subagent::runtime::{clip, Child, ChildState, Runtime, SpawnSpec, SUMMARY_BYTES};
use crate::toolset::{ToolEntry, ToolOwner, Toolset};

/// The tool's name (and the `--tools` selector; `subagent:<action>` selects it too).
pub const TOOL_NAME: &str = "subagent";

/// Which actions own each field (for the Go original's "belongs to" errors).
const OWNERS: &[(&str, &[&str])] = &[
    ("task", &["spawn"]),
    ("agent", &["spawn"]),
    ("model", &["spawn"]),
    ("provider", &["spawn"]),
    ("reasoning", &["spawn"]),
    ("fast_mode", &["spawn"]),
    ("required", &["spawn"]),
    ("isolation", &["spawn"]),
    ("timeout", &["spawn"]),
    ("max_turns", &["spawn"]),
    ("wait", &["spawn", "resume", "wait"]),
    (
        "agent_id",
        &["status", "stop", "resume", "interrupt", "wait"],
    ),
    ("include_result", &["status"]),
    ("watch", &["status"]),
    ("prompt", &["resume"]),
    ("mode", &["resume"]),
];

const ACTIONS: &[&str] = &[
    "spawn",
    "status",
    "stop",
    "resume",
    "interrupt",
    "wait",
    "message",
    "steer",
];

/// The JSON schema.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ACTIONS, "description": "spawn a child, status (list or one), wait for children, stop, interrupt its running turn, resume (send a follow-up; message/steer = resume with mode steer)"},
            "task": {"type": "string", "description": "spawn: the full, self-contained task; the child starts with no parent context"},
            "agent": {"type": "string", "description": "spawn: a named profile from the list in this description"},
            "model": {"type": "string", "description": "spawn: model id (with provider)"},
            "provider": {"type": "string", "description": "spawn: provider id (with model); must be the parent's"},
            "reasoning": {"type": "string", "enum": ["off", "minimum", "low", "medium", "high", "xhigh", "max"]},
            "fast_mode": {"type": "boolean"},
            "required": {"type": "boolean", "description": "spawn: the parent should not finish before this child's result"},
            "wait": {"type": "integer", "minimum": 1, "maximum": 3600, "description": "seconds to block for the child's turn (spawn, resume: 1-300; wait: default 300)"},
            "isolation": {"type": "string", "enum": ["shared", "worktree"], "description": "spawn: shared workspace (default) or a git worktree of its own"},
            "timeout": {"type": "integer", "minimum": 1, "description": "spawn: seconds each of the child's turns may run"},
            "max_turns": {"type": "integer", "minimum": 1, "description": "spawn: model calls per child turn"},
            "agent_id": {"type": "string", "description": "child id or unique prefix"},
            "include_result": {"type": "boolean", "description": "status: include the saved final result"},
            "watch": {"type": "integer", "minimum": 1, "maximum": 60, "description": "status: wait up to N seconds for the child to settle"},
            "prompt": {"type": "string", "description": "resume: the follow-up"},
            "mode": {"type": "string", "enum": ["steer", "queue"], "description": "resume: steer (default) interrupts the running turn and continues with the prompt; queue runs it after"}
        },
        "required": ["action"]
    })
}

/// The description, with the profiles the model may name.
pub fn description(rt: Option<&Runtime>) -> String {
    let mut d = String::from(
        "Delegate a self-contained task to a sub-agent: an in-process child with a fresh context, its own session file and (isolation: worktree) its own git worktree. Children run in parallel in the background; their completions are reported to you as [auto-subagents update] context, or block with wait. Children cannot spawn children.",
    );
    if let Some(rt) = rt {
        let profiles = &rt.profiles().profiles;
        if !profiles.is_empty() {
            d.push_str("\n[subagents_list]\nNamed profiles for spawn's `agent`:\n");
            for p in profiles {
                let mut meta = Vec::new();
                if let Some(m) = &p.model {
                    meta.push(format!("model={m}"));
                }
                if let Some(pr) = &p.provider {
                    meta.push(format!("provider={pr}"));
                }
                if let Some(r) = p.reasoning {
                    meta.push(format!("thinking={}", r.as_str()));
                }
                if let Some(t) = &p.tools {
                    meta.push(format!("tools={}", t.join(",")));
                }
                if let Some(f) = p.fast_mode {
                    meta.push(format!("fastMode={f}"));
                }
                let desc = if p.description.is_empty() {
                    "(no description)"
                } else {
                    p.description.as_str()
                };
                if meta.is_empty() {
                    d.push_str(&format!("- {}: {desc}\n", p.name));
                } else {
                    d.push_str(&format!("- {} [{}]: {desc}\n", p.name, meta.join(" ")));
                }
            }
            d.push_str("[/subagents_list]");
        }
    }
    d
}

fn err(text: impl Into<String>) -> (bool, Vec<Part>) {
    (true, vec![Part::Text { text: text.into() }])
}

fn ok(text: impl Into<String>) -> (bool, Vec<Part>) {
    (false, vec![Part::Text { text: text.into() }])
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Checks the action and field ownership; returns the canonical action.
fn dispatch(args: &Map<String, Value>) -> Result<&'static str, String> {
    let action = match args.get("action") {
        None | Some(Value::Null) => return Err("subagent: action is required".into()),
        Some(Value::String(s)) if s.trim().is_empty() => {
            return Err("subagent: action is required".into())
        }
        Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
        Some(_) => return Err("subagent: action must be a string".into()),
    };
    let Some(action) = ACTIONS.iter().copied().find(|a| *a == action) else {
        return Err("subagent: unknown action".into());
    };
    let owner_action = match action {
        "message" | "steer" => "resume",
        a => a,
    };
    for (field, owners) in OWNERS {
        if args.contains_key(*field) && !owners.contains(&owner_action) {
            let belongs = if owners.len() == 1 {
                format!("it belongs to action {}", owners[0])
            } else {
                format!("it belongs to the {} actions", owners.join(", "))
            };
            return Err(format!(
                "subagent: {field} is not valid for action {action}; {belongs}"
            ));
        }
    }
    Ok(action)
}

fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn int_arg(args: &Map<String, Value>, key: &str) -> Option<u64> {
    args.get(key).and_then(Value::as_u64)
}

impl Agent {
    /// The child runtime, made on first use.
    fn subagent_runtime(&mut self) -> Arc<Runtime> {
        if let Some(rt) = &self.subagents {
            return rt.clone();
        }
        let (home, cwd) = (self.config.system.zut_home.clone(), self.config.cwd.clone());
        let rt = Arc::new(Runtime::from_env(home, &cwd, self.config.subagents.clone()));
        self.subagent_link.attach(&rt);
        self.subagents = Some(rt.clone());
        rt
    }

    /// Adds the `subagent` tool when the enabled tools name it.
    pub(crate) fn add_subagent_tool(&mut self, tools: &mut Toolset) {
        if !self.config.builtin_tools.iter().any(|t| t == TOOL_NAME) {
            return;
        }
        let rt = self.subagent_runtime();
        tools.push(ToolEntry {
            name: TOOL_NAME.to_string(),
            description: description(Some(&rt)),
            schema: schema().into(),
            owner: ToolOwner::Subagent,
            deferred: false,
        });
    }

    /// Runs one `subagent` call. Boxed: a child's turn loop contains this
    /// future's type (children are agents too), so it is erased here.
    pub(crate) fn run_subagent<'a>(
        &'a mut self,
        args: &'a Value,
        cancel: &'a CancellationToken,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = (bool, Vec<Part>)> + Send + 'a>> {
        Box::pin(self.run_subagent_inner(args, cancel))
    }

    async fn run_subagent_inner(
        &mut self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> (bool, Vec<Part>) {
        let empty = Map::new();
        let args = args.as_object().unwrap_or(&empty);
        let action = match dispatch(args) {
            Ok(a) => a,
            Err(e) => return err(e),
        };
        let rt = self.subagent_runtime();
        rt.watch_parent(cancel);
        let parent_id = self
            .session
            .as_ref()
            .map(|s| s.writer().meta().id.clone())
            .unwrap_or_default();
        match action {
            "spawn" => self.subagent_spawn(&rt, args).await,
            "status" => status(&rt, args, &parent_id).await,
            "wait" => wait(&rt, args).await,
            "stop" => stop(&rt, args).await,
            "interrupt" => interrupt(&rt, args),
            _ => {
                // A child of an earlier run of this session comes back first.
                if let Some(id) = str_arg(args, "agent_id") {
                    if rt.find(id).is_err() {
                        if let Err(e) = rt.reattach(
                            id,
                            &parent_id,
                            &self.provider,
                            self.host.clone(),
                            &self.config,
                        ) {
                            return err(e);
                        }
                    }
                }
                resume(&rt, args, action).await
            }
        }
    }

    async fn subagent_spawn(
        &mut self,
        rt: &Arc<Runtime>,
        args: &Map<String, Value>,
    ) -> (bool, Vec<Part>) {
        let Some(task) = str_arg(args, "task") else {
            return err("subagent: task is required");
        };
        let wait = int_arg(args, "wait");
        if wait.is_some_and(|w| !(1..=300).contains(&w)) {
            return err("subagent: wait must be between 1 and 300 seconds");
        }
        let worktree = match str_arg(args, "isolation") {
            None | Some("shared") => false,
            Some("worktree") => true,
            Some(_) => return err("subagent: isolation must be shared or worktree"),
        };
        let profile = match str_arg(args, "agent") {
            None => None,
            Some(name) => match rt.profiles().get(name) {
                Some(p) => Some(p.clone()),
                None => return err(format!("subagent: unknown subagent profile {name}")),
            },
        };
        let (model, provider) = (str_arg(args, "model"), str_arg(args, "provider"));
        if model.is_some() != provider.is_some() {
            return err("subagent: omit both model/provider to inherit the host or profile, or provide both explicitly");
        }
        if let Some(p) = provider {
            if p != self.provider.name() {
                return err(format!(
                    "subagent: provider {p:?} is not the parent's ({}); zut children share the parent's provider",
                    self.provider.name()
                ));
            }
        }
        let reasoning = match str_arg(args, "reasoning") {
            None => None,
            Some(r) => match zut_providers::parse_reasoning(r) {
                Ok(r) => Some(r),
                Err(e) => return err(format!("subagent: {e}")),
            },
        };
        if let Some(p) = &profile {
            if let Some(tools) = &p.tools {
                if let Some(bad) = tools.iter().find(|t| !self.known_tool(t)) {
                    return err(format!(
                        "subagent: profile {:?} ({}) names unknown tool {bad:?}",
                        p.name,
                        p.path.display()
                    ));
                }
            }
        }
        let spec = SpawnSpec {
            task: task.to_string(),
            profile,
            model: model.map(str::to_string),
            reasoning,
            worktree,
            timeout: int_arg(args, "timeout")
                .filter(|n| *n > 0)
                .map(Duration::from_secs),
            max_turns: int_arg(args, "max_turns")
                .filter(|n| *n > 0)
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            required: args
                .get("required")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        let parent_session = self.session.as_ref().map(|s| {
            (
                s.writer().meta().id.clone(),
                s.writer().path().to_path_buf(),
            )
        });
        let only = spec.profile.as_ref().and_then(|p| p.tools.clone());
        let notes = spawn_notes(rt, &self.config.jail, spec.profile.as_ref());
        let child = match rt
            .spawn(
                spec,
                &self.provider,
                self.host.clone(),
                &self.config,
                parent_session,
                only,
            )
            .await
        {
            Ok(c) => c,
            Err(e) => return err(e),
        };
        let mut text = format!(
            "spawned sub-agent {}\nstate: {}\nworkspace: {}\ntask: {}\n",
            child.id,
            child.status().state.as_str(),
            child.workspace,
            clip(&child.task, 200)
        );
        if let Some(p) = &child.profile {
            text.push_str(&format!("agent: {p}\n"));
        }
        text.push_str(&format!(
            "model: {}\nprovider: {}\n",
            child.model, child.provider
        ));
        if child.reasoning != zut_providers::Reasoning::Off {
            text.push_str(&format!("reasoning: {}\n", child.reasoning.as_str()));
        }
        if child.required {
            text.push_str("required: pending\n");
        }
        text.push_str(&format!("transcript: {}\n", child.transcript.display()));
        if child.workspace == "worktree" {
            text.push_str(&format!("worktree: {}\n", child.cwd.display()));
        }
        for n in notes {
            text.push_str(&n);
            text.push('\n');
        }
        match wait {
            None => text.push_str("\nThe sub-agent is running in the background. Completion is host-event-driven through [auto-subagents update]."),
            Some(secs) => text.push_str(&settled_text(rt, &child, secs).await),
        }
        ok(text)
    }

    /// A tool name a profile may list: a built-in, the web selector, the
    /// skill tool, or one of the loaded extensions' tools.
    fn known_tool(&self, name: &str) -> bool {
        zut_tools::BUILTIN_NAMES.contains(&name)
            || name == "web_search"
            || zut_web::is_web_tool(name)
            || name == crate::skills::SKILL_TOOL
            || name == TOOL_NAME
            || self
                .host
                .as_ref()
                .is_some_and(|h| h.tools().iter().any(|t| t.name == name))
    }
}

/// What a spawn's answer notes about the child's limits: a profile's
/// `sandbox` wider than the parent's jail, profile tools that
/// `subagents.allowed_tools` leaves out.
fn spawn_notes(
    rt: &Runtime,
    jail: &zut_tools::JailSwitch,
    profile: Option<&crate::subagent::profiles::Profile>,
) -> Vec<String> {
    let Some(p) = profile else {
        return Vec::new();
    };
    let mut notes: Vec<String> = crate::subagent::sandbox::wider_note(jail, p.sandbox)
        .into_iter()
        .collect();
    let left_out: Vec<&str> = p
        .tools
        .iter()
        .flatten()
        .filter(|t| !rt.policy().allows_tool(t))
        .map(String::as_str)
        .collect();
    if !left_out.is_empty() {
        notes.push(format!(
            "note: subagents.allowed_tools leaves out the profile's {}",
            left_out.join(", ")
        ));
    }
    notes
}

/// Waits up to `secs` for `child`'s turn and describes how it ended.
async fn settled_text(rt: &Runtime, child: &Arc<Child>, secs: u64) -> String {
    if !child.wait_settled(Duration::from_secs(secs)).await {
        return format!(
            "wait: timed out after {secs} seconds\nThe sub-agent keeps running; use subagent wait or status later.\n"
        );
    }
    rt.forget_updates(&child.id);
    let st = child.status();
    let mut text = format!("state: {}\n", st.state.as_str());
    if let Some(e) = &st.error {
        text.push_str(&format!("error: {e}\n"));
    }
    text.push_str(&usage_line(&st.usage));
    text.push_str(&format!("final: {}\n", summary(&st.final_text, child)));
    text
}

/// `usage: <in> in, <out> out, $<cost>` of a child (its own figures; the
/// parent's totals include them).
fn usage_line(u: &crate::event::UsageCounts) -> String {
    let cost = if u.cost_known {
        format!(", ${:.4}", u.cost_usd)
    } else {
        String::new()
    };
    format!("usage: {} in, {} out{cost}\n", u.input, u.output)
}

/// The final text, bounded, with where the rest is.
fn summary(text: &str, child: &Child) -> String {
    if text.len() <= SUMMARY_BYTES {
        return text.to_string();
    }
    format!(
        "{}\n[truncated at {SUMMARY_BYTES} bytes; the full text is in {} and the transcript]",
        clip(text, SUMMARY_BYTES),
        child.dir.join("result.json").display()
    )
}

fn child_json(child: &Child, with_result: bool) -> Value {
    let mut v = child.to_json();
    if with_result {
        let st = child.status();
        v["result"] = json!(summary(&st.final_text, child));
    }
    v
}

fn listing(rt: &Runtime) -> Vec<Value> {
    let all = rt.children();
    let skip = all.len().saturating_sub(50);
    all.iter().skip(skip).map(|c| c.to_json()).collect()
}

fn find(rt: &Runtime, args: &Map<String, Value>) -> Result<Arc<Child>, String> {
    match str_arg(args, "agent_id") {
        None => Err("subagent: agent_id is required".into()),
        Some(id) => rt.find(id),
    }
}

async fn status(rt: &Runtime, args: &Map<String, Value>, parent_id: &str) -> (bool, Vec<Part>) {
    let Some(id) = str_arg(args, "agent_id") else {
        let mut v = json!({"agents": listing(rt)});
        let previous = rt.previous(parent_id);
        if !previous.is_empty() {
            v["previous_run"] = json!(previous);
        }
        return ok(pretty(&v));
    };
    let child = match rt.find(id) {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    if let Some(secs) = int_arg(args, "watch") {
        child
            .wait_settled(Duration::from_secs(secs.clamp(1, 60)))
            .await;
    }
    let with_result = args
        .get("include_result")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    ok(pretty(
        &json!({"agent": child_json(&child, with_result), "agents": listing(rt)}),
    ))
}

async fn wait(rt: &Runtime, args: &Map<String, Value>) -> (bool, Vec<Part>) {
    let secs = int_arg(args, "wait").unwrap_or(300).clamp(1, 3600);
    let children: Vec<Arc<Child>> = match str_arg(args, "agent_id") {
        Some(id) => match rt.find(id) {
            Ok(c) => vec![c],
            Err(e) => return err(e),
        },
        None => rt.children(),
    };
    if children.is_empty() {
        return err("subagent: no sub-agents to wait for");
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    let mut timed_out = false;
    for c in &children {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if !c.wait_settled(left).await {
            timed_out = true;
        }
    }
    let agents: Vec<Value> = children
        .iter()
        .map(|c| {
            if c.status().state.is_settled() {
                rt.forget_updates(&c.id);
            }
            child_json(c, true)
        })
        .collect();
    ok(pretty(
        &json!({"action": "wait", "timed_out": timed_out, "agents": agents}),
    ))
}

async fn stop(rt: &Runtime, args: &Map<String, Value>) -> (bool, Vec<Part>) {
    let child = match find(rt, args) {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    child.stop();
    // The running tool's process group goes with the turn: give it a moment.
    child.wait_settled(Duration::from_secs(5)).await;
    ok(pretty(
        &json!({"action": "stop_requested", "agent": child.to_json()}),
    ))
}

fn interrupt(rt: &Runtime, args: &Map<String, Value>) -> (bool, Vec<Part>) {
    let child = match find(rt, args) {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    if !child.interrupt() {
        return err(format!(
            "subagent: agent \"{}\" has no running turn to interrupt",
            child.id
        ));
    }
    ok(pretty(
        &json!({"action": "interrupt_requested", "agent": child.to_json()}),
    ))
}

async fn resume(rt: &Runtime, args: &Map<String, Value>, action: &str) -> (bool, Vec<Part>) {
    let child = match find(rt, args) {
        Ok(c) => c,
        Err(e) => return err(e),
    };
    let Some(prompt) = str_arg(args, "prompt") else {
        return err(format!("subagent: {action}: prompt is required"));
    };
    let wait = int_arg(args, "wait");
    if wait.is_some_and(|w| !(1..=300).contains(&w)) {
        return err("subagent: wait must be between 1 and 300 seconds");
    }
    let mode = match (action, str_arg(args, "mode")) {
        ("message" | "steer", _) | (_, None | Some("steer")) => "steer",
        (_, Some("queue")) => "queue",
        (_, Some(_)) => return err("subagent: mode must be steer or queue"),
    };
    if child.status().state == ChildState::Stopped {
        return err(format!("subagent: agent \"{}\" was stopped", child.id));
    }
    if mode == "steer" {
        child.interrupt();
    }
    if let Err(e) = child.send(prompt.to_string()) {
        return err(format!("subagent: {e}"));
    }
    let mut v = json!({"action": "resumed", "mode": mode, "agent": child.to_json()});
    if let Some(secs) = wait {
        let settled = child.wait_settled(Duration::from_secs(secs)).await;
        if settled {
            rt.forget_updates(&child.id);
        }
        v["wait"] = json!(if settled { "settled" } else { "timed_out" });
        v["agent"] = child_json(&child, settled);
    }
    ok(pretty(&v))
}
