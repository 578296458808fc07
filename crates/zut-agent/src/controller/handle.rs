//! The controller as a [`ConversationHandle`], for front ends that depend
//! on `zut-control` only (ACP).

use std::sync::Arc;

use zut_control::{BoxFuture, CommandEntry, CommandOutcome, ConversationHandle, JobHandle};
use zut_types::{ApprovalDecision, Message, Part};

use super::Controller;

impl ConversationHandle for Controller {
    fn prompt(&self, content: Vec<Part>, tag: Option<String>) -> JobHandle {
        Controller::prompt(self, content, tag)
    }

    fn command<'a>(
        &'a self,
        name: &'a str,
        args: &'a str,
        tag: Option<String>,
    ) -> BoxFuture<'a, Result<CommandOutcome, String>> {
        Box::pin(Controller::command(self, name, args, tag))
    }

    fn command_list(&self) -> Vec<CommandEntry> {
        Controller::command_list(self)
    }

    fn abort(&self) -> bool {
        Controller::abort(self)
    }

    fn answer_approval(&self, request_id: u64, decision: ApprovalDecision) -> bool {
        Controller::answer_approval(self, request_id, decision)
    }

    fn answer_elicitation(
        &self,
        request_id: u64,
        answer: zut_types::ElicitationAnswer,
    ) -> Result<(), String> {
        Controller::answer_elicitation(self, request_id, answer)
    }

    fn pending_elicitations(&self) -> Vec<zut_types::ElicitationRequest> {
        Controller::pending_elicitations(self)
    }

    fn elicitation_watch(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        Some(self.shared.elicitation_seq.subscribe())
    }

    fn messages(&self) -> Arc<Vec<Message>> {
        Controller::messages(self)
    }

    fn panel_key(&self, extension: &str, panel_id: &str, key: &str, text: &str) {
        Controller::panel_key(self, extension, panel_id, key, text)
    }

    fn panel_close(&self, extension: &str, panel_id: &str) {
        Controller::panel_close(self, extension, panel_id)
    }

    fn ready(&self) -> BoxFuture<'_, ()> {
        Box::pin(Controller::ready(self))
    }

    fn close(&self) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(Controller::close(self))
    }
}
