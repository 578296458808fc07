//! One request line → its effect and response. Runs on the reader: every
//! command is answered inline except the queued ones (`prompt`, `compact`,
//! whose response is written when the job starts) and those waiting on an
//! extension (`command`, `reload_ext`), which run on their own tasks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use base64::Engine;
use tokio::task::JoinSet;
use zut_agent::controller::{CommandOutcome, JobHandle, JobOutcome};
use zut_agent::transcript::{json_blocks, now_rfc3339};
use zut_agent::Controller;
use zut_types::{Message, Part, Role};

use super::forward::Tag;
use super::output::Out;
use super::parse::{parse, Context, Line};
use super::wire::*;

/// Opt-in capability names accepted in `hello`.
pub const CAPABILITIES: &[&str] = &[
    "commands",
    "ext_ui",
    "sessions",
    "subagents",
    "mcp_elicitation",
];

/// What the reader does after a line.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// Keep reading.
    Continue,
    /// Bad token: exit 1 now.
    BadToken,
}

/// Everything a request may touch.
pub struct Dispatcher {
    pub controller: Controller,
    pub out: Out,
    pub token: Option<String>,
    pub cwd: String,
    pub commands: Arc<AtomicBool>,
    pub ext_ui: Arc<AtomicBool>,
    /// Opted in to `subagents` (children's events, tagged).
    pub subagents: Arc<AtomicBool>,
    /// Opted in to `sessions`.
    pub sessions: bool,
    /// Opted in to `mcp_elicitation`.
    pub elicitation: bool,
    /// `$ZUT_HOME`.
    pub zut_home: std::path::PathBuf,
    /// Tasks still answering (`command`, `reload_ext`); awaited at EOF.
    pub tasks: JoinSet<()>,
}

impl Dispatcher {
    fn respond(&self, r: Response) {
        self.out.line(r.to_line());
    }

    /// Handles one input line.
    pub fn line(&mut self, line: &[u8]) -> Next {
        while self.tasks.try_join_next().is_some() {}
        let cx = Context {
            authed: self.out.authed(),
            commands: self.commands.load(Ordering::Relaxed),
            ext_ui: self.ext_ui.load(Ordering::Relaxed),
            sessions: self.sessions,
            elicitation: self.elicitation,
        };
        match parse(line, cx) {
            Line::Blank => Next::Continue,
            Line::Refused(r) => {
                self.respond(r);
                Next::Continue
            }
            Line::Request(p) => self.request(p.id, &p.kind, p.request),
        }
    }

