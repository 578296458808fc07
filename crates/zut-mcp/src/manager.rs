//! `McpManager`: every configured server, started in parallel on tasks
//! (nothing waits for them), their tools, prompts and resources, calls, and
//! shutdown with zut.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::catalog::{McpPrompt, McpResource, McpTool};
use crate::config::ServerConfig;
use crate::content::{map_call_result, map_resource, McpContent, McpToolResult};
use crate::settings::McpSettings;
use crate::slot::{ProgressFn, Slot};
use crate::sources::{Configured, ConfiguredServer};
use crate::status::{ServerInfo, ServerStatus};
use crate::supervisor::Env;

/// Environment lookup for `${VAR}` expansion.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Inputs of [`McpManager::start`].
#[derive(Clone)]
pub struct McpOptions {
    /// `$ZUT_HOME`.
    pub home: PathBuf,
    /// The project directory (stdio servers run there; `.mcp.json` is read there).
    pub project: PathBuf,
    /// Settings (`config.json` keys, environment).
    pub settings: McpSettings,
    /// Environment lookup for `${VAR}` expansion.
    pub env: EnvLookup,
    /// The session's jail switch: stdio servers start under the jail while
    /// it is on (see [`crate::sandbox`]); the default is off.
    pub jail: zut_tools::JailSwitch,
    /// MCP elicitation: declared to the servers only while a front end
    /// can answer ([`McpManager::set_elicitation_asker`]); the default
    /// declares nothing.
    pub elicitation: crate::elicit::Elicitation,
}

impl McpOptions {
    /// Options from `$ZUT_HOME/config.json` and the process environment.
    pub fn from_env(home: &Path, project: &Path) -> (Self, Vec<String>) {
        let config = crate::settings::read_config_json(home);
        let (settings, warnings) = McpSettings::from_config(&config, &|k| std::env::var(k).ok());
        (
            Self {
                home: home.to_path_buf(),
                project: project.to_path_buf(),
                settings,
                env: Arc::new(|k| std::env::var(k).ok()),
                jail: zut_tools::JailSwitch::default(),
                elicitation: crate::elicit::Elicitation::default(),
            },
            warnings,
        )
    }
}

struct Inner {
    opts: McpOptions,
    slots: RwLock<BTreeMap<String, Arc<Slot>>>,
    generation: Arc<AtomicU64>,
    stop: CancellationToken,
    notes: RwLock<Vec<String>>,
    env: Arc<Env>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
        for slot in self
            .slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            slot.kill_now();
        }
    }
}

/// Every MCP server of one zut process (or one ACP session). Cheap to clone.
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager")
            .field("servers", &self.names())
            .finish()
    }
}

impl McpManager {
    /// Reads every source and starts the trusted, enabled servers on tasks
    /// of the current runtime. Returns at once.
    pub fn start(opts: McpOptions) -> Self {
        let configured = crate::sources::load(&opts.home, &opts.project);
        Self::start_configured(opts, configured)
    }

    /// [`McpOptions::from_env`] then [`McpManager::start`]: the front ends'
    /// one call. Returns the lines to show once (settings warnings,
    /// configuration problems, overrides, servers waiting for trust).
    pub fn start_default(home: &Path, project: &Path) -> (Self, Vec<String>) {
        Self::start_default_jailed(home, project, zut_tools::JailSwitch::default())
    }

    /// [`McpManager::start_default`] with the session's jail switch.
    pub fn start_default_jailed(
        home: &Path,
        project: &Path,
        jail: zut_tools::JailSwitch,
    ) -> (Self, Vec<String>) {
        Self::start_default_with(home, project, jail, crate::elicit::Elicitation::default())
    }

    /// [`McpManager::start_default_jailed`] with the elicitation handle
    /// (declared from the start when the front end can answer).
    pub fn start_default_with(
        home: &Path,
        project: &Path,
        jail: zut_tools::JailSwitch,
        elicitation: crate::elicit::Elicitation,
    ) -> (Self, Vec<String>) {
        let (mut opts, mut notes) = McpOptions::from_env(home, project);
        opts.jail = jail;
        opts.elicitation = elicitation;
        let mgr = Self::start(opts);
        notes.extend(mgr.notes());
        (mgr, notes)
    }

