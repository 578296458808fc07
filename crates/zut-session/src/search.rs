//! Full-text search of one session file (the TUI sessions picker's `/`
//! search): whether any text in the file — messages, tool calls and their
//! output — contains a query, and a short excerpt around the first match.
//!
//! The file is searched as it is on disk, without parsing: the query is
//! escaped as JSON escapes it (quotes, backslashes, control characters;
//! other characters are stored as UTF-8) and compared ignoring ASCII case.
//! A match inside a JSON key (`"role"`) counts too; queries are words people
//! remember from a conversation, so that is rarely what they type.

use std::path::Path;

/// Bytes of context on each side of a match in the excerpt.
const CONTEXT: usize = 36;

/// An excerpt around the first place `query` occurs in the file at `path`
/// (ASCII case ignored), or `None` when it does not occur or is blank.
pub fn find_text(path: &Path, query: &str) -> std::io::Result<Option<String>> {
    let query = query.trim();
    if query.is_empty() {
        return Ok(None);
    }
    let bytes = std::fs::read(path)?;
    Ok(find_in(&bytes, query))
}

/// [`find_text`] on a file's bytes already read: an excerpt around the
/// first place `query` occurs (ASCII case ignored), or `None`.
pub fn find_in(bytes: &[u8], query: &str) -> Option<String> {
    let escaped = serde_json::to_string(query).ok()?;
    let needle = escaped
        .get(1..escaped.len().saturating_sub(1))?
        .to_ascii_lowercase();
    let hay = bytes.to_ascii_lowercase();
    let at = memchr::memmem::find(&hay, needle.as_bytes())?;
    let line_start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = bytes[at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    // Within the JSON string that holds the match: from after its opening
    // quote (an unescaped `"`) to before its closing one.
    let quote = |i: usize| bytes[i] == b'"' && (i == 0 || bytes[i - 1] != b'\\');
    let string_start = (line_start..at)
        .rev()
        .find(|&i| quote(i))
        .map_or(line_start, |i| i + 1);
    let string_end = (at + needle.len()..line_end)
        .find(|&i| quote(i))
        .unwrap_or(line_end);
    let mut start = at.saturating_sub(CONTEXT).max(string_start);
    let mut end = (at + needle.len() + CONTEXT).min(string_end);
    // Whole characters only.
    while start > line_start && (bytes[start] & 0xC0) == 0x80 {
        start -= 1;
    }
    while end < line_end && (bytes[end] & 0xC0) == 0x80 {
        end += 1;
    }
    let raw = String::from_utf8_lossy(&bytes[start..end]);
    let text = raw
        .replace("\\n", " ")
        .replace("\\t", " ")
        .replace("\\\"", "\"")
        .replace("\\\\", "\\");
    let text: String = text.chars().filter(|c| !c.is_control()).collect();
    Some(text.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = concat!(
        r#"{"type":"meta","meta":{"id":"a","cwd":"/p"}}"#,
        "\n",
        r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"Why does the \"Flux capacitor\" need 1.21 gigawatts?\nTell me"}]}}"#,
        "\n",
        r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"Parce que l'élan temporel l'exige."}]}}"#,
        "\n"
    );

    #[test]
    fn finds_words_ignoring_ascii_case_with_an_excerpt() {
        let hit = find_in(FILE.as_bytes(), "flux CAPACITOR").unwrap();
        assert!(hit.contains("\"Flux capacitor\" need"), "{hit}");
        // Quotes are matched as JSON stores them.
        assert!(find_in(FILE.as_bytes(), "\"flux").is_some());
        // Non-ASCII text is stored as UTF-8 and found as is.
        let hit = find_in(FILE.as_bytes(), "élan temporel").unwrap();
        assert!(hit.contains("l'élan temporel"), "{hit}");
        // A newline in the text is a space in the excerpt.
        let hit = find_in(FILE.as_bytes(), "gigawatts").unwrap();
        assert!(hit.contains("gigawatts? Tell me"), "{hit}");
        assert!(find_in(FILE.as_bytes(), "plutonium").is_none());
    }

    #[test]
    fn excerpts_stay_on_character_boundaries_and_in_their_line() {
        let text = format!(
            "{}\n{{\"text\":\"{}needle{}\"}}\n",
            "x".repeat(50),
            "é".repeat(40),
            "ü".repeat(40)
        );
        let hit = find_in(text.as_bytes(), "NEEDLE").unwrap();
        assert!(hit.contains("needle"), "{hit}");
        assert!(!hit.contains('x'), "{hit}");
        assert!(!hit.contains('\u{fffd}'), "{hit}");
    }

    #[test]
    fn odd_bytes_never_panic() {
        // Torn lines, lone quotes and backslashes, invalid UTF-8, matches
        // at either end of the file.
        let inputs: [&[u8]; 7] = [
            b"",
            b"x",
            b"\"x\"",
            b"\\\"x",
            b"x\xff\xfe\"",
            b"\xe9x",
            b"{\"a\":\"\xc3\"}\nx",
        ];
        for input in inputs {
            for q in ["x", "X", "\"", "\\", "é"] {
                let _ = find_in(input, q);
            }
        }
        assert_eq!(find_in(b"abc", "x"), None);
        assert_eq!(find_in(b"x", "x").as_deref(), Some("x"));
    }

    #[test]
    fn blank_queries_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, FILE).unwrap();
        assert_eq!(find_text(&p, "  ").unwrap(), None);
        assert!(find_text(&p, "tell me").unwrap().is_some());
        assert!(find_text(&dir.path().join("gone.jsonl"), "x").is_err());
    }
}
