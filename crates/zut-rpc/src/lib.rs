//! zut's RPC front end (`zut rpc`, `--rpc`, `--mode rpc`): the Go
//! original's line-delimited JSON protocol on stdin/stdout (rpc.md), plus
//! opt-in additions, as a thin layer over one [`zut_agent::Controller`].
//!
//! This crate knows the protocol, the controller's API and the extension
//! host it shuts down; how the conversation is built (provider, session
//! file, extensions) is the CLI's business: it hands [`serve`] a ready
//! [`Conversation`].

/// A line on stderr (a closed stderr is ignored).
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod dispatch;
mod forward;
mod lines;
mod output;
mod parse;
#[cfg(test)]
mod schema;
mod sessions;
mod signals;
pub mod wire;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinSet;
use zut_agent::{Controller, EventStream};

use dispatch::{Dispatcher, Next};
use lines::{Input, Lines, MAX_LINE};
use output::Out;
use wire::Response;

pub use signals::Signals;

/// The environment variable holding the auth token (rpc.md §2).
pub const TOKEN_VAR: &str = "ZUTCORE_RPC_TOKEN";

/// What [`serve`] drives.
pub struct Conversation {
    /// The conversation's controller.
    pub controller: Controller,
    /// Its one event stream.
    pub events: EventStream,
    /// The working directory reported by `get_state`.
    pub cwd: String,
    /// `$ZUT_HOME` (the sessions of the opt-in `sessions` capability).
    pub zut_home: std::path::PathBuf,
    /// The auth token (`ZUTCORE_RPC_TOKEN`), when one is required.
    pub token: Option<String>,
}

/// Serves RPC on stdin/stdout until EOF, a wrong token or a signal, then
/// stops the conversation and its extensions (rpc.md §8); returns the exit
/// status. `stop` resolves on the first SIGINT/SIGTERM
/// ([`Signals::watch`], installed by the caller before extensions start).
pub async fn serve(conv: Conversation, stop: tokio::sync::oneshot::Receiver<()>) -> i32 {
    let Conversation {
        controller,
        events,
        cwd,
        zut_home,
        token,
    } = conv;
    let (out, writer) = Out::start(token.is_none());
    let ext_ui = Arc::new(AtomicBool::new(false));
    let subagents = Arc::new(AtomicBool::new(false));
    let forwarder = tokio::spawn(forward::run(
        events,
        out.clone(),
        ext_ui.clone(),
        subagents.clone(),
    ));
    let mut d = Dispatcher {
        controller: controller.clone(),
        out: out.clone(),
        token,
        cwd,
        commands: Arc::new(AtomicBool::new(false)),
        ext_ui,
        subagents,
        sessions: false,
        elicitation: false,
        zut_home,
        tasks: JoinSet::new(),
    };
    let ended = read_loop(&mut d, stop).await;
    match ended {
        Ended::BadToken => {
            errln!("zut: rpc: bad auth token");
            d.tasks.abort_all();
            controller.abort();
            controller.drop_queued();
            // Nothing was asked: a session file this run created goes.
            let _ = controller.finish(Some(Duration::from_millis(100))).await;
        }
        Ended::Eof | Ended::Signal => {
            if ended == Ended::Eof {
                // Finish what was asked.
                while d.tasks.join_next().await.is_some() {}
            } else {
                // Stop: unanswered commands and queued jobs are dropped,
                // the running job is aborted.
                d.tasks.abort_all();
                loop {
                    controller.drop_queued();
                    controller.abort();
                    let idle = controller.wait_idle();
                    if tokio::time::timeout(Duration::from_millis(20), idle)
                        .await
                        .is_ok()
                    {
                        break;
                    }
                }
            }
            if let Err(e) = controller.finish(None).await {
                errln!("zut: {e}");
            }
        }
    }
    d.tasks.abort_all();
    drop(d);
    drop(controller);
    // The stream ends once the host's UI channel is closed; its last
    // frames (ext_chrome_clear) are written before that.
    let abort = forwarder.abort_handle();
    if tokio::time::timeout(Duration::from_secs(3), forwarder)
        .await
        .is_err()
    {
        abort.abort();
    }
    drop(out);
    let _ = tokio::task::spawn_blocking(move || writer.join()).await;
    match ended {
        Ended::BadToken => 1,
        Ended::Eof | Ended::Signal => 0,
    }
}

/// Why the read loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// End of input: queued work finishes.
    Eof,
    /// A wrong token in `hello`: exit 1.
    BadToken,
    /// SIGINT or SIGTERM: work is aborted.
    Signal,
}

/// Reads requests until EOF, a bad token or the first SIGINT/SIGTERM.
async fn read_loop(d: &mut Dispatcher, mut stop: tokio::sync::oneshot::Receiver<()>) -> Ended {
    let stdin = tokio::io::BufReader::with_capacity(64 * 1024, tokio::io::stdin());
    let mut lines = Lines::new(stdin, MAX_LINE);
    loop {
        let input = tokio::select! {
            i = lines.next() => i,
            Ok(()) = &mut stop => return Ended::Signal,
        };
        match input {
            Input::Eof => return Ended::Eof,
            Input::TooLong(n) => d.out.line(
                Response::err(
                    None,
                    "",
                    format!(
                        "line too long: {n} bytes (the limit is {} MiB); skipped",
                        MAX_LINE / (1024 * 1024)
                    ),
                )
                .to_line(),
            ),
            Input::Line(line) => {
                if d.line(&line) == Next::BadToken {
                    return Ended::BadToken;
                }
            }
        }
    }
}
