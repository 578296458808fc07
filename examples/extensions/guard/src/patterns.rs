//! Recognising dangerous shell commands.
//!
//! Deliberately small and readable rather than complete: a guard is a
//! seat belt, not a sandbox.

/// One dangerous pattern: the label quoted in the refusal and its test.
struct Danger {
    label: &'static str,
    matches: fn(&[Vec<&str>], &str) -> bool,
}

const DANGERS: &[Danger] = &[
    Danger {
        label: "rm -rf",
        matches: |segments, _| segments.iter().any(|s| is_recursive_force_rm(s)),
    },
    Danger {
        label: "mkfs",
        matches: |segments, _| {
            segments
                .iter()
                .any(|s| command_name(s).is_some_and(|c| c == "mkfs" || c.starts_with("mkfs.")))
        },
    },
    Danger {
        label: "dd of=/dev/",
        matches: |segments, _| {
            segments.iter().any(|s| {
                command_name(s) == Some("dd") && s.iter().any(|t| t.starts_with("of=/dev/"))
            })
        },
    },
    Danger {
        label: "fork bomb",
        matches: |_, squashed| squashed.contains(":(){:|:&};:"),
    },
    Danger {
        label: "> /dev/sd",
        matches: |_, squashed| squashed.contains(">/dev/sd") || squashed.contains(">/dev/nvme"),
    },
    Danger {
        label: "chmod -R 777 /",
        matches: |segments, _| segments.iter().any(|s| is_recursive_chmod_777_root(s)),
    },
];

/// The label of the first dangerous pattern `command` matches.
pub fn danger(command: &str) -> Option<&'static str> {
    let segments = segments(command);
    let squashed: String = command.chars().filter(|c| !c.is_whitespace()).collect();
    DANGERS
        .iter()
        .find(|d| (d.matches)(&segments, &squashed))
        .map(|d| d.label)
}

/// Splits a command line into simple commands (at `;`, `&`, `|`, newlines)
/// and each of those into whitespace-separated words.
fn segments(command: &str) -> Vec<Vec<&str>> {
    command
        .split([';', '&', '|', '\n'])
        .map(|segment| segment.split_whitespace().collect::<Vec<_>>())
        .filter(|words| !words.is_empty())
        .collect()
}

/// The program name of a simple command, skipping `sudo` and a path
/// prefix (`/bin/rm` is `rm`).
fn command_name<'a>(words: &[&'a str]) -> Option<&'a str> {
    let mut words = words.iter().copied();
    let mut first = words.next()?;
    if first == "sudo" {
        first = words.find(|w| !w.starts_with('-'))?;
    }
    Some(first.rsplit('/').next().unwrap_or(first))
}

fn is_recursive_force_rm(words: &[&str]) -> bool {
    if command_name(words) != Some("rm") {
        return false;
    }
    let flags = words.iter().filter(|w| w.starts_with('-'));
    let (mut recursive, mut force) = (false, false);
    for flag in flags {
        match *flag {
            "--recursive" => recursive = true,
            "--force" => force = true,
            short if !short.starts_with("--") => {
                recursive |= short.contains(['r', 'R']);
                force |= short.contains('f');
            }
            _ => {}
        }
    }
    recursive && force
}

fn is_recursive_chmod_777_root(words: &[&str]) -> bool {
    command_name(words) == Some("chmod")
        && words.iter().any(|w| {
            *w == "--recursive" || (w.starts_with('-') && !w.starts_with("--") && w.contains('R'))
        })
        && words.contains(&"777")
        && words.contains(&"/")
}

#[cfg(test)]
mod tests {
    use super::danger;

    #[test]
    fn dangerous_commands_are_recognised() {
        let cases = [
            ("rm -rf /tmp/foo", "rm -rf"),
            ("cd / && sudo rm -fr --no-preserve-root /", "rm -rf"),
            ("/bin/rm -r -f build", "rm -rf"),
            ("rm --recursive --force x", "rm -rf"),
            ("mkfs.ext4 /dev/sdb1", "mkfs"),
            ("dd if=/dev/zero of=/dev/sda bs=1M", "dd of=/dev/"),
            (":(){ :|:& };:", "fork bomb"),
            ("echo hi > /dev/sda", "> /dev/sd"),
            ("cat x >/dev/nvme0n1", "> /dev/sd"),
            ("chmod -R 777 /", "chmod -R 777 /"),
        ];
        for (command, label) in cases {
            assert_eq!(danger(command), Some(label), "{command}");
        }
    }

    #[test]
    fn ordinary_commands_pass() {
        for command in [
            "ls -la",
            "rm -r build",
            "rm -f file.txt",
            "echo 'rm -rf is dangerous' | wc -c",
            "dd if=a of=b",
            "chmod -R 755 ./site",
            "chmod 777 /tmp/x",
            "cargo test > /dev/null",
        ] {
            assert_eq!(danger(command), None, "{command}");
        }
    }
}
