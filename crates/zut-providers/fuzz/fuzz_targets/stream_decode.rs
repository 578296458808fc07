//! A streamed response body, in any of the three wire formats and split
//! into chunks anywhere, through the provider's decoder: errors are fine,
//! panics are not, and the text events add up to the message's text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zut_providers::{parse_stream, StreamEvent, Wire};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else {
        return;
    };
    let wire = match selector % 3 {
        0 => Wire::Anthropic,
        1 => Wire::OpenAi,
        _ => Wire::Responses,
    };
    let chunk = usize::from(selector / 3).max(1);
    let mut text = String::new();
    let result = parse_stream(wire, body.chunks(chunk), &mut |event| {
        if let StreamEvent::TextDelta(delta) = event {
            text.push_str(&delta);
        }
    });
    if let Ok(completion) = result {
        assert_eq!(completion.message.text(), text);
    }
});
