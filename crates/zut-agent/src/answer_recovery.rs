//! Missing-answer recovery (issue 24; the Go original's
//! `turn_recovery.go`, tools.md §14.4): a prompt whose model calls used
//! tools and whose last reply ends normally with no text (only reasoning,
//! or nothing) gets one more request asking for the answer, visibly
//! (`turn_recovery`). A second empty end fails the prompt with
//! `agent turn ended without a final answer` — never a silent success.
//! Not applied after errors, cancellation, the output-length limit, or
//! when the answer was hidden by an extension (that is a choice, not a
//! missing answer).

use crate::event::AgentEvent;

/// The request's text (the Go original's, word for word).
pub const RECOVERY_PROMPT: &str = "The request ended without a final answer. Continue the \
authorized work if it remains actionable. Otherwise provide the result, the concrete blocker, or \
the specific decision required. Do not merely promise to continue. Respect the user's scope, tool \
permissions, required confirmations, and any pending required work.";

/// The failure after a second empty end.
pub const NO_ANSWER: &str = "agent turn ended without a final answer";

/// What to do at a normal end.
#[derive(Debug, Clone, PartialEq)]
pub enum AtEnd {
    /// The prompt is complete.
    Complete,
    /// Send [`RECOVERY_PROMPT`] and call the model again.
    Ask,
    /// Fail the prompt with this message.
    Fail(String),
}

/// The recovery state of one prompt.
#[derive(Debug, Default)]
pub struct AnswerRecovery {
    on: bool,
    used_tools: bool,
    asked: bool,
}

impl AnswerRecovery {
    /// A fresh state (`on: false`: always [`AtEnd::Complete`]).
    pub fn new(on: bool) -> Self {
        Self {
            on,
            ..Self::default()
        }
    }

    /// Tools ran in this prompt.
    pub fn tools_ran(&mut self) {
        self.used_tools = true;
    }

    /// A normal end whose reply's text is `text` (as the model wrote it:
    /// a reply an extension hid from the user still has its answer).
    pub fn at_end(&mut self, text: &str, sink: &mut (dyn FnMut(AgentEvent) + Send)) -> AtEnd {
        if !self.on || !self.used_tools || !text.trim().is_empty() {
            return AtEnd::Complete;
        }
        if self.asked {
            return AtEnd::Fail(NO_ANSWER.to_string());
        }
        self.asked = true;
        sink(AgentEvent::TurnRecovery {
            reason: "missing_answer",
            attempt: 1,
        });
        AtEnd::Ask
    }
}

impl crate::Agent {
    /// A normal end (no tool calls): the repetition guard looks at the
    /// reply's text, then the missing-answer recovery. `None`: the prompt
    /// is complete; `Some(Ok(()))`: a user message was added (a warning or
    /// the recovery request), call the model again; `Some(Err(message))`:
    /// fail the prompt.
    pub(crate) fn at_normal_end(
        &mut self,
        stop: zut_providers::StopReason,
        text: &str,
        guard: &mut crate::repetition::Guard,
        recovery: &mut AnswerRecovery,
        sink: crate::agent::EventSink<'_>,
    ) -> Option<Result<(), String>> {
        if stop != zut_providers::StopReason::EndTurn {
            return None;
        }
        let ask = match guard.observe_text(text, sink) {
            crate::repetition::Verdict::Stop(message) => return Some(Err(message)),
            crate::repetition::Verdict::Warn(warning) => warning,
            crate::repetition::Verdict::Fine => match recovery.at_end(text, sink) {
                AtEnd::Complete => return None,
                AtEnd::Fail(message) => return Some(Err(message)),
                AtEnd::Ask => RECOVERY_PROMPT.to_string(),
            },
        };
        let message = zut_providers::Message::user_text(ask);
        Some(self.record_message(message, Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_once_then_fails() {
        let mut events = 0;
        let mut sink = |_: AgentEvent| events += 1;
        let mut r = AnswerRecovery::new(true);
        assert_eq!(r.at_end("", &mut sink), AtEnd::Complete);
        r.tools_ran();
        assert_eq!(r.at_end("answer", &mut sink), AtEnd::Complete);
        assert_eq!(r.at_end(" \n", &mut sink), AtEnd::Ask);
        assert_eq!(r.at_end("", &mut sink), AtEnd::Fail(NO_ANSWER.into()));
        let mut off = AnswerRecovery::new(false);
        off.tools_ran();
        assert_eq!(off.at_end("", &mut sink), AtEnd::Complete);
        assert_eq!(events, 1);
    }
}
