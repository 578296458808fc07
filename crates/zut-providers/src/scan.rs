//! A minimal JSON cursor for fast paths that recognise one exact event
//! shape (e.g. Anthropic's `content_block_delta`) without going through
//! serde's derived deserializers.
//!
//! It is deliberately strict: every method returns `None` for anything it
//! does not fully understand, and the caller then falls back to
//! `serde_json`, so a fast path can only ever accept input that
//! `serde_json` accepts too, and must produce the same values.

use std::borrow::Cow;

/// A position in a JSON text.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self { text, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Skips JSON whitespace (the four bytes `serde_json` skips).
    pub(crate) fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes().get(self.pos) {
            self.pos += 1;
        }
    }

    /// Skips whitespace, then consumes `byte` if it comes next.
    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        self.ws();
        if self.bytes().get(self.pos) == Some(&byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes `lit` if the text continues with exactly it (no
    /// whitespace skipped).
    pub(crate) fn literal(&mut self, lit: &str) -> bool {
        if self
            .bytes()
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(lit.as_bytes()))
        {
            self.pos += lit.len();
            true
        } else {
            false
        }
    }

    /// Whether only whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos == self.text.len()
    }

    /// A string token (after whitespace): borrowed when it has no escapes,
    /// unescaped by `serde_json` otherwise. `None` when there is no string
    /// here or it is not valid JSON (raw control characters, bad escapes).
    pub(crate) fn string(&mut self) -> Option<Cow<'a, str>> {
        self.ws();
        let bytes = self.bytes();
        if bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos;
        let mut i = start + 1;
        let mut escaped = false;
        loop {
            i += plain_prefix(bytes.get(i..)?);
            match *bytes.get(i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                _ => return None, // a raw control character
            }
        }
        self.pos = i + 1;
        if escaped {
            let token = self.text.get(start..=i)?;
            serde_json::from_str::<String>(token).ok().map(Cow::Owned)
        } else {
            // Both ends are ASCII quotes: char boundaries.
            self.text.get(start + 1..i).map(Cow::Borrowed)
        }
    }

    /// An object key without escapes (what every key of a fast-path shape
    /// is), followed by its `:`.
    pub(crate) fn key(&mut self) -> Option<&'a str> {
        match self.string()? {
            Cow::Borrowed(key) if self.eat(b':') => Some(key),
            _ => None,
        }
    }

    /// A non-negative integer that fits `usize`, written as JSON writes it
    /// (no sign, no leading zeros, no fraction or exponent).
    pub(crate) fn usize(&mut self) -> Option<usize> {
        self.ws();
        let bytes = self.bytes();
        let start = self.pos;
        let mut i = start;
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = self.text.get(start..i)?;
        if digits.is_empty() || digits.len() > 19 || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        if let Some(b'.' | b'e' | b'E') = bytes.get(i) {
            return None;
        }
        self.pos = i;
        digits.parse::<u64>().ok()?.try_into().ok()
    }
}

/// The length of the prefix of `hay` without `"`, `\\` or control
/// characters (eight bytes at a time).
fn plain_prefix(hay: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const QUOTE: u64 = ONES * b'"' as u64;
    const BACKSLASH: u64 = ONES * b'\\' as u64;
    const SPACE: u64 = ONES * 0x20;
    let mut words = hay.chunks_exact(8);
    let mut offset = 0;
    for word in &mut words {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let w = u64::from_le_bytes(bytes);
        let (q, b) = (w ^ QUOTE, w ^ BACKSLASH);
        // Exact for the lowest matching byte (a borrow only propagates
        // upwards from a byte that matched), which is all we need.
        let hits =
            (q.wrapping_sub(ONES) & !q | b.wrapping_sub(ONES) & !b | w.wrapping_sub(SPACE) & !w)
                & HIGH;
        if hits != 0 {
            return offset + (hits.trailing_zeros() / 8) as usize;
        }
        offset += 8;
    }
    offset
        + words
            .remainder()
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(words.remainder().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_borrow_or_unescape_and_reject_invalid_json() {
        let mut c = Cursor::new(r#"  "plain" "tab\tq\"\u00e9" "#);
        assert!(matches!(c.string(), Some(Cow::Borrowed("plain"))));
        assert_eq!(c.string().as_deref(), Some("tab\tq\"\u{e9}"));
        assert!(c.at_end());
        for bad in ["\"a\u{1}b\"", r#""\x""#, r#""open"#, r#""\u12""#, "x"] {
            assert_eq!(Cursor::new(bad).string(), None, "{bad}");
        }
    }

    #[test]
    fn plain_prefix_finds_the_first_special_byte() {
        let base: Vec<u8> = "abcdéfgh→ijklmnopqrstuvwxyz0123".bytes().collect();
        assert_eq!(plain_prefix(&base), base.len());
        for at in 0..base.len() {
            for special in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                let mut hay = base.clone();
                hay[at] = special;
                if at + 1 < hay.len() {
                    hay[at + 1] = b'"';
                }
                assert_eq!(plain_prefix(&hay), at, "{special:#x} at {at}");
            }
        }
    }

    #[test]
    fn integers_as_json_writes_them() {
        assert_eq!(Cursor::new(" 0").usize(), Some(0));
        assert_eq!(Cursor::new("42,").usize(), Some(42));
        for bad in ["-1", "01", "1.0", "1e2", "", "99999999999999999999"] {
            assert_eq!(Cursor::new(bad).usize(), None, "{bad}");
        }
    }
}
