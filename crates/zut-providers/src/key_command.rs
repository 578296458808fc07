//! `api_key_command`: a program that prints an API key (a password
//! manager, the OS keychain), as the Go original documents it:
//!
//! ```json
//! {"program": "op", "args": ["read", "op://Work/OpenAI/credential"], "timeout_ms": 120000}
//! ```
//!
//! The program is started directly, without a shell (each argument its own
//! `args` entry), with no standard input and its standard error discarded.
//! It must exit 0 within `timeout_ms` (default 120 s) and print at most
//! 64 KiB; the key is the first line of its standard output, trimmed. The
//! key is cached in memory for the rest of the process (one run per
//! command, even from several threads) and never written anywhere. Errors
//! name the program and what went wrong, never the output.

use std::collections::HashMap;
use std::io::Read as _;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Default time a key command may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Most bytes a key command may print.
pub const MAX_OUTPUT: usize = 64 << 10;

/// One `api_key_command`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyCommand {
    /// The program (a path, or a name looked up in `PATH`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// `timeout_ms` (`None`: [`DEFAULT_TIMEOUT`]).
    pub timeout_ms: Option<u64>,
}

type Slot = Arc<Mutex<Option<String>>>;

fn cache() -> &'static Mutex<HashMap<KeyCommand, Slot>> {
    static CACHE: OnceLock<Mutex<HashMap<KeyCommand, Slot>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl KeyCommand {
    /// Parses the JSON object found at `at` (for error messages).
    pub fn from_json(value: &Value, at: &str) -> Result<KeyCommand, String> {
        let Some(obj) = value.as_object() else {
            return Err(format!(
                "{at}: expected an object {{\"program\": \"...\", \"args\": [...]}}"
            ));
        };
        let program = match obj.get("program") {
            Some(Value::String(p)) if !p.trim().is_empty() => p.clone(),
            Some(Value::String(_)) | None => return Err(format!("{at}.program: missing or empty")),
            Some(_) => return Err(format!("{at}.program: expected a string")),
        };
        let args = match obj.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => {
                let mut args = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item.as_str() {
                        Some(a) => args.push(a.to_string()),
                        None => return Err(format!("{at}.args[{i}]: expected a string")),
                    }
                }
                args
            }
            Some(_) => return Err(format!("{at}.args: expected an array of strings")),
        };
        let timeout_ms = match obj.get("timeout_ms") {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(0) => None,
                Some(ms) => Some(ms),
                None => {
                    return Err(format!(
                        "{at}.timeout_ms: expected a whole number of milliseconds, found {v}"
                    ))
                }
            },
        };
        Ok(KeyCommand {
            program,
            args,
            timeout_ms,
        })
    }

    /// The time the command may take.
    pub fn timeout(&self) -> Duration {
        self.timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT)
    }

    /// The key: from the in-memory cache, else by running the command
    /// (concurrent callers of the same command share one run).
    pub fn resolve(&self) -> Result<String, String> {
        let slot = {
            let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
            map.entry(self.clone()).or_default().clone()
        };
        let mut value = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(key) = value.as_ref() {
            return Ok(key.clone());
        }
        let key = self.run()?;
        *value = Some(key.clone());
        Ok(key)
    }

    /// Runs the command once (no cache).
    pub fn run(&self) -> Result<String, String> {
        let text = self.run_output()?;
        let program = &self.program;
        let key = text.split('\n').next().unwrap_or_default().trim();
        if key.is_empty() {
            return Err(format!(
                "{program:?} printed no key (its first line of output is empty)"
            ));
        }
        Ok(key.to_string())
    }

    /// Runs the command once; its whole standard output (UTF-8, at most
    /// [`MAX_OUTPUT`] bytes).
    pub(crate) fn run_output(&self) -> Result<String, String> {
        let program = &self.program;
        let timeout = self.timeout();
        let started = Instant::now();
        let mut cmd = Command::new(program);
        cmd.args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {program:?}: {e}"))?;
        let Some(stdout) = child.stdout.take() else {
            kill(&mut child);
            return Err(format!("cannot read the output of {program:?}"));
        };
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let read = stdout
                .take(MAX_OUTPUT as u64 + 1)
                .read_to_end(&mut buf)
                .map(|_| buf);
            let _ = tx.send(read);
        });
        let timed_out = || {
            format!(
                "{program:?} did not finish within {} ms",
                timeout.as_millis()
            )
        };
        let output = match rx.recv_timeout(timeout) {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(e)) => {
                kill(&mut child);
                return Err(format!("cannot read the output of {program:?}: {e}"));
            }
            Err(_) => {
                kill(&mut child);
                return Err(timed_out());
            }
        };
        if output.len() > MAX_OUTPUT {
            kill(&mut child);
            return Err(format!(
                "{program:?} printed more than {} KiB (a key is one short line)",
                MAX_OUTPUT >> 10
            ));
        }
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() < timeout => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok(None) => {
                    kill(&mut child);
                    return Err(timed_out());
                }
                Err(e) => {
                    kill(&mut child);
                    return Err(format!("cannot wait for {program:?}: {e}"));
                }
            }
        };
        if !status.success() {
            return Err(match status.code() {
                Some(code) => format!("{program:?} exited with status {code}"),
                None => format!("{program:?} was killed by a signal"),
            });
        }
        String::from_utf8(output)
            .map_err(|_| format!("{program:?} printed bytes that are not UTF-8"))
    }
}

/// Kills the command and everything it started (its process group), and
/// reaps it.
fn kill(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) on the process group we created for the child;
        // no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}
