//! The OpenAI Responses API (`POST {base}/responses`): request body and
//! streamed event decoding. Used by the `openai-responses` and
//! `azure-openai-responses` presets, by `openai`/`xai` for the models that
//! only exist there, and by custom providers with `"api": "openai-responses"`.
//!
//! Reasoning is carried across turns without server-side state: requests
//! say `store: false` and ask for `reasoning.encrypted_content`; each
//! reasoning item of a reply is kept in a [`crate::Part::Thinking`] whose
//! signature is [`REASONING_PREFIX`]` + id + ":" + encrypted content`, and
//! is sent back as a `reasoning` input item on the next request.

pub(crate) mod fast;
pub(crate) mod request;
pub(crate) mod stream;

/// Prefix of a [`crate::Part::Thinking`] signature that holds a Responses
/// reasoning item (`openai-reasoning:<item id>:<encrypted content>`).
pub const REASONING_PREFIX: &str = "openai-reasoning:";

/// The signature kept for a reasoning item (`id`, `encrypted_content`).
pub fn signature(id: &str, encrypted: &str) -> String {
    format!("{REASONING_PREFIX}{id}:{encrypted}")
}

/// The item id and encrypted content of a Responses reasoning signature.
pub fn parse_signature(signature: &str) -> Option<(&str, &str)> {
    signature.strip_prefix(REASONING_PREFIX)?.split_once(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_round_trip() {
        let s = signature("rs_1", "gAAA:b==");
        assert_eq!(parse_signature(&s), Some(("rs_1", "gAAA:b==")));
        assert_eq!(parse_signature("EqQBCkYIB"), None);
    }
}
