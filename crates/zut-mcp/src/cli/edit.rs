//! `zut mcp add`, `add-json`, `remove`: edit `mcpServers` in
//! `$ZUT_HOME/config.json` (user) or `./.mcp.json` (project), keeping the
//! file's other keys; atomic writes.

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::{out, Ctx};
use crate::config::{parse_server, Scope};
use crate::trust::TrustStore;

fn file_for(ctx: &Ctx, scope: Scope) -> PathBuf {
    match scope {
        Scope::Project => ctx.project.join(".mcp.json"),
        _ => ctx.home.join("config.json"),
    }
}

fn parse_scope(v: Option<&String>) -> Result<Scope, String> {
    match v.map(String::as_str) {
        Some("user") | Some("global") => Ok(Scope::User),
        Some("project") => Ok(Scope::Project),
        other => Err(format!("--scope must be user or project, not {other:?}")),
    }
}

fn write_server(ctx: &Ctx, scope: Scope, name: &str, def: Value) -> Result<(), String> {
    let cfg = parse_server(name, &def, scope, Some(&file_for(ctx, scope)))?;
    let file = file_for(ctx, scope);
    let mut root = crate::sources::read_for_edit(&file).map_err(|e| e.to_string())?;
    let Some(obj) = root.as_object_mut() else {
        return Err(format!("{} is not a JSON object", file.display()));
    };
    let servers = obj
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(format!("{}: mcpServers is not an object", file.display()));
    };
    let replaced = servers.insert(name.to_string(), def).is_some();
    let text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())? + "\n";
    crate::fsutil::write_private(&file, text.as_bytes())
        .map_err(|e| format!("{}: {e}", file.display()))?;
    if scope == Scope::Project {
        // The user added it: that is the trust answer.
        let mut store = TrustStore::load(&ctx.home);
        store.trust(&cfg);
        store
            .save(&ctx.home)
            .map_err(|e| format!("saving the trust store: {e}"))?;
    }
    out(&format!(
        "{} MCP server {name} ({}) in {}",
        if replaced { "Replaced" } else { "Added" },
        cfg.transport.kind(),
        file.display()
    ));
    Ok(())
}

pub(super) fn add(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let mut scope = Scope::User;
    let mut transport: Option<String> = None;
    let mut env = Map::new();
    let mut headers = Map::new();
    let mut timeout: Option<u64> = None;
    let mut positional: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if !positional.is_empty() && positional.len() >= 2 {
            // After `<name> <command>`, everything is the server's arguments.
            positional.push(a.clone());
            continue;
        }
        match a.as_str() {
            "-s" | "--scope" => scope = parse_scope(it.next())?,
            "-t" | "--transport" => transport = it.next().cloned(),
            "-e" | "--env" => {
                let kv = it.next().ok_or("--env needs KEY=VALUE")?;
                let (k, v) = kv
                    .split_once('=')
                    .ok_or(format!("--env {kv}: expected KEY=VALUE"))?;
                env.insert(k.to_string(), json!(v));
            }
            "-H" | "--header" => {
                let kv = it.next().ok_or("--header needs 'Name: value'")?;
                let (k, v) = kv
                    .split_once(':')
                    .ok_or(format!("--header {kv}: expected 'Name: value'"))?;
                headers.insert(k.trim().to_string(), json!(v.trim()));
            }
            "--timeout" => {
                let v = it.next().ok_or("--timeout needs milliseconds")?;
                timeout = Some(
                    v.parse()
                        .map_err(|_| format!("--timeout {v}: not a number"))?,
                );
            }
            "--" => positional.extend(it.by_ref().cloned()),
            _ => positional.push(a.clone()),
        }
    }
    let (name, target, rest) = match positional.as_slice() {
        [name, target, rest @ ..] => (name, target, rest),
        _ => return Err("usage: zut mcp add [options] <name> <command-or-url> [args...]".into()),
    };
    let kind = transport.unwrap_or_else(|| {
        if target.starts_with("http://") || target.starts_with("https://") {
            "http".into()
        } else {
            "stdio".into()
        }
    });
    let mut def = match kind.as_str() {
        "stdio" => {
            let mut d = json!({"command": target, "args": rest});
            if !env.is_empty() {
                d["env"] = Value::Object(env);
            }
            d
        }
        "http" | "sse" => {
            let mut d = json!({"type": kind, "url": target});
            if !headers.is_empty() {
                d["headers"] = Value::Object(headers);
            }
            d
        }
        other => return Err(format!("unknown transport {other} (stdio, http or sse)")),
    };
    if let Some(t) = timeout {
        def["timeout"] = json!(t);
    }
    write_server(ctx, scope, name, def)?;
    Ok(0)
}

pub(super) fn add_json(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let mut scope = Scope::User;
    let mut positional = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-s" | "--scope" => scope = parse_scope(it.next())?,
            _ => positional.push(a.clone()),
        }
    }
    let [name, text] = positional.as_slice() else {
        return Err("usage: zut mcp add-json [-s user|project] <name> '<json>'".into());
    };
    let def: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    write_server(ctx, scope, name, def)?;
    Ok(0)
}

pub(super) fn remove(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let mut scope: Option<Scope> = None;
    let mut name: Option<&String> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-s" | "--scope" => scope = Some(parse_scope(it.next())?),
            _ => name = Some(a),
        }
    }
    let name = name.ok_or("usage: zut mcp remove [-s user|project] <name>")?;
    let scopes: Vec<Scope> = match scope {
        Some(s) => vec![s],
        None => vec![Scope::User, Scope::Project],
    };
    let mut found: Vec<(Scope, PathBuf, Value)> = Vec::new();
    for s in scopes {
        let file = file_for(ctx, s);
        let root = crate::sources::read_for_edit(&file).map_err(|e| e.to_string())?;
        if root.get("mcpServers").and_then(|m| m.get(name)).is_some() {
            found.push((s, file, root));
        }
    }
    match found.len() {
        0 => Err(format!("no MCP server named {name} in the user or project configuration")),
        1 => {
            let (_, file, mut root) = found.remove(0);
            if let Some(m) = root.get_mut("mcpServers").and_then(Value::as_object_mut) {
                m.remove(name);
            }
            let text = serde_json::to_string_pretty(&root).map_err(|e| e.to_string())? + "\n";
            crate::fsutil::write_private(&file, text.as_bytes()).map_err(|e| format!("{}: {e}", file.display()))?;
            out(&format!("Removed MCP server {name} from {}", file.display()));
            Ok(0)
        }
        _ => Err(format!(
            "{name} is configured in both the user and the project configuration: add --scope user or --scope project"
        )),
    }
}
