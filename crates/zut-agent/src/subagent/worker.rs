//! One child's turn loop: waits for a prompt, then for a concurrency slot
//! (at most `subagents.queue_timeout`), runs the turn within its time
//! budget, and reports how it ended — `result.json`, the child's status,
//! the parent's completion notes, the front ends' `subagent_end` and the
//! extensions' `subagent_end`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use zut_ext_host::ExtensionHost;
use zut_protocol::{Event, EventName};
use zut_providers::Part;

use crate::agent::Agent;
use crate::event::AgentEvent;
use crate::outcome::PromptOutcome;
use crate::subagent::child_files::{capture_patch, write_result};
use crate::subagent::link::{forwarded, Feed};
use crate::subagent::runtime::RESULT_BYTES;
use crate::subagent::runtime::{clip, lock, Child, ChildState, Updates, SUMMARY_BYTES};

/// Runs one child's turns.
pub(super) struct Worker {
    pub(super) child: Arc<Child>,
    pub(super) limit: Arc<Semaphore>,
    pub(super) timeout: Duration,
    /// `subagents.queue_timeout`.
    pub(super) queue_timeout: Option<Duration>,
    pub(super) feed: Arc<Feed>,
}

/// How a turn ended.
struct Ended {
    state: ChildState,
    final_text: String,
    error: Option<String>,
    stopped: bool,
}

impl Worker {
    /// Starts the loop on its own task, after telling the extensions
    /// (`subagent_start`).
    pub(super) fn start(
        self,
        agent: Agent,
        inbox: mpsc::UnboundedReceiver<String>,
        updates: Updates,
    ) {
        ext_start(agent.host.as_deref(), &self.child);
        tokio::spawn(self.run(agent, inbox, updates));
    }

    async fn run(
        self,
        mut agent: Agent,
        mut inbox: mpsc::UnboundedReceiver<String>,
        updates: Updates,
    ) {
        let child = self.child.clone();
        loop {
            let prompt = tokio::select! {
                p = inbox.recv() => match p {
                    Some(p) => p,
                    None => break,
                },
                _ = child.stop.cancelled() => break,
            };
            child.update(|s| s.state = ChildState::Queued);
            let permit = tokio::select! {
                p = self.slot() => match p {
                    Ok(p) => p,
                    Err(_) => break,
                },
                _ = child.stop.cancelled() => break,
            };
            let ended = match permit {
                Some(permit) => {
                    let ended = self.turn(&mut agent, prompt).await;
                    drop(permit);
                    ended
                }
                None => {
                    // The Go original's "queue timeout": the prompt fails
                    // without a model call; the child takes follow-ups.
                    child.update(|s| s.pending = s.pending.saturating_sub(1));
                    let waited = self.queue_timeout.unwrap_or_default();
                    Ended {
                        state: ChildState::Failed,
                        final_text: String::new(),
                        error: Some(format!(
                            "queue timeout after {waited:?}: no free slot among subagents.max_concurrent"
                        )),
                        stopped: false,
                    }
                }
            };
            let stopped = ended.stopped;
            self.report(agent.host.as_deref(), ended, &updates).await;
            if stopped {
                break;
            }
        }
        if child.stop.is_cancelled() {
            child.update(|s| {
                if !s.state.is_settled() || s.pending > 0 {
                    s.state = ChildState::Stopped;
                }
                s.pending = 0;
            });
        }
    }

    /// A concurrency slot; `Ok(None)` when `queue_timeout` passed first.
    async fn slot(&self) -> Result<Option<OwnedSemaphorePermit>, tokio::sync::AcquireError> {
        let acquire = self.limit.clone().acquire_owned();
        match self.queue_timeout {
            None => acquire.await.map(Some),
            Some(limit) => match tokio::time::timeout(limit, acquire).await {
                Ok(p) => p.map(Some),
                Err(_) => Ok(None),
            },
        }
    }

