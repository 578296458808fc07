//! A JSON string borrowed from the input when it needs no unescaping.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::de::{Deserialize, Deserializer, Visitor};

/// A JSON string field: borrowed from the input when it has no escapes,
/// owned otherwise. (`Option<Cow<str>>` alone would always allocate.)
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Text<'a>(pub(crate) Cow<'a, str>);

impl Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;

        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Cow<'de, str>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }

            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_string()))
            }

            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }

        deserializer.deserialize_str(TextVisitor).map(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Holder<'a> {
        #[serde(borrow)]
        a: Option<Text<'a>>,
        #[serde(borrow, default)]
        b: Option<Text<'a>>,
    }

    #[test]
    fn borrows_plain_strings_and_unescapes_others() {
        let json = r#"{"a":"plain","b":"tab\there"}"#;
        let h: Holder<'_> = serde_json::from_str(json).unwrap();
        assert!(matches!(
            h.a.as_ref().map(|t| &t.0),
            Some(Cow::Borrowed("plain"))
        ));
        assert_eq!(h.b.as_deref(), Some("tab\there"));
        let h: Holder<'_> = serde_json::from_str(r#"{"a":null}"#).unwrap();
        assert!(h.a.is_none() && h.b.is_none());
    }
}
