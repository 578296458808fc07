//! Extensions started by the controller's worker: a front end gets its
//! controller at once (the TUI paints its first frame, prompts queue) while
//! the extension host starts; the worker runs no job before it is up.

use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use zut_ext_host::{ExtensionHost, HostConfig, UiSender};
use zut_protocol::{EventName, SessionInfo};

use crate::agent::Agent;
use zut_control::{ControllerEvent, EventQueue};

/// The extension host a controller starts before its first job.
pub struct Startup {
    /// What to start.
    pub config: HostConfig,
    /// Where its UI frames go (the sending end of the channel whose
    /// receiver the controller drains).
    pub ui: UiSender,
    /// The session to announce after start (`session_start`, then
    /// `session_opened`: protocol.md §10.3).
    pub session: Option<SessionInfo>,
}

/// The host once started, shared by every controller handle.
#[derive(Clone)]
pub(crate) struct HostSlot {
    host: Arc<Mutex<Option<Arc<ExtensionHost>>>>,
    ready: watch::Receiver<bool>,
}

impl HostSlot {
    /// A slot holding `host` already (ready).
    pub(crate) fn ready(host: Option<Arc<ExtensionHost>>) -> Self {
        let (_, ready) = watch::channel(true);
        Self {
            host: Arc::new(Mutex::new(host)),
            ready,
        }
    }

    /// An empty slot and the sender that marks it ready.
    pub(crate) fn pending() -> (Self, watch::Sender<bool>) {
        let (tx, ready) = watch::channel(false);
        (
            Self {
                host: Arc::new(Mutex::new(None)),
                ready,
            },
            tx,
        )
    }

    pub(crate) fn get(&self) -> Option<Arc<ExtensionHost>> {
        self.host.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn set(&self, host: Option<Arc<ExtensionHost>>) {
        *self.host.lock().unwrap_or_else(|e| e.into_inner()) = host;
    }

    /// Takes the host out (closing the conversation drops the last clone,
    /// so the UI channel closes and the event stream can end).
    pub(crate) fn take(&self) -> Option<Arc<ExtensionHost>> {
        self.host.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Waits until the extensions started (at once when there were none
    /// to start, or the worker is gone).
    pub(crate) async fn wait(&self) {
        let mut rx = self.ready.clone();
        let _ = rx.wait_for(|ready| *ready).await;
    }

    pub(crate) fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }
}

/// Starts the host, announces the session and hands the host to the
/// agent; pushes [`ControllerEvent::ExtensionsReady`].
pub(crate) async fn start(
    agent: &mut Agent,
    startup: Startup,
    slot: &HostSlot,
    events: &EventQueue,
) {
    let (host, report) = ExtensionHost::start(startup.config, startup.ui).await;
    let host = Arc::new(host);
    host.emit_session_event(EventName::SESSION_START, startup.session.clone());
    if startup.session.is_some() {
        host.emit_session_event(EventName::SESSION_OPENED, startup.session);
    }
    // Skills (bundled ones come with the manifests) are discovered at the
    // start of each prompt.
    agent.host = Some(host.clone());
    slot.set(Some(host));
    events.push(ControllerEvent::ExtensionsReady {
        errors: report.errors.iter().map(ToString::to_string).collect(),
    });
}
