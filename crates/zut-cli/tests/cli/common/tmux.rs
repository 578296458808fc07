//! tmux as a terminal for end-to-end tests of the interactive mode: one
//! tmux server per test (its own socket) running the real `zut` binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use zut_llm_server::LlmServer;
use zut_test_support::TestEnv;

use super::wait_until;
pub static SESSIONS: AtomicUsize = AtomicUsize::new(0);

pub fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is required under CI"
        );
        eprintln!("skipping: tmux is not installed");
    }
    ok
}

/// One tmux server (its own socket) running `zut` in a window.
pub struct Tmux {
    pub socket: String,
    pub dir: PathBuf,
}

impl Tmux {
    /// Starts `zut <args>` against `server` in a `w`x`h` terminal. The
    /// wrapper prints `EXIT:<status>` when zut ends and its pid first.
    pub fn start(env: &TestEnv, server: &LlmServer, args: &[&str], w: u16, h: u16) -> Self {
        Self::start_with(env, server, args, &[], w, h)
    }

    /// [`Tmux::start`] with extra environment variables for zut.
    pub fn start_with(
        env: &TestEnv,
        server: &LlmServer,
        args: &[&str],
        vars: &[(&str, &str)],
        w: u16,
        h: u16,
    ) -> Self {
        let n = SESSIONS.fetch_add(1, Ordering::SeqCst);
        let socket = format!("zut-tui-{}-{n}", std::process::id());
        let dir = env.home.join(format!("tmux-{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        // This crate's own binary, built by cargo for its tests.
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_zut"));
        let mut cmd = format!(
            "cd {} && exec sh -c 'echo $$ > \"$0\"; exec \"$@\"' {} env ZUT_HOME={} TERM=xterm-256color{} {} --provider anthropic --base-url {} --api-key sk-test --model test-model",
            sh(&env.project),
            sh(&dir.join("pid")),
            sh(&env.home),
            vars.iter()
                .map(|(k, v)| format!(" {k}={}", sh(Path::new(v))))
                .collect::<String>(),
            sh(&bin),
            server.url()
        );
        for a in args {
            cmd.push(' ');
            cmd.push_str(&sh(Path::new(a)));
        }
        let script = dir.join("run.sh");
        std::fs::write(
            &script,
            format!("#!/bin/sh\n( {cmd} ); echo \"EXIT:$?\"; sleep 60\n"),
        )
        .unwrap();
        let ok = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
            ])
            .args(["-x", &w.to_string(), "-y", &h.to_string()])
            .arg(format!("sh {}", sh(&script)))
            // The tmux server outlives this command: it must not hold the
            // test's output pipes.
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux new-session");
        Self { socket, dir }
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible screen.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// Screen and scrollback.
    pub fn all(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-S", "-2000", "-t", "t"])
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Types literal text.
    pub fn typ(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Waits until the scrollback+screen contains `needle`.
    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.all();
            if s.contains(needle) {
                return self.settled(s, needle);
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A capture can catch a frame half painted: capture again until two
    /// in a row agree (a spinner may keep one from settling: up to 1 s),
    /// keeping the last capture that still shows `needle`.
    fn settled(&self, mut last: String, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(30));
            let now = self.all();
            if now == last || !now.contains(needle) {
                break;
            }
            last = now;
        }
        last
    }

    pub fn pid(&self) -> u32 {
        let p = self.dir.join("pid");
        assert!(wait_until(5, || p.exists()));
        std::fs::read_to_string(p).unwrap().trim().parse().unwrap()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

pub fn sh(p: &Path) -> String {
    format!("'{}'", p.to_string_lossy().replace('\'', "'\\''"))
}

/// Waits for the first frame (the status bar).
pub fn started(t: &Tmux) {
    t.wait_for("(anthropic) test-model", 10);
}
