//! Joining and bounding `turn_start` contexts (protocol §11.2).

use zut_protocol::limits::{CONTEXT_TRUNCATED_MARKER, MAX_CONTEXT_BYTES};

/// Joins `(extension, context)` pairs in consultation order: each
/// non-blank context trimmed and headed by `[<extension>]`, separated by a
/// blank line, bounded to 16 KiB including the truncation marker.
pub fn join_contexts(parts: &[(String, String)]) -> Option<String> {
    let joined = parts
        .iter()
        .filter(|(_, c)| !c.trim().is_empty())
        .map(|(ext, c)| format!("[{ext}]\n{}", c.trim()))
        .collect::<Vec<_>>()
        .join("\n\n");
    if joined.is_empty() {
        return None;
    }
    Some(bound(joined))
}

/// Cuts `text` at a UTF-8 boundary so that it plus the marker fits in
/// 16 KiB.
pub fn bound(text: String) -> String {
    if text.len() <= MAX_CONTEXT_BYTES {
        return text;
    }
    let mut cut = MAX_CONTEXT_BYTES - CONTEXT_TRUNCATED_MARKER.len();
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut out = text[..cut].trim_end().to_string();
    out.push_str(CONTEXT_TRUNCATED_MARKER);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_in_order_with_headers() {
        let parts = vec![
            ("A".to_string(), " a ".to_string()),
            ("X".into(), "  ".into()),
            ("B".into(), "b".into()),
        ];
        assert_eq!(join_contexts(&parts).unwrap(), "[A]\na\n\n[B]\nb");
        assert_eq!(join_contexts(&[]), None);
    }

    #[test]
    fn bounds_multibyte_text() {
        let long = "界".repeat(16_384);
        let out = join_contexts(&[("A".into(), long)]).unwrap();
        assert!(out.len() <= MAX_CONTEXT_BYTES);
        assert!(out.ends_with(CONTEXT_TRUNCATED_MARKER));
    }
}
