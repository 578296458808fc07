//! `zut mcp trust [--revoke] [name…]`: the one-time answer that lets this
//! project's servers start.

use super::{out, Ctx};
use crate::config::Scope;
use crate::sources;
use crate::trust::TrustStore;

pub(super) fn trust(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let revoke = args.iter().any(|a| a == "--revoke");
    let names: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let configured = sources::load(&ctx.home, &ctx.project);
    for p in &configured.problems {
        super::err(&format!("warning: {p}"));
    }
    let mut store = TrustStore::load(&ctx.home);
    if revoke {
        let mut any = false;
        for (_, file) in sources::config_files(&ctx.home, &ctx.project)
            .into_iter()
            .filter(|(s, _)| *s == Scope::Project)
        {
            any |= store.revoke_file(&file);
        }
        store
            .save(&ctx.home)
            .map_err(|e| format!("saving the trust store: {e}"))?;
        out(if any {
            "Trust revoked for this project's MCP servers."
        } else {
            "Nothing was trusted here."
        });
        return Ok(0);
    }
    let project: Vec<_> = configured
        .servers
        .iter()
        .filter(|s| s.config.scope == Scope::Project)
        .filter(|s| names.is_empty() || names.iter().any(|n| **n == s.config.name))
        .collect();
    for n in &names {
        if !project.iter().any(|s| &s.config.name == *n) {
            return Err(format!(
                "no project MCP server named {n} in {}",
                ctx.project.display()
            ));
        }
    }
    if project.is_empty() {
        out("This project configures no MCP servers (.mcp.json, .zut/mcp.json).");
        return Ok(0);
    }
    for s in &project {
        store.trust(&s.config);
        out(&format!(
            "trusted {} ({}): {}",
            s.config.name,
            s.config
                .source
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            serde_json::to_string(&s.config.raw).unwrap_or_default()
        ));
    }
    store
        .save(&ctx.home)
        .map_err(|e| format!("saving the trust store: {e}"))?;
    Ok(0)
}
