//! Server definitions: the `mcpServers` object of `config.json`, `.mcp.json`
//! (Claude Code's format) and `.zut/mcp.json`, and `${VAR}` expansion.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// Where a server definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// `$ZUT_HOME/config.json`.
    User,
    /// The project's `.mcp.json` or `.zut/mcp.json` (needs trust).
    Project,
    /// Passed by a front end for one session (ACP `session/new`).
    Session,
}

impl Scope {
    /// `user`, `project` or `session`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Session => "session",
        }
    }
}

/// How zut reaches a server, before `${VAR}` expansion.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdio.
    Stdio {
        /// Program.
        command: String,
        /// Arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP (`type: "http"`).
    Http {
        /// Endpoint URL.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport of protocol 2024-11-05 (`type: "sse"`).
    Sse {
        /// The SSE endpoint URL.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
}

impl TransportConfig {
    /// `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Stdio { .. } => "stdio",
            TransportConfig::Http { .. } => "http",
            TransportConfig::Sse { .. } => "sse",
        }
    }

    /// What runs or is reached, as configured: `command arg…` or the URL
    /// (headers and environment left out).
    pub fn shown(&self) -> String {
        match self {
            TransportConfig::Stdio { command, args, .. } => {
                let mut s = command.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            TransportConfig::Http { url, .. } | TransportConfig::Sse { url, .. } => url.clone(),
        }
    }

    /// The URL of a remote server.
    pub fn url(&self) -> Option<&str> {
        match self {
            TransportConfig::Http { url, .. } | TransportConfig::Sse { url, .. } => Some(url),
            TransportConfig::Stdio { .. } => None,
        }
    }
}

/// OAuth settings of a remote server (all optional: discovery and dynamic
/// client registration fill the rest).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OAuthConfig {
    /// A pre-registered client id (skips dynamic registration).
    #[serde(default)]
    pub client_id: Option<String>,
    /// Scopes to request.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// Fixed loopback port for the redirect (default: any free port).
    #[serde(default)]
    pub callback_port: Option<u16>,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The name under `mcpServers` (tools are `mcp__<name>__<tool>`).
    pub name: String,
    /// Transport and its parameters (unexpanded).
    pub transport: TransportConfig,
    /// Per-call timeout overriding `mcp_tool_timeout` (`timeout`, ms).
    pub timeout: Option<Duration>,
    /// `disabled: true`: configured but never started.
    pub disabled: bool,
    /// OAuth settings (`oauth`).
    pub oauth: Option<OAuthConfig>,
    /// Where it was defined.
    pub scope: Scope,
    /// The file it came from (`None` for session servers).
    pub source: Option<PathBuf>,
    /// The definition as written, for trust hashes and `zut mcp get`.
    pub raw: Value,
    /// How a stdio server is confined (`sandbox`, `permissions`).
    pub sandbox: ServerSandbox,
}

/// How a stdio server runs: the `sandbox` key (`"session"`, `"jail"`,
/// `"none"`) or a `permissions` object (the `extension.json` format, see
/// docs/sandbox.md). See [`crate::sandbox`].
#[derive(Debug, Clone, Default, PartialEq)]
pub enum ServerSandbox {
    /// Follows the session: under the jail while the session is jailed
    /// (`--jail`, `jail_by_default`, `/jail`), unconfined otherwise.
    #[default]
    Session,
    /// Always under the jail's policy, jailed session or not.
    Jail,
    /// Never confined (honoured for user and session servers only: a
    /// project file cannot take its server out of the jail).
    None,
    /// Confined to its declared permissions.
    Declared(zut_sandbox::Declared),
}

impl ServerSandbox {
    /// `session`, `jail`, `none` or `permissions`.
    pub fn word(&self) -> &'static str {
        match self {
            ServerSandbox::Session => "session",
            ServerSandbox::Jail => "jail",
            ServerSandbox::None => "none",
            ServerSandbox::Declared(_) => "permissions",
        }
    }
}

