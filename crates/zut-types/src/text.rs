//! Small text helpers front ends share when they show model output, and
//! the word for a JSON value's kind that configuration and manifest errors
//! use.

use serde_json::Value;

/// `s` cut to at most `max` characters, `…` appended when cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((idx, _)) => format!("{}…", &s[..idx]),
    }
}

/// A JSON value's kind as error messages name it (`a string`, `an object`,
/// `null`, ...).
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::{clip, json_kind};

    #[test]
    fn clips_on_characters_not_bytes() {
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("", 0), "");
        assert_eq!(clip("ab", 0), "…");
    }

    #[test]
    fn json_kinds_read_as_words() {
        let words: Vec<&str> = [
            serde_json::json!(null),
            serde_json::json!(true),
            serde_json::json!(1.5),
            serde_json::json!("x"),
            serde_json::json!([]),
            serde_json::json!({}),
        ]
        .iter()
        .map(json_kind)
        .collect();
        assert_eq!(
            words,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }
}
