//! `/btw <question>` (issue 24): a side question answered from the current
//! conversation that is not added to it — not to the transcript, not to
//! the session file, not to any later request.
//!
//! The worker keeps a [`SideKit`] (provider, system prompt, tool specs) as
//! of the last job boundary; a side question is one request built from it
//! and the transcript snapshot of the same moment, sent outside the job
//! queue, so it can be asked while a prompt runs (it then sees the
//! conversation as it was before that prompt). The request starts exactly
//! as the main conversation's requests do (same system prompt, tools and
//! messages), so a provider's prompt cache serves it; the question is the
//! last user text, marked as a side question to answer without tools.

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;
use zut_providers::{Message, Part, Provider, Reasoning, Request, Role, ToolSpec};

use crate::agent::Agent;
use crate::event::UsageCounts;
use crate::long_session::LongSessionConfig;

/// The line put before the question in the request.
pub const SIDE_QUESTION_MARK: &str = "[Side question (/btw): answer it briefly from this \
conversation as it stands, in plain text, without calling any tool. The question and your \
answer are not kept in the conversation.]";

/// What a side question needs of the agent, captured between jobs.
#[derive(Debug, Clone)]
pub struct SideKit {
    provider: Provider,
    system: String,
    tools: Vec<ToolSpec>,
    max_tokens: u32,
    reasoning: Reasoning,
    cwd: PathBuf,
    long_session: LongSessionConfig,
}

/// A side question's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SideAnswer {
    /// The model's text.
    pub text: String,
    /// Tools the model asked for anyway (not run).
    pub wanted_tools: Vec<String>,
    /// The call's usage, priced.
    pub usage: UsageCounts,
}

impl Agent {
    /// The [`SideKit`] of the agent as it is now.
    pub fn side_kit(&mut self) -> SideKit {
        let tools = self.turn_tools();
        let system = crate::system_prompt::build_from(
            &self.config.system,
            &self.system_files,
            &tools.summary(),
        );
        let specs = tools.specs_placed(&self.activated, &self.activation_calls, &self.transcript);
        SideKit {
            provider: self.provider.clone(),
            system,
            tools: specs,
            max_tokens: self.config.max_tokens,
            reasoning: self.config.reasoning,
            cwd: self.config.cwd.clone(),
            long_session: self.config.long_session.clone(),
        }
    }
}

impl SideKit {
    /// The request asking `question` after `messages` (the transcript the
    /// kit was captured with), projected as the main requests are.
    pub fn request(&self, messages: &[Message], question: &str) -> Request {
        let budget = crate::result_budget::BudgetState::default();
        let mut messages =
            crate::projection::project(messages, &self.cwd, &self.long_session, &budget);
        let ask = Part::Text {
            text: format!("{SIDE_QUESTION_MARK}\n\n{}", question.trim()),
        };
        match messages.last_mut() {
            Some(last) if last.role == Role::User => last.content.push(ask),
            _ => messages.push(Message {
                role: Role::User,
                content: vec![ask],
            }),
        }
        Request {
            model: self.provider.model().to_string(),
            system: self.system.clone(),
            messages,
            tools: self.tools.clone(),
            max_tokens: self.max_tokens,
            reasoning: self.reasoning,
        }
    }

    /// Asks `question` after `messages`; nothing is stored anywhere.
    pub async fn ask(
        &self,
        messages: &[Message],
        question: &str,
        cancel: &CancellationToken,
    ) -> Result<SideAnswer, String> {
        if question.trim().is_empty() {
            return Err("usage: /btw <question>".into());
        }
        let request = self.request(messages, question);
        let completion = self
            .provider
            .stream(&request, cancel, &mut |_| {})
            .await
            .map_err(|e| e.to_string())?;
        let usage = crate::event::usage_counts(
            &completion.usage,
            self.provider.config().prices_for(self.provider.model()),
        );
        Ok(SideAnswer {
            text: completion.message.text().trim().to_string(),
            wanted_tools: completion
                .message
                .tool_calls()
                .map(|(_, name, _)| name.to_string())
                .collect(),
            usage,
        })
    }
}