    /// Runs one turn within the time budget.
    async fn turn(&self, agent: &mut Agent, prompt: String) -> Ended {
        let child = &self.child;
        let turn = child.stop.child_token();
        *lock(&child.turn) = Some(turn.clone());
        child.update(|s| {
            s.state = ChildState::Running;
            s.pending = s.pending.saturating_sub(1);
            s.error = None;
        });
        // A parent that dies now leaves "running" here: the next run
        // shows the child as interrupted (and resumable).
        let previous = child.status().final_text;
        write_result(child, ChildState::Running, &previous, None);
        let (c2, feed) = (child.clone(), self.feed.clone());
        let mut sink = move |ev: AgentEvent| {
            match &ev {
                AgentEvent::TurnStart { .. } => c2.update(|s| s.steps += 1),
                AgentEvent::ToolExecutionStarted { name, .. } => {
                    c2.update(|s| s.tool = Some(name.clone()))
                }
                AgentEvent::ToolResult { .. } => c2.update(|s| s.tool = None),
                AgentEvent::Usage(u) => {
                    c2.update(|s| {
                        s.tokens.0 += u.this.input;
                        s.tokens.1 += u.this.output;
                        s.usage.add(&u.this);
                    });
                    feed.add_usage(&u.this);
                }
                _ => {}
            }
            if forwarded(&ev) && feed.listening() {
                feed.forward(&c2.id, ev);
            }
        };
        let mut timed_out = false;
        let outcome = {
            let fut = agent.prompt(vec![Part::Text { text: prompt }], &turn, &mut sink);
            tokio::pin!(fut);
            tokio::select! {
                o = &mut fut => o,
                _ = tokio::time::sleep(self.timeout) => {
                    timed_out = true;
                    turn.cancel();
                    fut.await
                }
            }
        };
        *lock(&child.turn) = None;
        let stopped = child.stop.is_cancelled();
        let (state, final_text, error) = match outcome {
            _ if timed_out => (
                ChildState::Failed,
                String::new(),
                Some(format!(
                    "time budget of {} s exceeded",
                    self.timeout.as_secs()
                )),
            ),
            PromptOutcome::Completed { final_text, .. } => {
                (ChildState::Completed, final_text, None)
            }
            PromptOutcome::Aborted if stopped => (ChildState::Stopped, String::new(), None),
            PromptOutcome::Aborted => (ChildState::Interrupted, String::new(), None),
            PromptOutcome::Blocked { reason } => (ChildState::Failed, String::new(), Some(reason)),
            PromptOutcome::Failed { message } => (ChildState::Failed, String::new(), Some(message)),
        };
        Ended {
            state,
            final_text,
            error,
            stopped,
        }
    }

    /// Records how a turn ended and tells everyone who listens.
    async fn report(&self, host: Option<&ExtensionHost>, ended: Ended, updates: &Updates) {
        let child = &self.child;
        let Ended {
            state,
            final_text,
            error,
            ..
        } = ended;
        write_result(child, state, &final_text, error.as_deref());
        if child.workspace == "worktree" {
            capture_patch(child).await;
        }
        // Kept as `result.json` keeps it (the transcript has it all):
        // eight long replies are not held twice for the run's life.
        let kept = clip(&final_text, RESULT_BYTES);
        drop(final_text);
        let summary = clip(&kept, SUMMARY_BYTES);
        let mut line = format!("- {}: {}", child.id, state.as_str());
        if let Some(e) = &error {
            line.push_str(&format!(" ({e})"));
        }
        line.push_str(&format!(" — {}\n", clip(&child.task, 120)));
        if !kept.is_empty() {
            line.push_str(&format!("  final: {}\n", clip(&kept, 600)));
        }
        line.push_str(&format!("  transcript: {}\n", child.transcript.display()));
        child.update(|s| {
            s.state = state;
            s.final_text = kept;
            s.error = error.clone();
            s.turns += 1;
            s.tool = None;
        });
        if let Some(h) = host {
            h.emit(&Event {
                session: Some(child.ext_session.clone()),
                stop: state.as_str().to_string(),
                error: error.clone().unwrap_or_default(),
                text: summary.clone(),
                subagent_id: child.id.clone(),
                ..Event::named(EventName::SUBAGENT_END)
            });
        }
        if self.feed.listening() {
            let st = child.status();
            let end = AgentEvent::SubagentEnd {
                state: state.as_str().to_string(),
                final_text: summary,
                error,
                turns: st.turns,
                usage: st.usage,
                transcript: child.transcript.display().to_string(),
            };
            self.feed.forward(&child.id, end);
        }
        lock(updates).push_back(line);
    }
}

/// `subagent_start` to the extensions: the child's session (its
/// `parent_id` the parent's session) and its task.
fn ext_start(host: Option<&ExtensionHost>, child: &Child) {
    if let Some(h) = host {
        h.emit(&Event {
            session: Some(child.ext_session.clone()),
            text: clip(&child.task, SUMMARY_BYTES),
            subagent_id: child.id.clone(),
            ..Event::named(EventName::SUBAGENT_START)
        });
    }
}
