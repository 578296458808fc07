//! The fast path for the chunk that streams a Gemini reply: one candidate
//! with one plain text part, `usageMetadata` (counts and their per-modality
//! details), `modelVersion`, `responseId`, `createTime` — keys in any
//! order. Decoded with [`Cursor`] into exactly what `serde_json` would
//! give; `None` for anything else (thoughts, signatures, calls, safety
//! ratings, another key, a repeated key, a `null`, invalid JSON...), which
//! then goes through `serde_json` as usual.

use std::borrow::Cow;

use crate::scan::Cursor;

/// The usage counts of a chunk (`usageMetadata`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) prompt: u64,
    pub(crate) candidates: u64,
    pub(crate) cached: u64,
    pub(crate) thoughts: Option<u64>,
    pub(crate) tool_use_prompt: u64,
}

/// A decoded text chunk.
#[derive(Debug, PartialEq)]
pub(crate) struct TextChunk<'a> {
    pub(crate) text: Cow<'a, str>,
    pub(crate) finish: Option<Cow<'a, str>>,
    pub(crate) usage: Option<Counts>,
}

/// Iterate the members of an object whose `{` was just eaten.
fn members<'a>(
    c: &mut Cursor<'a>,
    mut member: impl FnMut(&mut Cursor<'a>, &'a str) -> Option<()>,
) -> Option<()> {
    if c.eat(b'}') {
        return Some(());
    }
    loop {
        let key = c.key()?;
        member(c, key)?;
        if c.eat(b'}') {
            return Some(());
        }
        if !c.eat(b',') {
            return None;
        }
    }
}

/// Set `slot` once (a repeated key falls back to serde, which refuses it).
fn once<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value?);
    Some(())
}

fn u64_of(c: &mut Cursor<'_>) -> Option<u64> {
    c.usize().and_then(|n| u64::try_from(n).ok())
}

/// `[{"modality": "TEXT", "tokenCount": 8}, ...]`.
fn details(c: &mut Cursor<'_>) -> Option<()> {
    if !c.eat(b'[') {
        return None;
    }
    if c.eat(b']') {
        return Some(());
    }
    loop {
        if !c.eat(b'{') {
            return None;
        }
        let (mut modality, mut count) = (None, None);
        members(c, |c, key| match key {
            "modality" => once(&mut modality, c.string()),
            "tokenCount" => once(&mut count, c.usize()),
            _ => None,
        })?;
        if c.eat(b']') {
            return Some(());
        }
        if !c.eat(b',') {
            return None;
        }
    }
}

fn usage(c: &mut Cursor<'_>) -> Option<Counts> {
    if !c.eat(b'{') {
        return None;
    }
    let (mut prompt, mut candidates, mut cached, mut thoughts, mut tool, mut total) =
        (None, None, None, None, None, None);
    let mut detail_keys: Vec<&str> = Vec::new();
    members(c, |c, key| match key {
        "promptTokenCount" => once(&mut prompt, u64_of(c)),
        "candidatesTokenCount" => once(&mut candidates, u64_of(c)),
        "cachedContentTokenCount" => once(&mut cached, u64_of(c)),
        "thoughtsTokenCount" => once(&mut thoughts, u64_of(c)),
        "toolUsePromptTokenCount" => once(&mut tool, u64_of(c)),
        "totalTokenCount" => once(&mut total, u64_of(c)),
        "promptTokensDetails"
        | "candidatesTokensDetails"
        | "cacheTokensDetails"
        | "toolUsePromptTokensDetails" => {
            if detail_keys.contains(&key) {
                return None;
            }
            detail_keys.push(key);
            details(c)
        }
        _ => None,
    })?;
    Some(Counts {
        prompt: prompt.unwrap_or(0),
        candidates: candidates.unwrap_or(0),
        cached: cached.unwrap_or(0),
        thoughts,
        tool_use_prompt: tool.unwrap_or(0),
    })
}

/// `{"parts": [{"text": ..}], "role": ..}` → the text.
fn content<'a>(c: &mut Cursor<'a>) -> Option<Cow<'a, str>> {
    if !c.eat(b'{') {
        return None;
    }
    let (mut text, mut role) = (None, None);
    members(c, |c, key| match key {
        "parts" => {
            if !c.eat(b'[') || !c.eat(b'{') {
                return None;
            }
            let mut t = None;
            members(c, |c, key| match key {
                "text" => once(&mut t, c.string()),
                _ => None,
            })?;
            if !c.eat(b']') {
                return None;
            }
            once(&mut text, t)
        }
        "role" => once(&mut role, c.string()),
        _ => None,
    })?;
    text
}

/// A text chunk, or `None` (use `serde_json`).
pub(crate) fn text_chunk(data: &str) -> Option<TextChunk<'_>> {
    let mut c = Cursor::new(data);
    if !c.eat(b'{') {
        return None;
    }
    let (mut text, mut finish, mut usage_seen) = (None, None, None);
    let mut seen_candidates = false;
    let mut usage_counts = None;
    let (mut model, mut response, mut created) = (None, None, None);
    members(&mut c, |c, key| match key {
        "candidates" => {
            if seen_candidates || !c.eat(b'[') || !c.eat(b'{') {
                return None;
            }
            seen_candidates = true;
            let mut index = None;
            members(c, |c, key| match key {
                "content" => once(&mut text, content(c)),
                "index" => once(&mut index, c.usize()),
                "finishReason" => once(&mut finish, c.string()),
                _ => None,
            })?;
            c.eat(b']').then_some(())
        }
        "usageMetadata" => {
            once(&mut usage_seen, Some(()))?;
            usage_counts = Some(usage(c)?);
            Some(())
        }
        "modelVersion" => once(&mut model, c.string()),
        "responseId" => once(&mut response, c.string()),
        "createTime" => once(&mut created, c.string()),
        _ => None,
    })?;
    if !c.at_end() {
        return None;
    }
    Some(TextChunk {
        text: text?,
        finish,
        usage: usage_counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_text_chunks_only() {
        let chunk = r#"{"candidates": [{"content": {"parts": [{"text": "h\u00e9"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 9,"candidatesTokenCount": 2,"totalTokenCount": 11,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 9}],"thoughtsTokenCount": 4},"modelVersion": "gemini-2.5-flash","responseId": "x"}"#;
        let got = text_chunk(chunk).unwrap();
        assert_eq!(got.text, "h\u{e9}");
        assert_eq!(got.finish, None);
        assert_eq!(
            got.usage,
            Some(Counts {
                prompt: 9,
                candidates: 2,
                cached: 0,
                thoughts: Some(4),
                tool_use_prompt: 0
            })
        );
        let last = r#"{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}]}"#;
        assert_eq!(text_chunk(last).unwrap().finish.as_deref(), Some("STOP"));
        for other in [
            r#"{"candidates":[{"content":{"parts":[{"text":"a","thought":true}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]},"safetyRatings":[]}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"candidates":[]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}},{"index":1}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":null}]}}]}"#,
            r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
            r#"{"error":{"code":1}}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"a"}]}}]} x"#,
        ] {
            assert_eq!(text_chunk(other), None, "{other}");
        }
    }
}
