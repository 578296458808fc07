//! Turning a confined program's bare refusals (`Permission denied`,
//! `Operation not permitted`, `Network is unreachable`) into sentences
//! that name what was refused and the rule, appended after the program's
//! own output (which is kept).

use std::path::{Path, PathBuf};

use crate::policy::{Network, Policy};

const FS_MARKERS: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "EACCES",
    "EPERM",
    "Invalid cross-device link",
];

const NET_MARKERS: &[&str] = &[
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "getaddrinfo failed",
    "ENETUNREACH",
];

/// The explanation for `output` of a program confined by `policy` that ran
/// in `cwd`, or `None` when nothing in it looks like a refusal. At most
/// five lines, one per refused path, then one for the network and one for
/// the system-call filter.
pub fn explain(output: &str, policy: &Policy, cwd: &Path) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut syscall = false;
    let mut network = false;
    for line in output.lines() {
        if NET_MARKERS.iter().any(|m| line.contains(m)) {
            network = true;
            continue;
        }
        if !FS_MARKERS.iter().any(|m| line.contains(m)) {
            continue;
        }
        let mut found = false;
        for candidate in path_candidates(line) {
            let path = absolutize(&candidate, cwd);
            let verdict = policy.check_read(&path).and_then(|()| {
                if looks_like_read(line) {
                    Ok(())
                } else {
                    policy.check_write(&path)
                }
            });
            if let Err(d) = verdict {
                found = true;
                let text = d.to_string();
                if !lines.contains(&text) {
                    lines.push(text);
                }
                break;
            }
        }
        if !found && line.contains("Operation not permitted") {
            syscall = true;
        }
        if !found && line.contains("Permission denied") && !matches!(policy.network, Network::Any) {
            let l = line.to_ascii_lowercase();
            if l.contains("connect") || l.contains("port") || l.contains("socket") {
                network = true;
            }
        }
    }
    lines.truncate(5);
    if network && !matches!(policy.network, Network::Any) {
        lines.push(format!(
            "network access denied by {} (network: {}{})",
            policy.name,
            policy.network.describe(),
            if matches!(policy.network, Network::Domains(_)) {
                ", through the proxy in HTTP_PROXY/HTTPS_PROXY"
            } else {
                ""
            }
        ));
    }
    if syscall {
        lines.push(format!(
            "an operation may have been refused by {}'s system-call filter (no ptrace, \
             process_vm_readv/writev, mount, namespaces, kernel keyring, raising limits)",
            policy.name
        ));
    }
    if lines.is_empty() {
        return None;
    }
    let writable = policy.writable_rule();
    let mut out = String::from("[sandbox] ");
    out.push_str(&lines.join("\n[sandbox] "));
    if !out.contains(&writable) {
        out.push_str(&format!("\n[sandbox] {} — {writable}", policy.name));
    }
    Some(out)
}

/// A read-only failure: `cat`, `open for reading`, `cannot open … for reading`.
fn looks_like_read(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.starts_with("cat:")
        || l.contains("for reading")
        || l.contains("cannot open directory")
        || l.starts_with("ls:")
        || l.starts_with("head:")
        || l.starts_with("tail:")
        || l.starts_with("less:")
        || l.starts_with("grep:")
}

/// Paths mentioned in `line`, most likely first: the one right before the
/// refusal (`prog: PATH: Permission denied`), the one right after it
/// (`Permission denied: 'PATH'`), quoted ones, then path-looking words
/// other than the program name that starts the line.
fn path_candidates(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |s: &str, out: &mut Vec<String>| {
        let s = s
            .trim()
            .trim_matches(|c: char| matches!(c, '\'' | '"' | '`' | '‘' | '’' | ',' | '.'));
        if looks_like_path(s) && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    };
    if let Some((pos, marker)) = FS_MARKERS
        .iter()
        .filter_map(|m| line.find(m).map(|p| (p, *m)))
        .min_by_key(|(p, _)| *p)
    {
        let before = line[..pos].trim_end().trim_end_matches(':').trim_end();
        let last = before.rsplit(": ").next().unwrap_or(before);
        for q in quoted(last) {
            push(&q, &mut out);
        }
        push(last, &mut out);
        let after = line[pos + marker.len()..].trim_start_matches([':', ' ']);
        for q in quoted(after) {
            push(&q, &mut out);
        }
        push(
            after.split_whitespace().next().unwrap_or_default(),
            &mut out,
        );
    }
    for q in quoted(line) {
        push(&q, &mut out);
    }
    let program = line.split(':').next().unwrap_or_default().trim();
    for word in line
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',' || c == '(' || c == ')')
        .filter(|w| *w != program)
    {
        push(word, &mut out);
    }
    out
}

/// Substrings between matching quotes.
fn quoted(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ['\'', '"', '`'] {
        let parts: Vec<&str> = s.split(q).collect();
        for (i, part) in parts.iter().enumerate() {
            if i % 2 == 1 {
                out.push(part.to_string());
            }
        }
    }
    if let (Some(a), Some(b)) = (s.find('‘'), s.find('’')) {
        if a < b {
            out.push(s[a + '‘'.len_utf8()..b].to_string());
        }
    }
    out
}

fn looks_like_path(s: &str) -> bool {
    !s.is_empty()
        && !s.contains("://")
        && (s.starts_with('/')
            || s.starts_with("~/")
            || s.starts_with("./")
            || s.starts_with("../")
            || s.contains('/'))
}

fn absolutize(p: &str, cwd: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/") {
        if let Some(home) = std::env::var_os("HOME") {
            return PathBuf::from(home).join(rest);
        }
    }
    let path = Path::new(p);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Limits, ReadScope};
    use std::path::PathBuf;

    fn policy() -> Policy {
        Policy {
            name: "the jail".into(),
            read: ReadScope::Everywhere {
                except: vec![PathBuf::from("/nonexistent-home/.ssh")],
            },
            write: vec![PathBuf::from("/tmp")],
            network: Network::None,
            exec: None,
            env: None,
            env_deny: Vec::new(),
            limits: Limits::default(),
        }
    }

    #[test]
    fn the_refused_path_is_the_one_next_to_the_error() {
        let p = policy();
        let cwd = Path::new("/tmp");
        let cases = [
            (
                "/usr/bin/bash: line 1: /etc/hosts: Permission denied",
                "write to /etc/hosts",
            ),
            (
                "touch: cannot touch '/etc/x': Permission denied",
                "write to /etc/x",
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/etc/y'",
                "write to /etc/y",
            ),
            (
                "cat: /nonexistent-home/.ssh/id: Permission denied",
                "read of /nonexistent-home/.ssh/id",
            ),
            (
                "cp: cannot create regular file '/usr/z': Permission denied",
                "write to /usr/z",
            ),
        ];
        for (line, want) in cases {
            let text = explain(line, &p, cwd).unwrap_or_default();
            assert!(text.contains(want), "{line} -> {text}");
            assert!(text.contains("denied by the jail ("), "{text}");
        }
        assert_eq!(explain("all good", &p, cwd), None);
        let net = explain("curl: (6) Could not resolve host: example.com", &p, cwd).unwrap();
        assert!(
            net.contains("network access denied by the jail (network: none)"),
            "{net}"
        );
        let sys = explain("unshare: unshare failed: Operation not permitted", &p, cwd).unwrap();
        assert!(sys.contains("system-call filter"), "{sys}");
    }
}