/// A problem with one configuration file or entry. zut keeps running.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}: {message}", file.display(), position.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
pub struct ConfigProblem {
    /// The file.
    pub file: PathBuf,
    /// Line and column (1-based) when known.
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawServer {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    disabled: bool,
    #[serde(default)]
    oauth: Option<OAuthConfig>,
    #[serde(default)]
    sandbox: Option<String>,
    #[serde(default)]
    permissions: Option<Value>,
    /// Claude Code and others write these; zut accepts and ignores them.
    #[serde(default, rename = "alwaysAllow")]
    _always_allow: Option<Value>,
    #[serde(default, rename = "description")]
    _description: Option<Value>,
}

/// Parses one server definition (the value under its name).
pub fn parse_server(
    name: &str,
    value: &Value,
    scope: Scope,
    source: Option<&Path>,
) -> Result<ServerConfig, String> {
    if !valid_name(name) {
        return Err(format!(
            "server name \"{name}\" must be 1-64 characters of letters, digits, '-' and '_'"
        ));
    }
    let raw: RawServer = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    let kind = raw.kind.as_deref().map(str::to_ascii_lowercase);
    let transport = match (kind.as_deref(), raw.command, raw.url) {
        (None | Some("stdio"), Some(command), None) => TransportConfig::Stdio {
            command,
            args: raw.args,
            env: raw.env,
        },
        (Some("http" | "streamable-http" | "streamablehttp"), None, Some(url))
        | (None, None, Some(url)) => TransportConfig::Http {
            url,
            headers: raw.headers,
        },
        (Some("sse"), None, Some(url)) => TransportConfig::Sse {
            url,
            headers: raw.headers,
        },
        (Some(other), _, _) if !matches!(other, "stdio" | "http" | "sse" | "streamable-http") => {
            return Err(format!(
                "unknown type \"{other}\" (expected \"stdio\", \"http\" or \"sse\")"
            ))
        }
        (_, Some(_), Some(_)) => return Err("has both `command` and `url`".into()),
        (Some("stdio"), None, _) => return Err("a stdio server needs `command`".into()),
        (_, None, None) => return Err("needs `command` (stdio) or `url` (http)".into()),
        _ => return Err("`type` does not match `command`/`url`".into()),
    };
    if let TransportConfig::Stdio { command, .. } = &transport {
        if command.trim().is_empty() {
            return Err("`command` is empty".into());
        }
    }
    let sandbox = match (raw.sandbox.as_deref(), &raw.permissions) {
        (Some(_), Some(_)) => return Err("has both `sandbox` and `permissions` (use one)".into()),
        (None | Some("session"), None) => ServerSandbox::Session,
        (Some("jail"), None) => ServerSandbox::Jail,
        (Some("none"), None) => ServerSandbox::None,
        (Some(other), None) => {
            return Err(format!(
                "sandbox: \"{other}\" is not \"session\", \"jail\" or \"none\""
            ))
        }
        (None, Some(p)) => ServerSandbox::Declared(
            zut_sandbox::Declared::from_json(p).map_err(|e| format!("permissions: {e}"))?,
        ),
    };
    if sandbox != ServerSandbox::Session && !matches!(transport, TransportConfig::Stdio { .. }) {
        return Err(format!(
            "`{}` applies to stdio servers only",
            if raw.permissions.is_some() {
                "permissions"
            } else {
                "sandbox"
            }
        ));
    }
    Ok(ServerConfig {
        name: name.to_string(),
        transport,
        timeout: raw.timeout.filter(|t| *t > 0).map(Duration::from_millis),
        disabled: raw.disabled,
        oauth: raw.oauth,
        scope,
        source: source.map(Path::to_path_buf),
        raw: value.clone(),
        sandbox,
    })
}

/// Server names: what Claude Code accepts, and what fits a tool name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The servers of one `mcpServers` object; entries that do not parse are
/// problems, the rest load.
pub fn parse_servers(
    object: &Value,
    scope: Scope,
    file: &Path,
) -> (Vec<ServerConfig>, Vec<ConfigProblem>) {
    let mut servers = Vec::new();
    let mut problems = Vec::new();
    let Some(map) = object.as_object() else {
        problems.push(ConfigProblem {
            file: file.to_path_buf(),
            position: None,
            message: "`mcpServers` must be an object".into(),
        });
        return (servers, problems);
    };
    for (name, value) in map {
        match parse_server(name, value, scope, Some(file)) {
            Ok(s) => servers.push(s),
            Err(message) => problems.push(ConfigProblem {
                file: file.to_path_buf(),
                position: None,
                message: format!("server \"{name}\": {message}"),
            }),
        }
    }
    (servers, problems)
}

/// Reads a JSON file holding `mcpServers` (`.mcp.json`, `.zut/mcp.json`,
/// `config.json`). A missing file is `Ok(None)`; a syntax error names the
/// file, line and column.
pub fn read_json_file(file: &Path) -> Result<Option<Value>, ConfigProblem> {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(ConfigProblem {
                file: file.to_path_buf(),
                position: None,
                message: format!("cannot be read: {e}"),
            })
        }
    };
    if text.trim().is_empty() {
        return Ok(Some(Value::Object(Default::default())));
    }
    serde_json::from_str::<Value>(&text)
        .map(Some)
        .map_err(|e| ConfigProblem {
            file: file.to_path_buf(),
            position: Some((e.line(), e.column())),
            message: format!("invalid JSON: {e}"),
        })
}

