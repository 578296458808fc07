//! `zut mcp serve`: zut as an MCP server on stdio. It offers the built-in
//! tools (`zut_tools::builtin_tools`, run by `zut_tools::run_builtin` in
//! the project directory) and, with `--extensions`, the installed
//! extensions' tools through the extension host.
//!
//! With `--jail` (or `jail_by_default` in config.json, unless `--no-jail`)
//! the tools run under the jail, as in a jailed session: `bash` and
//! `python` inside the kernel-enforced policy, `read`/`write`/`edit`/`grep`
//! checked against it. Extensions keep their own permissions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use zut_ext_host::{ExtensionHost, HostConfig, ToolContent, ZutHome};

/// The server's handler.
pub struct ZutServer {
    project: PathBuf,
    host: Option<Arc<ExtensionHost>>,
    jail: zut_tools::JailSwitch,
}

impl ZutServer {
    /// A server for `project`, with an extension host when given; its
    /// built-in tools unjailed.
    pub fn new(project: &Path, host: Option<Arc<ExtensionHost>>) -> Self {
        Self {
            project: project.to_path_buf(),
            host,
            jail: zut_tools::JailSwitch::default(),
        }
    }

    /// The built-in tools run under `jail` while it is on.
    pub fn with_jail(mut self, jail: zut_tools::JailSwitch) -> Self {
        self.jail = jail;
        self
    }

    fn tool_list(&self) -> Vec<Tool> {
        let mut tools: Vec<Tool> = zut_tools::builtin_tools()
            .into_iter()
            .filter(|t| !zut_tools::SESSION_TOOLS.contains(&t.name))
            .filter_map(|t| {
                let schema = t.schema.as_object()?.clone();
                Some(Tool::new(t.name, t.description, Arc::new(schema)))
            })
            .collect();
        if let Some(host) = &self.host {
            for t in host.tools() {
                let schema = match t.schema {
                    Value::Object(m) => m,
                    _ => serde_json::Map::from_iter([("type".to_string(), Value::from("object"))]),
                };
                tools.push(Tool::new(t.name, t.description, Arc::new(schema)));
            }
        }
        tools
    }

    async fn run(&self, name: &str, args: Value) -> CallToolResult {
        if zut_tools::BUILTIN_NAMES.contains(&name) && !zut_tools::SESSION_TOOLS.contains(&name) {
            let jail = match self.jail.current() {
                Ok(j) => j,
                Err(e) => {
                    return result(
                        true,
                        vec![Content::text(format!(
                            "the jail could not be set up: {e}; no tool runs unjailed"
                        ))],
                    )
                }
            };
            let ctx = zut_tools::ToolContext::new(self.project.clone()).with_jail(jail);
            let out = zut_tools::run_builtin(name, &args, &ctx).await;
            let content = out
                .content
                .into_iter()
                .map(|c| match c {
                    zut_tools::ToolContent::Text(t) => Content::text(t),
                    zut_tools::ToolContent::Image { mime_type, data } => {
                        Content::image(data, mime_type)
                    }
                })
                .collect();
            return result(out.is_error, content);
        }
        let Some(host) = self
            .host
            .as_ref()
            .filter(|h| h.tools().iter().any(|t| t.name == name))
        else {
            return result(true, vec![Content::text(format!("unknown tool {name}"))]);
        };
        let out = host.call_tool(name, args).await;
        let content = out
            .content
            .into_iter()
            .map(|c| match c {
                ToolContent::Text(t) => Content::text(t),
                ToolContent::Image { mime_type, data } => {
                    use base64::Engine as _;
                    Content::image(
                        base64::engine::general_purpose::STANDARD.encode(data),
                        mime_type,
                    )
                }
            })
            .collect();
        result(out.is_error, content)
    }
}

fn result(is_error: bool, content: Vec<Content>) -> CallToolResult {
    if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

impl ServerHandler for ZutServer {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::default();
        caps.tools = Some(Default::default());
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("zut", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "zut's built-in coding tools (read, write, edit, bash, grep) working in the project directory.",
            )
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tool_list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request
            .arguments
            .map(Value::Object)
            .unwrap_or_else(|| Value::Object(Default::default()));
        Ok(CallToolResponse::Complete(
            self.run(&request.name, args).await,
        ))
    }
}

/// What `zut mcp serve` needs to know of the jail: what it is built from,
/// and whether it is on by default (`jail_by_default`). The CLI crate
/// reads config.json's `sandbox` keys; see [`crate::cli::run_with`].
pub type JailConfig<'a> = &'a dyn Fn(&Path, &Path) -> Result<(zut_sandbox::JailSpec, bool), String>;

/// The jail of `project` with no config read: the default spec, off.
pub fn default_jail(home: &Path, project: &Path) -> Result<(zut_sandbox::JailSpec, bool), String> {
    Ok((crate::sandbox::default_spec(home, project), false))
}

/// Runs the server on stdin/stdout until the client disconnects.
pub async fn serve(home: &Path, project: &Path, args: &[String]) -> Result<i32, String> {
    serve_with(home, project, args, &default_jail).await
}

/// [`serve`] with the jail configuration: `--jail` jails the tools,
/// `--no-jail` does not, neither follows `jail_by_default`.
pub async fn serve_with(
    home: &Path,
    project: &Path,
    args: &[String],
    jail_config: JailConfig<'_>,
) -> Result<i32, String> {
    for a in args {
        if !matches!(a.as_str(), "--extensions" | "--jail" | "--no-jail") {
            return Err(format!(
                "serve: unknown argument `{a}` (expected --extensions, --jail, --no-jail)"
            ));
        }
    }
    let with_ext = args.iter().any(|a| a == "--extensions");
    let (spec, by_default) = jail_config(home, project)?;
    let on = if args.iter().any(|a| a == "--no-jail") {
        false
    } else {
        by_default || args.iter().any(|a| a == "--jail")
    };
    let jail = zut_tools::JailSwitch::new(spec, on);
    if on {
        // Built now, so a rule the kernel refuses is reported at start.
        jail.current()
            .map_err(|e| format!("the jail could not be set up: {e}"))?;
        crate::cli::err(&format!("zut mcp serve: {}", jail.describe()));
    }
    let host = if with_ext {
        let mut cfg = HostConfig::new(ZutHome::new(home), project);
        cfg.zut_version = env!("CARGO_PKG_VERSION").to_string();
        cfg.builtin_tools = zut_tools::BUILTIN_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (tx, mut rx) = zut_ext_host::ui_channel();
        // UI frames have nowhere to go over MCP; drain them.
        tokio::spawn(async move { while rx.recv().await.is_some() {} });
        let (host, report) = ExtensionHost::start(cfg, tx).await;
        for e in &report.errors {
            crate::cli::err(&format!("extension load: {e}"));
        }
        Some(Arc::new(host))
    } else {
        None
    };
    let server = ZutServer::new(project, host.clone()).with_jail(jail);
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| format!("serving MCP on stdio: {e}"))?;
    let _ = running.waiting().await;
    if let Some(h) = host {
        h.shutdown().await;
    }
    Ok(0)
}