    fn request(&mut self, id: Option<String>, kind: &str, request: Request) -> Next {
        let c = &self.controller;
        match request {
            Request::Hello {
                token,
                capabilities,
            } => return self.hello(id, token, capabilities),
            Request::Prompt { message, images } => {
                let mut parts = Vec::with_capacity(images.len() + 1);
                if !message.is_empty() || images.is_empty() {
                    parts.push(Part::Text { text: message });
                }
                for (i, img) in images.into_iter().enumerate() {
                    if let Err(e) = base64::engine::general_purpose::STANDARD.decode(&img.data) {
                        self.respond(Response::err(
                            id,
                            kind,
                            format!("images[{i}]: invalid base64 data: {e}"),
                        ));
                        return Next::Continue;
                    }
                    parts.push(Part::Image {
                        mime_type: img.mime_type,
                        data: img.data,
                    });
                }
                c.prompt(parts, Tag::encode(id, kind, None));
            }
            Request::Abort => {
                // The response is queued before the turn is cancelled, so
                // it always precedes the aborted turn's `turn_end`/`done`
                // (cancelling first let the worker's events overtake it).
                self.respond(Response::ok(id, kind, None));
                c.abort();
            }
            Request::Compact { instructions } => {
                c.compact(
                    instructions.filter(|s| !s.trim().is_empty()),
                    Tag::encode(id, kind, None),
                );
            }
            Request::GetState => {
                let st = c.state();
                let state = StateData {
                    provider: st.provider,
                    model: st.model,
                    reasoning: st.reasoning,
                    cwd: self.cwd.clone(),
                    message_count: st.message_count,
                    busy: st.busy,
                    usage: st.usage,
                };
                self.respond(Response::ok(id, kind, data(&state)));
            }
            Request::GetMessages => {
                let msgs = c.messages();
                let time = now_rfc3339();
                let messages = msgs.iter().map(|m| message_json(m, &time)).collect();
                self.respond(Response::ok(id, kind, data(&MessagesData { messages })));
            }
            Request::Clear => {
                c.clear();
                self.respond(Response::ok(id, kind, None));
            }
            Request::SetModel { model } => match c.set_model(&model) {
                Ok(model) => self.respond(Response::ok(id, kind, data(&ModelData { model }))),
                Err(e) => self.respond(Response::err(id, kind, e)),
            },
            Request::SetReasoning { reasoning } => match c.set_reasoning(&reasoning) {
                Ok(reasoning) => {
                    self.respond(Response::ok(id, kind, data(&ReasoningData { reasoning })))
                }
                Err(e) => self.respond(Response::err(id, kind, e)),
            },
            Request::GetModels => {
                let models = c.models();
                self.respond(Response::ok(id, kind, data(&ModelsData { models })));
            }
            Request::Ping => self.respond(Response::ok(id, kind, data(&PongData { pong: true }))),
            Request::Command { name, args } => self.command(id, name, args),
            Request::PanelKey {
                extension,
                panel_id,
                key,
                text,
            } => {
                c.panel_key(&extension, &panel_id, &key, &text);
                self.respond(Response::ok(id, kind, None));
            }
            Request::ElicitationResponse {
                request_id,
                action,
                content,
            } => {
                let answer = match zut_agent::ElicitationAction::parse(&action) {
                    Some(zut_agent::ElicitationAction::Accept) => Ok(
                        zut_agent::ElicitationAnswer::accept(content.unwrap_or_default()),
                    ),
                    Some(zut_agent::ElicitationAction::Decline) => {
                        Ok(zut_agent::ElicitationAnswer::decline())
                    }
                    Some(zut_agent::ElicitationAction::Cancel) => {
                        Ok(zut_agent::ElicitationAnswer::cancel())
                    }
                    None => Err(format!(
                        "action must be accept, decline or cancel, not {action:?}"
                    )),
                };
                let r = answer.and_then(|a| c.answer_elicitation(request_id, a));
                self.respond(match r {
                    Ok(()) => Response::ok(id, kind, None),
                    Err(e) => Response::err(id, kind, e),
                });
            }
            Request::PanelClose {
                extension,
                panel_id,
            } => {
                c.panel_close(&extension, &panel_id);
                self.respond(Response::ok(id, kind, None));
            }
            Request::GetCommands => {
                let commands = c.command_list();
                self.respond(Response::ok(id, kind, data(&CommandsData { commands })));
            }
            Request::ListSessions { all } => {
                let list = crate::sessions::list(&self.cwd, &self.zut_home, all);
                self.respond(Response::ok(id, kind, data(&list)));
            }
            Request::NewSession => {
                let job = c.new_session(None);
                self.session_move(id, kind, Ok(job));
            }
            Request::SwitchSession { path, session_id } => {
                let job = crate::sessions::target(&self.cwd, &self.zut_home, path, session_id)
                    .and_then(|p| c.resume_session(&p, None));
                self.session_move(id, kind, job);
            }
            Request::ForkSession { at, hidden } => {
                let job = c.fork_session(at, hidden, None);
                self.session_move(id, kind, Ok(job));
            }
            Request::RenameSession { title } => {
                let job = c.rename_session(&title, None);
                self.session_move(id, kind, Ok(job));
            }
            Request::ReloadExt => {
                let job = c.reload_extensions(None);
                let out = self.out.clone();
                self.tasks.spawn(async move {
                    let r = match job.outcome().await {
                        JobOutcome::Reload(r) => Response::ok(
                            id,
                            "reload_ext",
                            data(&ReloadData {
                                stopped: r.stopped,
                                loaded: r.loaded,
                                ready: r.ready,
                                errors: r.errors,
                            }),
                        ),
                        _ => Response::err(id, "reload_ext", "reload did not run"),
                    };
                    out.line(r.to_line());
                });
            }
        }
        Next::Continue
    }

    /// Answers a session move when its job finished.
    fn session_move(&mut self, id: Option<String>, kind: &str, job: Result<JobHandle, String>) {
        let job = match job {
            Ok(j) => j,
            Err(e) => return self.respond(Response::err(id, kind, e)),
        };
        let out = self.out.clone();
        let kind = kind.to_string();
        let c = self.controller.clone();
        self.tasks.spawn(async move {
            let r = match job.outcome().await {
                JobOutcome::Session(Ok(m)) => {
                    let mut d = crate::sessions::moved(&m);
                    if kind == "switch_session" {
                        // Goes on with the session's provider and model,
                        // as the TUI's resume does.
                        crate::sessions::restore_model(&c, &m, &mut d);
                    }
                    Response::ok(id, &kind, data(&d))
                }
                JobOutcome::Session(Err(e)) => Response::err(id, &kind, e),
                _ => Response::err(id, &kind, "the conversation has stopped"),
            };
            out.line(r.to_line());
        });
    }

