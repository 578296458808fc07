//! `zut auth list|login|logout`: API keys in `$ZUT_HOME/auth.json` for
//! scripts: arguments, reading the key, printing. The work (rows, checking
//! and saving, removing) is `zut_models::keys`, which the TUI's `/login`
//! and `/logout` use too. Keys are never printed. Details: docs/config.md.

use std::io::{BufRead as _, IsTerminal as _};
use std::path::Path;

use zut_models::keys::{login, logout, rows};

const USAGE: &str = "usage: zut auth list [--json]
       zut auth login <provider> [--base-url URL] [--no-probe]   (reads the key from standard input)
       zut auth login openrouter --oauth                        (authorize in the browser, OpenRouter's PKCE flow)
       zut auth logout <provider>";

/// Runs `zut auth …`; returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    let home = crate::config_cmd::home_root();
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] | ["-h" | "--help" | "help", ..] => {
            crate::stdio::line(USAGE);
            if args.is_empty() {
                1
            } else {
                0
            }
        }
        ["list"] => list(&home, false),
        ["list", "--json"] => list(&home, true),
        ["logout", provider] => crate::stdio::report(logout(&home, provider)),
        ["login", provider, rest @ ..] => {
            let mut base_url = None;
            let mut probe = true;
            let mut oauth = false;
            let mut it = rest.iter();
            while let Some(a) = it.next() {
                match *a {
                    "--no-probe" => probe = false,
                    "--oauth" => oauth = true,
                    "--base-url" => match it.next() {
                        Some(u) => base_url = Some(u.to_string()),
                        None => {
                            crate::errln!("zut: --base-url needs a value\n{USAGE}");
                            return 1;
                        }
                    },
                    other => {
                        crate::errln!("zut: unknown argument {other:?}\n{USAGE}");
                        return 1;
                    }
                }
            }
            if oauth {
                let show = |url: &str, callback: &str| {
                    crate::errln!(
                        "Open this URL in a browser to let zut use your OpenRouter account:\n{url}"
                    );
                    crate::errln!("waiting for OpenRouter to send you back to {callback} …");
                };
                return crate::stdio::report(zut_models::oauth::login_openrouter(
                    &home, provider, &show,
                ));
            }
            let key = match read_key(provider) {
                Ok(k) => k,
                Err(e) => {
                    crate::errln!("zut: {e}");
                    return 1;
                }
            };
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    crate::errln!("zut: cannot start the runtime: {e}");
                    return 1;
                }
            };
            crate::stdio::report(rt.block_on(login(
                &home,
                provider,
                &key,
                base_url.as_deref(),
                probe,
            )))
        }
        _ => {
            crate::errln!("zut: unknown auth command\n{USAGE}");
            1
        }
    }
}

/// The key on standard input (its first line); on a terminal the typing
/// is not echoed.
fn read_key(provider: &str) -> Result<String, String> {
    let stdin = std::io::stdin();
    let tty = stdin.is_terminal();
    if tty {
        crate::errln!("API key for {provider} (input hidden, then Enter):");
    }
    let _echo = tty.then(NoEcho::new).flatten();
    let mut line = String::new();
    stdin
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the key from standard input: {e}"))?;
    let key = line.trim().to_string();
    if key.is_empty() {
        return Err("no key on standard input: nothing saved".into());
    }
    Ok(key)
}

/// Terminal echo turned off until dropped.
struct NoEcho {
    saved: libc::termios,
}

impl NoEcho {
    fn new() -> Option<NoEcho> {
        // SAFETY: tcgetattr/tcsetattr on stdin with a termios we own.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 {
                return None;
            }
            let saved = t;
            t.c_lflag &= !libc::ECHO;
            if libc::tcsetattr(0, libc::TCSANOW, &t) != 0 {
                return None;
            }
            Some(NoEcho { saved })
        }
    }
}

impl Drop for NoEcho {
    fn drop(&mut self) {
        // SAFETY: restores the attributes read in `new`.
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.saved);
        }
        eprintln!();
    }
}

fn list(home: &Path, json: bool) -> i32 {
    let rows = match rows(home) {
        Ok(r) => r,
        Err(e) => {
            crate::errln!("zut: {e}");
            return 1;
        }
    };
    if json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| serde_json::json!({"provider": r.provider, "source": r.source, "ready": r.ready}))
            .collect();
        crate::stdio::line(&serde_json::Value::Array(items).to_string());
        return 0;
    }
    let w = rows.iter().map(|r| r.provider.len()).fold(8, usize::max);
    let mut text = format!("{:<w$}  key\n", "provider");
    for r in &rows {
        text.push_str(&format!("{:<w$}  {}\n", r.provider, r.source));
    }
    crate::stdio::text(&text);
    0
}
