//! Context the user gives the model outside a prompt: the output of a
//! `!command` run in the TUI (issue 24). It is added to the transcript as
//! a user message of its own right before the next prompt (so the model
//! sees it with that prompt, never on its own), and persisted the way the
//! Go original persists it: a `user` row with `meta.shell_escape: "true"`.

use std::collections::BTreeMap;

use zut_providers::Message;

use crate::agent::Agent;
use crate::session_bridge::from_provider;

/// The meta key of a `!command` output message (the Go original's).
pub const SHELL_ESCAPE_META: &str = "shell_escape";

impl Agent {
    /// Appends `text` as a user message marked with `meta_key: "true"` and
    /// writes it to the session, if any. Nothing is sent to the model: the
    /// next request carries it.
    pub fn add_user_context(&mut self, text: String, meta_key: &str) -> Result<(), String> {
        let message = Message::user_text(text);
        let persisted = match self.session.as_mut() {
            None => Ok(()),
            Some(s) => {
                let mut row = from_provider(&message);
                row.meta = Some(BTreeMap::from([(meta_key.to_string(), "true".to_string())]));
                s.writer_mut()
                    .append_message(&row)
                    .map_err(|e| e.to_string())
            }
        };
        self.transcript.push(message);
        persisted
    }
}
