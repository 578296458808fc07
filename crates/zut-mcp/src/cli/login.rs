//! `zut mcp login <name>` / `zut mcp logout <name>`.

use super::{out, Ctx};
use crate::oauth_store::AuthFile;
use crate::sources;

pub(super) async fn login(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let no_browser = args.iter().any(|a| a == "--no-browser");
    let Some(name) = args.iter().find(|a| !a.starts_with("--")) else {
        return Err("usage: zut mcp login <name> [--no-browser]".into());
    };
    let configured = sources::load(&ctx.home, &ctx.project);
    let server = configured
        .get(name)
        .ok_or(format!("no MCP server named {name}"))?;
    let env = |k: &str| std::env::var(k).ok();
    let transport = server.config.transport.expanded(&env)?;
    let Some(url) = transport.url() else {
        return Err(format!(
            "{name} is a stdio server: OAuth is for remote (http, sse) servers"
        ));
    };
    crate::oauth::login(
        &ctx.home,
        name,
        url,
        server.config.oauth.clone().unwrap_or_default(),
        crate::oauth::LoginIo::terminal(no_browser),
    )
    .await?;
    out(&format!(
        "Logged in to {name}. Tokens are in {}",
        ctx.home.join(crate::oauth_store::AUTH_FILE).display()
    ));
    Ok(0)
}

pub(super) fn logout(ctx: &Ctx, args: &[String]) -> Result<i32, String> {
    let Some(name) = args.first() else {
        return Err("usage: zut mcp logout <name>".into());
    };
    let file = AuthFile::load(&ctx.home);
    if !file.servers.contains_key(name) {
        out(&format!("No stored credentials for {name}."));
        return Ok(0);
    }
    AuthFile::update(&ctx.home, name, None).map_err(|e| format!("writing credentials: {e}"))?;
    out(&format!("Logged out of {name}."));
    Ok(0)
}
