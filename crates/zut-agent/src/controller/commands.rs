//! Slash commands through the controller: the built-ins a headless front
//! end can run, and extension commands with their actions.

use zut_ext_host::{UiEvent, UiKind};
use zut_providers::Part;

use super::{CommandEntry, CommandOutcome, Controller, ControllerEvent};
use crate::event::AgentEvent;

impl Controller {
    /// Every command [`Controller::command`] runs, built-ins first, then
    /// the extensions' commands (as registered), then skills (when skills
    /// are on). Skills are discovered anew on each call.
    pub fn command_list(&self) -> Vec<CommandEntry> {
        let mut out: Vec<CommandEntry> = crate::commands::headless()
            .map(|c| CommandEntry {
                name: c.name.to_string(),
                description: c.description.to_string(),
                hint: c.hint.map(str::to_string),
                source: "zut".into(),
            })
            .collect();
        let host = self.host();
        if let Some(host) = &host {
            out.extend(host.commands().into_iter().map(|c| CommandEntry {
                name: c.name,
                description: c.description,
                hint: None,
                source: c.extension,
            }));
        }
        let cfg = &self.shared.agent_config;
        if cfg.skills {
            let set = crate::skills::load(cfg, host.as_deref());
            for s in set.visible() {
                for name in std::iter::once(&s.name).chain(&s.aliases) {
                    out.push(CommandEntry {
                        name: format!("skill:{name}"),
                        description: s.description_or_placeholder().to_string(),
                        hint: Some("request (optional)".into()),
                        source: "skill".into(),
                    });
                }
            }
        }
        out
    }
}

impl Controller {
    /// Runs `/name args`: a headless built-in ([`crate::commands`]) or an
    /// extension command (waiting up to 30 s for its reply). A queued
    /// job carries `tag`. Errors are the texts to show.
    pub async fn command(
        &self,
        name: &str,
        args: &str,
        tag: Option<String>,
    ) -> Result<CommandOutcome, String> {
        // `/skill:<name> [request]` (the name keeps its case): queued as a
        // prompt with the skill's body (`crate::skills::expand_command`).
        // Extension commands (and extension-bundled skills) exist once the
        // extensions started.
        self.ready().await;
        let host = self.host();
        let raw = format!("/{} {}", name.trim().trim_start_matches('/'), args.trim());
        if crate::skills::parse_command(&raw).is_some() {
            let cfg = &self.shared.agent_config;
            let set = cfg
                .skills
                .then(|| crate::skills::load(cfg, host.as_deref()));
            if let Some(expanded) = crate::skills::expand_command(set.as_ref(), &raw) {
                let text = expanded?;
                return Ok(CommandOutcome::Queued(
                    self.prompt(vec![Part::Text { text }], tag),
                ));
            }
        }
        // `/mcp__<server>__<prompt> args`: the MCP prompt's text, queued as
        // a prompt.
        let bare = name.trim().trim_start_matches('/');
        if bare.starts_with("mcp__") {
            if let Some(mcp) = &self.shared.mcp {
                let text = format!("/{bare} {}", args.trim());
                let cancel = tokio_util::sync::CancellationToken::new();
                return match mcp.expand_prompt_command(text.trim_end(), &cancel).await {
                    Some(Ok(message)) => Ok(CommandOutcome::Queued(
                        self.prompt(vec![Part::Text { text: message }], tag),
                    )),
                    Some(Err(why)) => Err(why),
                    None => Err(format!("unknown MCP prompt: /{bare}")),
                };
            }
        }
        let name = name.trim().trim_start_matches('/').to_ascii_lowercase();
        let args = args.trim();
        match name.as_str() {
            "clear" => {
                self.clear();
                return Ok(CommandOutcome::Done("conversation cleared".into()));
            }
            "compact" => {
                let instructions = Some(args.to_string()).filter(|s| !s.is_empty());
                return Ok(CommandOutcome::Queued(self.compact(instructions, tag)));
            }
            "model" if !args.is_empty() => {
                return self
                    .set_model(args)
                    .map(|m| CommandOutcome::Done(format!("model: {m}")));
            }
            "reasoning" if !args.is_empty() => {
                return self.set_reasoning(args).map(|r| {
                    CommandOutcome::Done(format!(
                        "reasoning: {}",
                        if r.is_empty() { "off" } else { r.as_str() }
                    ))
                });
            }
            "reload-ext" => return Ok(CommandOutcome::Queued(self.reload_extensions(tag))),
            "mcp" => return self.mcp_command(args).await.map(CommandOutcome::Done),
            "jail" | "unjail" => {
                return self
                    .jail_command(name == "jail", args)
                    .map(CommandOutcome::Done)
            }
            "goal" => return Ok(CommandOutcome::Queued(self.goal(args, tag))),
            "web" => return self.web_command(args).map(CommandOutcome::Done),
            _ => {}
        }
        let host = host.ok_or_else(|| unknown(&name, &[]))?;
        if !host.has_command(&name) {
            let known: Vec<String> = host.commands().into_iter().map(|c| c.name).collect();
            return Err(unknown(&name, &known));
        }
        let reply = host
            .invoke_command(&name, args)
            .await
            .map_err(|e| e.to_string())?;
        let r = reply.response;
        let extension = reply.extension;
        if !r.error.is_empty() {
            return Err(format!("/{} ({extension}): {}", reply.command, r.error));
        }
        Ok(match r.action.as_str() {
            "prompt" => {
                CommandOutcome::Queued(self.prompt(vec![Part::Text { text: r.prompt }], tag))
            }
            "display" => {
                self.push(ControllerEvent::Agent(AgentEvent::ExtDisplay {
                    extension: extension.clone(),
                    text: r.display.clone(),
                }));
                CommandOutcome::Display {
                    extension,
                    text: r.display,
                }
            }
            "insert" => {
                self.push(ControllerEvent::Agent(AgentEvent::ExtInsert {
                    extension: extension.clone(),
                    text: r.insert.clone(),
                }));
                CommandOutcome::Insert {
                    extension,
                    text: r.insert,
                }
            }
            "open_panel" => {
                let panel = r.open_panel.unwrap_or_default();
                self.push(ControllerEvent::Ui(UiEvent {
                    extension: extension.clone(),
                    kind: UiKind::OpenPanel(panel.clone()),
                }));
                CommandOutcome::OpenPanel { extension, panel }
            }
            "" | "noop" => CommandOutcome::Noop,
            other => {
                return Err(format!(
                    "/{} ({extension}): unknown action {other:?}",
                    reply.command
                ))
            }
        })
    }
}

fn unknown(name: &str, known: &[String]) -> String {
    let mut all: Vec<String> = crate::commands::headless()
        .map(|c| format!("/{}", c.name))
        .collect();
    all.extend(known.iter().map(|c| format!("/{c}")));
    format!("unknown command /{name} (available: {})", all.join(", "))
}
