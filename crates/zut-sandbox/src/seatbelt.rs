//! macOS: a Seatbelt (`sandbox-exec`) profile generated from a [`Policy`].
//!
//! Compiled and unit-tested everywhere as text; applied only on macOS
//! (`sandbox-exec -p <profile> <program>`), where it is untested by our CI.
//! Seatbelt can deny subpaths of allowed ones, so secrets are plain
//! `deny file-read*` rules after the `allow`.

use crate::policy::{Network, Policy, ReadScope};

/// The SBPL profile for `policy`; `proxy_port` is the allow-list proxy's
/// port for a `Domains` network.
pub fn profile(policy: &Policy, proxy_port: Option<u16>) -> String {
    let mut p = String::from("(version 1)\n(deny default)\n(allow process-fork)\n(allow signal (target same-sandbox))\n(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n");
    match &policy.exec {
        None => p.push_str("(allow process-exec)\n"),
        Some(list) => {
            for prog in crate::exec::resolve_all(list) {
                p.push_str(&format!(
                    "(allow process-exec (literal {}))\n",
                    quote(&prog.display().to_string())
                ));
            }
        }
    }
    match &policy.read {
        ReadScope::Everywhere { except } => {
            p.push_str("(allow file-read*)\n");
            for s in except {
                p.push_str(&format!(
                    "(deny file-read* (subpath {}))\n",
                    quote(&s.display().to_string())
                ));
            }
        }
        ReadScope::Only(paths) => {
            for s in paths.iter().chain(
                [
                    "/usr",
                    "/System",
                    "/Library",
                    "/bin",
                    "/dev",
                    "/private/etc",
                ]
                .iter()
                .map(std::path::Path::new)
                .map(|x| x.to_path_buf())
                .collect::<Vec<_>>()
                .iter(),
            ) {
                p.push_str(&format!(
                    "(allow file-read* (subpath {}))\n",
                    quote(&s.display().to_string())
                ));
            }
        }
    }
    for w in &policy.write {
        p.push_str(&format!(
            "(allow file-write* (subpath {}))\n",
            quote(&w.display().to_string())
        ));
    }
    p.push_str("(allow file-write-data (literal \"/dev/null\"))\n");
    match (&policy.network, proxy_port) {
        (Network::Any, _) => p.push_str("(allow network*)\n"),
        (Network::Domains(_), Some(port)) => {
            p.push_str(&format!(
                "(allow network-outbound (remote ip \"localhost:{port}\"))\n"
            ));
        }
        _ => {}
    }
    p
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Limits;
    use std::path::PathBuf;

    #[test]
    fn jail_profile_denies_secrets_and_allows_cwd_writes() {
        let policy = Policy {
            name: "the jail".into(),
            read: ReadScope::Everywhere {
                except: vec![PathBuf::from("/Users/a/.ssh")],
            },
            write: vec![PathBuf::from("/Users/a/proj")],
            network: Network::Domains(vec!["pypi.org".into()]),
            exec: None,
            env: None,
            env_deny: Vec::new(),
            limits: Limits::default(),
        };
        let text = profile(&policy, Some(4242));
        assert!(text.contains("(deny default)"));
        assert!(text.contains("(deny file-read* (subpath \"/Users/a/.ssh\"))"));
        assert!(text.contains("(allow file-write* (subpath \"/Users/a/proj\"))"));
        assert!(text.contains("localhost:4242"));
        assert!(!text.contains("(allow network*)"));
    }
}
