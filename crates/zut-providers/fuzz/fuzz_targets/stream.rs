//! A response body of any wire through `parse_stream` (SSE framing for
//! Anthropic, OpenAI and Gemini; the binary event-stream decoder for
//! Bedrock), delivered in chunks whose sizes come from the input: errors
//! are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zut_providers::{parse_stream, Wire};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let wire = match selector % 4 {
        0 => Wire::Bedrock,
        1 => Wire::Gemini,
        2 => Wire::Anthropic,
        _ => Wire::OpenAi,
    };
    let chunk = usize::from(selector / 4) + 1;
    let _ = parse_stream(wire, rest.chunks(chunk), &mut |_| {});
});
