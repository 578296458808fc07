//! Small text helpers front ends share when they show model output.

/// `s` cut to at most `max` characters, `…` appended when cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((idx, _)) => format!("{}…", &s[..idx]),
    }
}

#[cfg(test)]
mod tests {
    use super::clip;

    #[test]
    fn clips_on_characters_not_bytes() {
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("", 0), "");
        assert_eq!(clip("ab", 0), "…");
    }
}