/// Expands `${VAR}` and `${VAR:-default}` (Claude Code's syntax) with
/// `env`. An unset variable without a default is an error naming it.
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        match (env(var), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => return Err(format!("environment variable {var} is not set")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

impl TransportConfig {
    /// The transport with `${VAR}` expanded in command, args, env values,
    /// URL and header values.
    pub fn expanded(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Self, String> {
        let map = |m: &BTreeMap<String, String>| -> Result<BTreeMap<String, String>, String> {
            m.iter()
                .map(|(k, v)| Ok((k.clone(), expand(v, env)?)))
                .collect()
        };
        Ok(match self {
            TransportConfig::Stdio {
                command,
                args,
                env: vars,
            } => TransportConfig::Stdio {
                command: expand(command, env)?,
                args: args
                    .iter()
                    .map(|a| expand(a, env))
                    .collect::<Result<_, _>>()?,
                env: map(vars)?,
            },
            TransportConfig::Http { url, headers } => TransportConfig::Http {
                url: expand(url, env)?,
                headers: map(headers)?,
            },
            TransportConfig::Sse { url, headers } => TransportConfig::Sse {
                url: expand(url, env)?,
                headers: map(headers)?,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(name: &str) -> Option<String> {
        (name == "HOME_DIR").then(|| "/home/x".to_string())
    }

    #[test]
    fn expansion() {
        assert_eq!(expand("${HOME_DIR}/a", &env).unwrap(), "/home/x/a");
        assert_eq!(expand("${NOPE:-d}", &env).unwrap(), "d");
        assert_eq!(
            expand("a${HOME_DIR}b${NOPE:-}c", &env).unwrap(),
            "a/home/xbc"
        );
        assert!(expand("${NOPE}", &env).unwrap_err().contains("NOPE"));
        assert_eq!(expand("${unterminated", &env).unwrap(), "${unterminated");
    }

    #[test]
    fn claude_code_shapes() {
        let s = parse_server(
            "fs",
            &json!({"command": "npx", "args": ["-y", "x"], "env": {"A": "b"}}),
            Scope::Project,
            None,
        )
        .unwrap();
        assert_eq!(s.transport.kind(), "stdio");
        let h = parse_server("h", &json!({"type": "http", "url": "http://x", "headers": {"Authorization": "Bearer ${T}"}}), Scope::User, None).unwrap();
        assert_eq!(h.transport.kind(), "http");
        let e = parse_server(
            "e",
            &json!({"type": "sse", "url": "http://x/sse"}),
            Scope::User,
            None,
        )
        .unwrap();
        assert_eq!(e.transport.kind(), "sse");
        let t = parse_server(
            "t",
            &json!({"command": "x", "timeout": 1500}),
            Scope::User,
            None,
        )
        .unwrap();
        assert_eq!(t.timeout, Some(Duration::from_millis(1500)));
        assert!(parse_server("bad name", &json!({"command": "x"}), Scope::User, None).is_err());
        assert!(
            parse_server("b", &json!({"command": "x", "url": "y"}), Scope::User, None).is_err()
        );
        assert!(parse_server("b", &json!({"type": "ws", "url": "y"}), Scope::User, None).is_err());
        assert!(parse_server("b", &json!({"command": 3}), Scope::User, None).is_err());
        assert!(parse_server("b", &json!({}), Scope::User, None).is_err());
    }

    #[test]
    fn sandbox_and_permissions_keys() {
        let parse = |v: Value| parse_server("s", &v, Scope::User, None);
        assert_eq!(
            parse(json!({"command": "x"})).unwrap().sandbox,
            ServerSandbox::Session
        );
        assert_eq!(
            parse(json!({"command": "x", "sandbox": "jail"}))
                .unwrap()
                .sandbox,
            ServerSandbox::Jail
        );
        assert_eq!(
            parse(json!({"command": "x", "sandbox": "none"}))
                .unwrap()
                .sandbox,
            ServerSandbox::None
        );
        let d = parse(
            json!({"command": "x", "permissions": {"fs": {"read": ["${cwd}"]}, "network": "none"}}),
        )
        .unwrap();
        assert!(matches!(d.sandbox, ServerSandbox::Declared(_)));
        let err = parse(json!({"command": "x", "sandbox": "strict"})).unwrap_err();
        assert!(err.contains("\"strict\" is not"), "{err}");
        let err = parse(json!({"command": "x", "sandbox": "jail", "permissions": {}})).unwrap_err();
        assert!(err.contains("both `sandbox` and `permissions`"), "{err}");
        let err = parse(json!({"command": "x", "permissions": {"fs": {"read": ["${nope}"]}}}))
            .unwrap_err();
        assert!(err.starts_with("permissions: fs.read"), "{err}");
        let err = parse(json!({"command": "x", "permissions": {"fz": {}}})).unwrap_err();
        assert!(err.starts_with("permissions:"), "{err}");
        let err = parse(json!({"url": "http://x", "sandbox": "jail"})).unwrap_err();
        assert!(err.contains("stdio servers only"), "{err}");
    }

    #[test]
    fn syntax_error_has_position() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join(".mcp.json");
        std::fs::write(
            &f,
            "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n",
        )
        .unwrap();
        let err = read_json_file(&f).unwrap_err();
        assert_eq!(err.position.map(|p| p.0), Some(3));
        assert!(err.to_string().contains(".mcp.json:3:"), "{err}");
    }
}