    fn hello(&mut self, id: Option<String>, token: Option<String>, caps: Vec<String>) -> Next {
        if let Some(expected) = &self.token {
            if !self.out.authed() && token.as_deref() != Some(expected.as_str()) {
                self.out
                    .last_line(Response::err(id, "hello", "invalid token").to_line());
                return Next::BadToken;
            }
        }
        let mut granted = Vec::new();
        for cap in &caps {
            let cap = match cap.as_str() {
                "command" => "commands",
                other => other,
            };
            if CAPABILITIES.contains(&cap) && !granted.iter().any(|g| g == cap) {
                granted.push(cap.to_string());
            }
        }
        if granted.iter().any(|g| g == "commands") {
            self.commands.store(true, Ordering::Relaxed);
        }
        if granted.iter().any(|g| g == "ext_ui") {
            self.ext_ui.store(true, Ordering::Relaxed);
        }
        if granted.iter().any(|g| g == "subagents") {
            self.subagents.store(true, Ordering::Relaxed);
        }
        if granted.iter().any(|g| g == "sessions") {
            self.sessions = true;
        }
        if granted.iter().any(|g| g == "mcp_elicitation") && !self.elicitation {
            // Declared to the MCP servers from now on (running ones
            // reconnect); their requests arrive as `mcp_elicitation`.
            self.elicitation = true;
            self.controller.set_mcp_elicitation(true);
        }
        let st = self.controller.state();
        let hello = HelloData {
            protocol_version: 1,
            version: env!("CARGO_PKG_VERSION").to_string(),
            provider: st.provider,
            model: st.model,
            capabilities: (!caps.is_empty()).then_some(granted),
        };
        let line = Response::ok(id, "hello", data(&hello)).to_line();
        if self.out.authed() {
            self.out.line(line);
        } else {
            self.out.authenticate(line);
        }
        Next::Continue
    }

    fn command(&mut self, id: Option<String>, name: String, args: String) {
        let c = self.controller.clone();
        self.tasks.spawn(async move {
            let tag = |action: &str| Tag::encode(id.clone(), "command", Some(action));
            let lower = name.trim().trim_start_matches('/').to_ascii_lowercase();
            let queued_action = match lower.as_str() {
                "compact" => "compact",
                "reload-ext" => "reload",
                _ => "prompt",
            };
            let result = c.command(&name, &args, tag(queued_action)).await;
            let r = match result {
                Err(e) => Response::err(id, "command", e),
                Ok(CommandOutcome::Queued(job)) => {
                    if queued_action != "reload" {
                        // The response is written when the job starts.
                        return;
                    }
                    match job.outcome().await {
                        JobOutcome::Reload(r) => {
                            let mut text = format!(
                                "reloaded: {} stopped, {} loaded ({} ready)",
                                r.stopped, r.loaded, r.ready
                            );
                            if !r.errors.is_empty() {
                                text.push_str(&format!(
                                    ", {} error(s): {}",
                                    r.errors.len(),
                                    r.errors.join("; ")
                                ));
                            }
                            command_ok(id, "reload", None, Some(text))
                        }
                        _ => Response::err(id, "command", "reload did not run"),
                    }
                }
                Ok(CommandOutcome::Display { extension, text }) => {
                    command_ok(id, "display", Some(extension), Some(text))
                }
                Ok(CommandOutcome::Insert { extension, text }) => {
                    command_ok(id, "insert", Some(extension), Some(text))
                }
                Ok(CommandOutcome::OpenPanel { extension, .. }) => {
                    command_ok(id, "open_panel", Some(extension), None)
                }
                Ok(CommandOutcome::Done(text)) => command_ok(id, "done", None, Some(text)),
                Ok(CommandOutcome::Noop) => command_ok(id, "noop", None, None),
            };
            // Through the stream, so it follows the events the command
            // produced (`ext_display`, `ext_insert`, `ext_panel_open`).
            c.note(String::from_utf8_lossy(&r.to_line()).into_owned());
        });
    }
}

fn command_ok(
    id: Option<String>,
    action: &str,
    extension: Option<String>,
    text: Option<String>,
) -> Response {
    Response::ok(
        id,
        "command",
        data(&CommandData {
            action: action.to_string(),
            started: None,
            extension,
            text,
        }),
    )
}

/// rpc.md §6: a user message made only of tool results has role `tool`.
fn message_json(m: &Message, time: &str) -> MessageJson {
    let role = match m.role {
        Role::Assistant => "assistant",
        Role::User
            if !m.content.is_empty()
                && m.content
                    .iter()
                    .all(|p| matches!(p, Part::ToolResult { .. })) =>
        {
            "tool"
        }
        Role::User => "user",
    };
    MessageJson {
        role: role.to_string(),
        content: json_blocks(&m.content),
        time: time.to_string(),
    }
}