    /// [`McpManager::start_default_with`] for `zut -p`: the servers' first
    /// start is held until [`McpManager::release_starts`] (the first model
    /// request is being sent), anything waits for a server, or `hold` has
    /// passed ([`crate::gate`]).
    pub fn start_default_held(
        home: &Path,
        project: &Path,
        jail: zut_tools::JailSwitch,
        elicitation: crate::elicit::Elicitation,
        hold: Duration,
    ) -> (Self, Vec<String>) {
        let (mut opts, mut notes) = McpOptions::from_env(home, project);
        opts.jail = jail;
        opts.elicitation = elicitation;
        let configured = crate::sources::load(&opts.home, &opts.project);
        let mgr = Self::start_gated(opts, configured, crate::gate::StartGate::held(hold));
        notes.extend(mgr.notes());
        (mgr, notes)
    }

    /// Lets held servers start now (see [`McpManager::start_default_held`]).
    pub fn release_starts(&self) {
        self.inner.env.gate.open();
    }

    /// Starts the servers of `configured` (see [`crate::sources::load`]).
    pub fn start_configured(opts: McpOptions, configured: Configured) -> Self {
        Self::start_gated(opts, configured, crate::gate::StartGate::default())
    }

    fn start_gated(opts: McpOptions, configured: Configured, gate: crate::gate::StartGate) -> Self {
        let mut notes: Vec<String> = configured
            .problems
            .iter()
            .map(|p| format!("mcp: {p}"))
            .collect();
        notes.extend(configured.override_notes());
        let untrusted: Vec<String> = configured
            .untrusted()
            .iter()
            .map(|s| s.config.name.clone())
            .collect();
        if !untrusted.is_empty() {
            notes.push(format!(
                "mcp: project servers not started until trusted ({}): run `zut mcp trust` in {}",
                untrusted.join(", "),
                opts.project.display()
            ));
        }
        let env = Arc::new(Env {
            project: opts.project.clone(),
            home: opts.home.clone(),
            startup_timeout: opts.settings.startup_timeout,
            env: opts.env.clone(),
            jail: opts.jail.clone(),
            elicitation: opts.elicitation.clone(),
            gate,
        });
        let mgr = Self {
            inner: Arc::new(Inner {
                opts,
                slots: RwLock::new(BTreeMap::new()),
                generation: Arc::new(AtomicU64::new(0)),
                stop: CancellationToken::new(),
                notes: RwLock::new(notes),
                env,
            }),
        };
        for server in configured.servers {
            mgr.add(server);
        }
        mgr
    }

    /// A manager with no servers.
    pub fn empty(home: &Path, project: &Path) -> Self {
        let opts = McpOptions {
            home: home.to_path_buf(),
            project: project.to_path_buf(),
            settings: McpSettings::default(),
            env: Arc::new(|k| std::env::var(k).ok()),
            jail: zut_tools::JailSwitch::default(),
            elicitation: crate::elicit::Elicitation::default(),
        };
        Self::start_configured(opts, Configured::default())
    }

