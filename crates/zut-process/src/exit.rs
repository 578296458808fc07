//! Describing how a process ended.

/// How a process ended, as Go prints it: `exit status N` or
/// `signal: <name>`.
pub fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("signal: {}", signal_name(sig));
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "exited".to_string(),
    }
}

/// Go's name of a signal (`killed`, `terminated`, `signal 42`).
#[cfg(unix)]
pub fn signal_name(sig: i32) -> String {
    match sig {
        libc::SIGHUP => "hangup".into(),
        libc::SIGINT => "interrupt".into(),
        libc::SIGQUIT => "quit".into(),
        libc::SIGILL => "illegal instruction".into(),
        libc::SIGABRT => "aborted".into(),
        libc::SIGBUS => "bus error".into(),
        libc::SIGFPE => "floating point exception".into(),
        libc::SIGKILL => "killed".into(),
        libc::SIGSEGV => "segmentation fault".into(),
        libc::SIGPIPE => "broken pipe".into(),
        libc::SIGTERM => "terminated".into(),
        other => format!("signal {other}"),
    }
}

/// Go's name of a signal (no signals off Unix).
#[cfg(not(unix))]
pub fn signal_name(sig: i32) -> String {
    format!("signal {sig}")
}
