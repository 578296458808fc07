//! The worker task: owns the [`Agent`] and runs queued jobs one at a time,
//! in order, applying settings changes between jobs.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::jobs::{Job, Work};
use super::shared::Shared;
use super::startup::{HostSlot, Startup};
use crate::agent::Agent;
use crate::event::AgentEvent;
use tokio::sync::watch;
use zut_control::{ControllerEvent, EventQueue};
use zut_control::{JobOutcome, ReloadSummary};

/// Runs jobs until the controller shuts down and the queue is empty;
/// returns the agent.
pub(crate) async fn run(
    mut agent: Agent,
    shared: Arc<Shared>,
    events: EventQueue,
    boot: Option<(Startup, HostSlot, Option<watch::Sender<bool>>)>,
) -> Agent {
    if let Some((startup, slot, ready)) = boot {
        super::startup::start(&mut agent, startup, &slot, &events).await;
        if let Some(ready) = ready {
            let _ = ready.send(true);
        }
    }
    // The `/btw` kit is taken again at every job boundary, once a front
    // end offers side questions.
    let mut side_stale = true;
    loop {
        let wake = shared.wake.notified();
        let next = {
            let mut st = shared.lock();
            if st.apply_pending(&mut agent) {
                st.refresh(&agent);
                side_stale = true;
            }
            if side_stale && st.side_wanted {
                st.side = Some(Arc::new(agent.side_kit()));
                side_stale = false;
            }
            match st.queue.pop_front() {
                Some(job) => {
                    let cancel = CancellationToken::new();
                    st.running = Some((job.id, cancel.clone()));
                    st.busy = true;
                    Some((job, cancel))
                }
                None if st.closed => break,
                None => None,
            }
        };
        let Some((job, cancel)) = next else {
            shared.idle.notify_waiters();
            wake.await;
            continue;
        };
        let Job {
            id,
            tag,
            work,
            done,
        } = job;
        events.push(ControllerEvent::JobStarted {
            job: id,
            kind: work.kind(),
            tag,
        });
        let mut last = Vec::new();
        let outcome = run_job(&mut agent, work, &cancel, &shared, &events, &mut last).await;
        {
            let mut st = shared.lock();
            st.running = None;
            st.busy = false;
            // A request the job no longer waits for cannot be answered.
            st.approvals.clear();
            st.refresh(&agent);
        }
        side_stale = true;
        // `done` / `compact_done` only now: a client that asks for the
        // messages or the state when it sees them gets the finished job's.
        for ev in last {
            events.push(ControllerEvent::Agent(ev));
        }
        events.push(ControllerEvent::JobFinished { job: id });
        let _ = done.send(outcome);
    }
    // Jobs queued after the close never run.
    let left: Vec<Job> = shared.lock().queue.drain(..).collect();
    for job in left {
        let _ = job.done.send(JobOutcome::Dropped);
    }
    shared.idle.notify_waiters();
    agent
}

async fn run_job(
    agent: &mut Agent,
    work: Work,
    cancel: &CancellationToken,
    shared: &Arc<Shared>,
    events: &EventQueue,
    last: &mut Vec<AgentEvent>,
) -> JobOutcome {
    let mut sink = |ev: AgentEvent| {
        if let AgentEvent::Usage(u) = &ev {
            shared.lock().usage.add(&u.this);
        }
        if matches!(ev, AgentEvent::Done | AgentEvent::CompactDone { .. }) {
            last.push(ev);
        } else {
            events.push(ControllerEvent::Agent(ev));
        }
    };
    if let (Some(why), Work::Prompt(_) | Work::Compact(_)) = (&shared.unavailable, &work) {
        let what = match work {
            Work::Compact(_) => "/compact",
            _ => "the command's prompt",
        };
        let message = format!("{what} needs a model, but none is configured: {why}");
        sink(AgentEvent::Error {
            message: message.clone(),
        });
        return match work {
            Work::Compact(_) => JobOutcome::Compact(Err(message)),
            _ => {
                sink(AgentEvent::Done);
                JobOutcome::Prompt(crate::outcome::PromptOutcome::Failed { message })
            }
        };
    }
    // Goal continuations give way to queued work (crate::goals).
    if agent.work_waiting.is_none() {
        let shared = shared.clone();
        agent.work_waiting = Some(Arc::new(move || !shared.lock().queue.is_empty()));
    }
    match work {
        Work::Goal(args) => {
            JobOutcome::Prompt(super::goal_loop::run(agent, &args, cancel, &mut sink).await)
        }
        Work::Prompt(parts) => {
            let context = std::mem::take(&mut shared.lock().user_context);
            if !context.is_empty() {
                // The session is titled after the prompt, not the output.
                let prompt = zut_providers::Message {
                    role: zut_providers::Role::User,
                    content: parts.clone(),
                };
                agent.title_session(&prompt.text());
            }
            for text in context {
                if let Err(message) =
                    agent.add_user_context(text, crate::user_context::SHELL_ESCAPE_META)
                {
                    sink(AgentEvent::Error {
                        message: message.clone(),
                    });
                    sink(AgentEvent::Done);
                    return JobOutcome::Prompt(crate::outcome::PromptOutcome::Failed { message });
                }
            }
            JobOutcome::Prompt(agent.prompt(parts, cancel, &mut sink).await)
        }
        Work::Compact(instructions) => JobOutcome::Compact(
            agent
                .compact(instructions.as_deref(), cancel, &mut sink)
                .await,
        ),
        Work::Session(mv) => {
            if !matches!(mv, super::SessionMove::Rename(_)) {
                // `!command` output waits for a prompt of this conversation.
                shared.lock().user_context.clear();
            }
            let result = agent.apply_move(mv);
            if result.is_ok() {
                // The counters follow the file the conversation is in now.
                shared.lock().usage = Default::default();
            }
            JobOutcome::Session(result)
        }
        Work::Reload => {
            let Some(host) = agent.host().cloned() else {
                return JobOutcome::Reload(ReloadSummary::default());
            };
            let mut host = (*host).clone();
            let report = host.reload().await;
            host.rebuild_tools();
            // Bundled skills follow the reloaded manifests.
            agent.reload_skills();
            JobOutcome::Reload(ReloadSummary {
                stopped: report.stopped,
                loaded: report.loaded,
                ready: report.ready,
                errors: report.errors.iter().map(|e| e.to_string()).collect(),
            })
        }
    }
}