    fn add(&self, server: ConfiguredServer) {
        let name = server.config.name.clone();
        let status = if server.config.disabled {
            ServerStatus::Disabled
        } else if !server.trusted {
            ServerStatus::Untrusted
        } else {
            ServerStatus::Starting
        };
        let log = self
            .inner
            .opts
            .home
            .join("logs")
            .join(format!("mcp-{name}.log"));
        let slot = Slot::new(
            server.config,
            status.clone(),
            self.inner.generation.clone(),
            log,
            &self.inner.stop,
        );
        if let Some(old) = self
            .inner
            .slots
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, slot.clone())
        {
            old.stop.cancel();
        }
        if status == ServerStatus::Starting {
            tokio::spawn(crate::supervisor::run(slot, self.inner.env.clone()));
        }
    }

    /// Adds (and starts) servers that need no trust answer, e.g. those an
    /// editor passes in ACP `session/new`; a server of the same name is
    /// replaced.
    pub fn add_servers(&self, servers: Vec<ServerConfig>) {
        for config in servers {
            self.add(ConfiguredServer {
                config,
                trusted: true,
                overrides: Vec::new(),
            });
        }
    }

    /// Stops and forgets the named servers.
    pub async fn remove_servers(&self, names: &[String]) {
        let removed: Vec<Arc<Slot>> = {
            let mut slots = self.inner.slots.write().unwrap_or_else(|e| e.into_inner());
            names.iter().filter_map(|n| slots.remove(n)).collect()
        };
        for slot in removed {
            stop_slot(&slot).await;
        }
        self.inner.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn slots(&self) -> Vec<Arc<Slot>> {
        self.inner
            .slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect()
    }

    fn slot(&self, name: &str) -> Option<Arc<Slot>> {
        self.inner
            .slots
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// Server names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.slots().iter().map(|s| s.config.name.clone()).collect()
    }

    /// The settings in force.
    pub fn settings(&self) -> &McpSettings {
        &self.inner.opts.settings
    }

    /// Configuration problems, overrides and trust notes, one line each,
    /// for the front end to show once.
    pub fn notes(&self) -> Vec<String> {
        self.inner
            .notes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A snapshot of every server.
    pub fn servers(&self) -> Vec<ServerInfo> {
        self.slots().iter().map(|s| s.info()).collect()
    }

    /// Changes whenever a server's state or lists change (for caches).
    pub fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::Relaxed)
    }

    /// The tools of every ready server, sorted by name.
    pub fn tools(&self) -> Vec<McpTool> {
        let mut tools: Vec<McpTool> = self
            .slots()
            .iter()
            .filter(|s| s.status() == ServerStatus::Ready)
            .flat_map(|s| s.catalog().tools.clone())
            .collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools
    }

    /// The prompts of every ready server.
    pub fn prompts(&self) -> Vec<McpPrompt> {
        self.slots()
            .iter()
            .filter(|s| s.status() == ServerStatus::Ready)
            .flat_map(|s| s.catalog().prompts.clone())
            .collect()
    }

    /// The resources of every ready server.
    pub fn resources(&self) -> Vec<McpResource> {
        self.slots()
            .iter()
            .filter(|s| s.status() == ServerStatus::Ready)
            .flat_map(|s| s.catalog().resources.clone())
            .collect()
    }

    /// The `instructions` of ready servers, `(server, text)`.
    pub fn instructions(&self) -> Vec<(String, String)> {
        self.slots()
            .iter()
            .filter_map(|s| {
                let c = s.catalog();
                c.instructions.clone().map(|i| (s.config.name.clone(), i))
            })
            .collect()
    }

    /// Waits until every server is past `starting` or `max` has passed.
    pub async fn wait_settled(&self, max: Duration) {
        self.release_starts();
        let _ = tokio::time::timeout(max, async {
            for slot in self.slots() {
                let mut rx = slot.status.subscribe();
                let _ = rx.wait_for(|s| s.settled()).await;
            }
        })
        .await;
    }

    /// Waits for the server owning the tool `name` (`mcp__<server>__…`) to
    /// settle, at most `max`; true if it is ready.
    pub async fn wait_for_tool_server(&self, name: &str, max: Duration) -> bool {
        self.release_starts();
        let Some(server) = crate::naming::server_of(name) else {
            return false;
        };
        let Some(slot) = self.slots().into_iter().find(|s| s.config.name == server) else {
            return false;
        };
        self.settle(&slot, max).await;
        slot.status() == ServerStatus::Ready
    }

    /// Lets the servers start, then waits until `slot` is past `starting`,
    /// at most `max`.
    async fn settle(&self, slot: &Slot, max: Duration) {
        self.release_starts();
        let mut rx = slot.status.subscribe();
        let _ = tokio::time::timeout(max, rx.wait_for(|s| s.settled())).await;
    }

    /// Calls the MCP tool `name` (`mcp__<server>__<tool>`) with `args`
    /// (already validated by the caller). Never fails: problems become
    /// error results. The per-call timeout is the server's `timeout`, else
    /// `mcp_tool_timeout`.
    pub async fn call_tool(
        &self,
        name: &str,
        args: Value,
        cancel: &CancellationToken,
        progress: Option<ProgressFn>,
    ) -> McpToolResult {
        let found = self.slots().into_iter().find_map(|s| {
            let tool = s.catalog().tools.iter().find(|t| t.name == name).cloned();
            tool.map(|t| (s, t))
        });
        let Some((slot, tool)) = found else {
            return McpToolResult::error(format!("MCP tool {name} is not available"));
        };
        let Some(peer) = slot.peer() else {
            return McpToolResult::error(format!(
                "MCP server {} is not connected ({})",
                slot.config.name,
                slot.status().word()
            ));
        };
        let timeout = self.timeout(&slot);
        match crate::call::call_tool(&slot, &peer, &tool.tool, args, timeout, cancel, progress)
            .await
        {
            Ok(v) => map_call_result(&v),
            Err(e) => McpToolResult::error(format!(
                "MCP tool {} of server {}: {e}",
                tool.tool, slot.config.name
            )),
        }
    }

    /// `resources/read` of `uri` on `server`.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Vec<McpContent>, String> {
        let req =
            rmcp::model::ClientRequest::ReadResourceRequest(rmcp::model::ReadResourceRequest::new(
                rmcp::model::ReadResourceRequestParams::new(uri.to_string()),
            ));
        let v = self.request(server, req, cancel).await?;
        Ok(v.get("contents")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(map_resource).collect())
            .unwrap_or_default())
    }

    /// The resources `@server:uri` mentions in `text` name, read and
    /// bounded for attaching to the prompt (see [`crate::mentions`]); a
    /// mention that cannot be read gives a line saying why. Empty when
    /// `text` mentions nothing. Waits for a mentioned server still
    /// starting (up to the startup timeout).
    pub async fn read_mentions(&self, text: &str, cancel: &CancellationToken) -> Vec<McpContent> {
        use crate::mentions::{attach, failure, find, MAX_MENTIONS, MAX_TOTAL_BYTES};
        let names = self.names();
        let mut out = Vec::new();
        let mut budget = MAX_TOTAL_BYTES;
        for (i, m) in find(text, &names).iter().enumerate() {
            if i >= MAX_MENTIONS {
                out.push(failure(
                    m,
                    &format!("more than {MAX_MENTIONS} mentions in one prompt"),
                ));
                continue;
            }
            let Some(slot) = self.slot(&m.server) else {
                out.push(failure(
                    m,
                    &format!(
                        "no MCP server named {:?} (configured: {})",
                        m.server,
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                ));
                continue;
            };
            self.settle(&slot, self.inner.opts.settings.startup_timeout)
                .await;
            if budget == 0 {
                out.push(failure(
                    m,
                    &format!("the prompt's attachments are full ({MAX_TOTAL_BYTES} bytes)"),
                ));
                continue;
            }
            let status = slot.status();
            if status != ServerStatus::Ready {
                out.push(failure(
                    m,
                    &format!("MCP server {} is {}", m.server, status.word()),
                ));
                continue;
            }
            match self.read_resource(&m.server, &m.uri, cancel).await {
                Ok(c) if c.is_empty() => out.push(failure(m, "the server returned no contents")),
                Ok(c) => out.extend(attach(m, c, &mut budget)),
                Err(e) => {
                    let listed: Vec<String> = slot
                        .catalog()
                        .resources
                        .iter()
                        .take(10)
                        .map(|r| r.uri.clone())
                        .collect();
                    let hint = if listed.contains(&m.uri) || listed.is_empty() {
                        String::new()
                    } else {
                        format!(" (it lists: {})", listed.join(", "))
                    };
                    out.push(failure(
                        m,
                        &format!("MCP server {} could not read it: {e}{hint}", m.server),
                    ));
                }
            }
        }
        out
    }

    /// `prompts/get`: the prompt's messages as one text (roles as headers
    /// when there are several), for a slash command to send as the user
    /// message.
    pub async fn get_prompt(
        &self,
        server: &str,
        prompt: &str,
        args: BTreeMap<String, String>,
        cancel: &CancellationToken,
    ) -> Result<String, String> {
        let mut params = rmcp::model::GetPromptRequestParams::new(prompt.to_string());
        if !args.is_empty() {
            params = params.with_arguments(
                args.into_iter()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect(),
            );
        }
        let req = rmcp::model::ClientRequest::GetPromptRequest(rmcp::model::GetPromptRequest::new(
            params,
        ));
        let v = self.request(server, req, cancel).await?;
        Ok(crate::prompts::render_messages(&v))
    }

    /// Sends `req` to the connected server `server` with its per-call
    /// timeout; the result as JSON, or the error as text.
    async fn request(
        &self,
        server: &str,
        req: rmcp::model::ClientRequest,
        cancel: &CancellationToken,
    ) -> Result<Value, String> {
        let slot = self
            .slot(server)
            .ok_or_else(|| format!("no MCP server named {server}"))?;
        let peer = slot
            .peer()
            .ok_or_else(|| format!("MCP server {server} is not connected"))?;
        let timeout = self.timeout(&slot);
        let result = crate::call::request(&slot, &peer, req, timeout, cancel, None)
            .await
            .map_err(|e| e.to_string())?;
        serde_json::to_value(result).map_err(|e| e.to_string())
    }

    /// The per-call timeout of `slot`: its `timeout`, else `mcp_tool_timeout`.
    fn timeout(&self, slot: &Slot) -> Duration {
        slot.config
            .timeout
            .unwrap_or(self.inner.opts.settings.tool_timeout)
    }

    /// Expands `/mcp__<server>__<prompt> args` into the text of the user
    /// message; `None` when `text` names no known prompt.
    pub async fn expand_prompt_command(
        &self,
        text: &str,
        cancel: &CancellationToken,
    ) -> Option<Result<String, String>> {
        let server = crate::naming::server_of(text.trim_start().strip_prefix('/')?)?.to_string();
        let slot = self.slot(&server)?;
        self.settle(&slot, self.inner.opts.settings.startup_timeout)
            .await;
        let prompts = self.prompts();
        let (prompt, args) = crate::prompts::parse_command(&prompts, text)?;
        Some(
            self.get_prompt(&prompt.server, &prompt.name, args, cancel)
                .await,
        )
    }

    /// Stops `name` for the rest of this run and lists it as disabled
    /// (`/mcp disable`); its tools leave the tool set. Nothing is written
    /// to the configuration.
    pub async fn disable(&self, name: &str) -> Result<(), String> {
        let slot = self.slot(name).ok_or_else(|| unknown_server(name))?;
        if slot.status() == ServerStatus::Disabled {
            return Err(format!("{name} is already disabled"));
        }
        stop_slot(&slot).await;
        slot.set_catalog(crate::catalog::Catalog::default());
        slot.set_peer(None);
        slot.set_status(ServerStatus::Disabled);
        Ok(())
    }

    /// Starts `name` again (`/mcp enable`): a server disabled by
    /// [`McpManager::disable`] or by `disabled: true` (for this run), or a
    /// project server trusted since zut started (`zut mcp trust`). A
    /// project server still untrusted stays so. Returns the new status.
    pub fn enable(&self, name: &str) -> Result<ServerStatus, String> {
        let slot = self.slot(name).ok_or_else(|| unknown_server(name))?;
        let status = slot.status();
        if !matches!(
            status,
            ServerStatus::Disabled | ServerStatus::Untrusted | ServerStatus::Stopped
        ) {
            return Err(format!(
                "{name} is {} (use reconnect to restart it)",
                status.word()
            ));
        }
        let mut config = slot.config.clone();
        config.disabled = false;
        let trusted = config.scope != crate::config::Scope::Project
            || crate::trust::TrustStore::load(&self.inner.opts.home).is_trusted(&config);
        self.add(ConfiguredServer {
            config,
            trusted,
            overrides: Vec::new(),
        });
        self.inner.generation.fetch_add(1, Ordering::Relaxed);
        Ok(self
            .slot(name)
            .map_or(ServerStatus::Stopped, |s| s.status()))
    }

    /// Trusts the project server `name` as it is defined now (what `zut
    /// mcp trust <name>` records) and starts it unless it is disabled.
    pub fn trust(&self, name: &str) -> Result<ServerStatus, String> {
        let slot = self.slot(name).ok_or_else(|| unknown_server(name))?;
        if slot.config.scope != crate::config::Scope::Project {
            return Err(format!(
                "{name} is a {} server: only project servers need trust",
                slot.config.scope.as_str()
            ));
        }
        let home = &self.inner.opts.home;
        let mut store = crate::trust::TrustStore::load(home);
        store.trust(&slot.config);
        store
            .save(home)
            .map_err(|e| format!("saving the trust store: {e}"))?;
        match slot.status() {
            ServerStatus::Untrusted => self.enable(name),
            other => Ok(other),
        }
    }

    /// Lets a front end answer the servers' elicitations in every mode
    /// (form and URL; `None`: nobody can), see
    /// [`McpManager::set_elicitation_asker_modes`].
    pub fn set_elicitation_asker(&self, asker: Option<crate::elicit::Asker>) {
        self.set_elicitation_asker_modes(asker, zut_types::ElicitationModes::ALL);
    }

    /// Tells `completer` when a server says the out-of-band flow of a
    /// URL-mode request finished (`notifications/elicitation/complete`);
    /// `None`: nobody is told (a still-open dialog is closed either way).
    pub fn set_elicitation_completer(&self, completer: Option<crate::elicit::Completer>) {
        self.inner.opts.elicitation.set_completer(completer);
    }

    /// Lets a front end answer the servers' elicitations in `modes`
    /// (`None`: nobody can). Servers connected with another declaration
    /// reconnect, so each is told the truth (`elicitation` in its
    /// capabilities, with the modes, exactly while someone can answer).
    pub fn set_elicitation_asker_modes(
        &self,
        asker: Option<crate::elicit::Asker>,
        modes: zut_types::ElicitationModes,
    ) {
        let elicitation = &self.inner.opts.elicitation;
        elicitation.set(asker, modes);
        let now = elicitation.modes();
        for slot in self.slots() {
            let told = slot
                .elicitation_declared
                .load(std::sync::atomic::Ordering::Acquire);
            if slot.status() == ServerStatus::Ready && told != now.bits() {
                crate::fsutil::log_marker(
                    &self.inner.opts.home,
                    &slot.config.name,
                    if now.any() {
                        "a front end can answer elicitations now: reconnecting to declare it"
                    } else {
                        "nobody can answer elicitations now: reconnecting without declaring it"
                    },
                );
                slot.reconnect.notify_one();
            }
        }
    }

    /// Whether elicitation is declared to servers connecting now.
    pub fn elicitation_declared(&self) -> bool {
        self.inner.opts.elicitation.declared()
    }

    /// Reconnects `name` now (after `zut mcp login`, or from `/mcp`).
    pub fn reconnect(&self, name: &str) -> bool {
        match self.slot(name) {
            Some(slot) => {
                slot.reconnect.notify_one();
                true
            }
            None => false,
        }
    }

    /// Stops every server: closes their connections, waits a short grace,
    /// then kills what is left (whole process groups).
    pub async fn shutdown(&self) {
        let slots = self.slots();
        let all = slots.iter().map(stop_slot);
        futures::future::join_all(all).await;
        self.inner.stop.cancel();
    }

    /// The home directory this manager logs under.
    pub fn home(&self) -> &Path {
        &self.inner.opts.home
    }
}

fn unknown_server(name: &str) -> String {
    format!("no MCP server named {name:?}")
}

async fn stop_slot(slot: &Arc<Slot>) {
    slot.stop.cancel();
    let mut rx = slot.status.subscribe();
    let ended = |s: &ServerStatus| {
        matches!(
            s,
            ServerStatus::Stopped | ServerStatus::Disabled | ServerStatus::Untrusted
        )
    };
    let _ = tokio::time::timeout(Duration::from_secs(3), rx.wait_for(ended)).await;
    slot.kill_now();
}
