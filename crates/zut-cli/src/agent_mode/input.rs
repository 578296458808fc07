//! The prompt text: positional arguments, plus piped stdin.

use std::io::Read;

/// Most piped stdin accepted as prompt text. Far more than any model's
/// context window holds; beyond it the run fails at once instead of
/// reading without bound and sending a request no provider accepts.
pub const MAX_STDIN_BYTES: u64 = 16 * 1024 * 1024;

/// Joins the positional words; when stdin is not a terminal its content is
/// appended after a blank line (or is the whole prompt when there are no
/// words). Stdin over [`MAX_STDIN_BYTES`] is an error; invalid UTF-8 is
/// replaced with U+FFFD.
pub fn prompt_text(words: &[String]) -> anyhow::Result<String> {
    let mut text = words.join(" ");
    // SAFETY: isatty only inspects the descriptor.
    let piped = unsafe { libc::isatty(0) } == 0;
    if piped {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_STDIN_BYTES + 1)
            .read_to_end(&mut buf)
            .map_err(|e| anyhow::anyhow!("reading stdin: {e}"))?;
        if buf.len() as u64 > MAX_STDIN_BYTES {
            anyhow::bail!(
                "piped stdin is larger than {} MiB; pass a smaller excerpt, or name the file \
                 in the prompt so the model can read it with its tools",
                MAX_STDIN_BYTES / (1024 * 1024)
            );
        }
        let stdin = String::from_utf8_lossy(&buf);
        let stdin = stdin.trim_end();
        if !stdin.is_empty() {
            if text.trim().is_empty() {
                text = stdin.to_string();
            } else {
                text = format!("{text}\n\n{stdin}");
            }
        }
    }
    Ok(text)
}

/// A leading `/name args` that looks like a slash command (not a path such
/// as `/usr/bin/env`): the lower-cased name and the trimmed arguments.
pub fn slash_command(text: &str) -> Option<(String, String)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let end = rest.find([' ', '\t', '\n']).unwrap_or(rest.len());
    let head = &rest[..end];
    if head.is_empty() || head.contains('/') {
        return None;
    }
    Some((head.to_lowercase(), rest[end..].trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slash_detection() {
        assert_eq!(slash_command("/hello"), Some(("hello".into(), "".into())));
        assert_eq!(
            slash_command(" /Todo add  milk \n"),
            Some(("todo".into(), "add  milk".into()))
        );
        assert_eq!(slash_command("/usr/bin/env is what"), None);
        assert_eq!(slash_command("hello"), None);
        assert_eq!(slash_command("/"), None);
    }
}
