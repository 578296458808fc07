//! SIGINT and SIGTERM in RPC mode. The first one stops reading requests:
//! the running job is aborted, queued ones are dropped,
//! extensions are stopped and zut exits 0. A second one while that
//! shutdown hangs (an extension that does not answer, a hung interceptor)
//! exits at once with 128 + the signal number.

use tokio::sync::oneshot;

/// The handlers, installed at once so that no signal between start-up
/// and the read loop is lost to the default action.
pub struct Signals {
    #[cfg(unix)]
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    /// Installs the handlers (inside the runtime).
    pub fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let streams = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => None,
            };
            Self { streams }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Watches on its own task; the receiver resolves on the first signal.
    pub fn watch(self) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        tokio::spawn(self.run(tx));
        rx
    }

    async fn run(mut self, first: oneshot::Sender<()>) {
        let mut first = Some(first);
        loop {
            let Some(signo) = self.next().await else {
                // No handlers: never resolve (the sender stays alive).
                return std::future::pending().await;
            };
            match first.take() {
                Some(tx) => {
                    errln!("zut: rpc: stopping (send the signal again to exit without waiting)");
                    let _ = tx.send(());
                }
                None => {
                    errln!("zut: rpc: second signal: exiting without waiting");
                    std::process::exit(128 + signo);
                }
            }
        }
    }

    /// The next signal's number; `None` when none can come.
    async fn next(&mut self) -> Option<i32> {
        #[cfg(unix)]
        {
            let (int, term) = self.streams.as_mut()?;
            tokio::select! {
                Some(()) = int.recv() => Some(libc::SIGINT),
                Some(()) = term.recv() => Some(libc::SIGTERM),
                else => None,
            }
        }
        #[cfg(not(unix))]
        {
            tokio::signal::ctrl_c().await.ok().map(|()| 2)
        }
    }
}
