//! The prompt text: positional arguments, plus piped stdin.

use std::io::Read;

/// Most piped stdin accepted as prompt text. Far more than any model's
/// context window holds; beyond it the run fails at once instead of
/// reading without bound and sending a request no provider accepts.
pub const MAX_STDIN_BYTES: u64 = 16 * 1024 * 1024;

/// Joins the positional words; when stdin is not a terminal its content
/// comes first, then a newline, then the words (the Go original's order),
/// or is the whole prompt when there are no words. Stdin over
/// [`MAX_STDIN_BYTES`] is an error, and so is stdin that is not text (a NUL
/// byte or invalid UTF-8): the error names the byte offset.
pub fn prompt_text(words: &[String]) -> anyhow::Result<String> {
    use std::io::IsTerminal;
    let mut text = words.join(" ");
    if !std::io::stdin().is_terminal() {
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
        let stdin = piped_text(&buf)?;
        let stdin = stdin.trim_end();
        if !stdin.is_empty() {
            if text.trim().is_empty() {
                text = stdin.to_string();
            } else {
                text = format!("{stdin}\n{text}");
            }
        }
    }
    Ok(text)
}

/// Piped bytes as text: refused when they hold a NUL byte or are not
/// UTF-8 (a binary file piped by mistake would only waste a request).
fn piped_text(buf: &[u8]) -> anyhow::Result<&str> {
    if let Some(at) = buf.iter().position(|b| *b == 0) {
        anyhow::bail!(
            "piped stdin is binary (a NUL byte at offset {at}); pipe text, or name the file \
             in the prompt so the model can read it with its tools"
        );
    }
    std::str::from_utf8(buf).map_err(|e| {
        anyhow::anyhow!(
            "piped stdin is not UTF-8 text (invalid byte at offset {}); convert it first, \
             e.g. with iconv",
            e.valid_up_to()
        )
    })
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
    fn piped_bytes_must_be_text() {
        assert_eq!(piped_text(b"hello\n").unwrap(), "hello\n");
        let e = piped_text(b"ab\0cd").unwrap_err().to_string();
        assert!(e.contains("binary") && e.contains("offset 2"), "{e}");
        let e = piped_text(b"abc\xff").unwrap_err().to_string();
        assert!(e.contains("not UTF-8") && e.contains("offset 3"), "{e}");
    }

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
