//! Damaged Gemini and Bedrock bodies (bytes flipped, cut, duplicated,
//! inserted) through `parse_stream` in random chunkings: each gives a
//! completion or an error naming the provider, never a panic. (A quick,
//! seeded stand-in for the cargo-fuzz target `fuzz/fuzz_targets/stream.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]

use zut_llm_server::{Block, Format, Script};
use zut_providers::{parse_stream, ProviderError, Wire};

fn body(format: Format) -> Vec<u8> {
    Script::reply(
        format,
        vec![
            Block::thinking("think \"hard\" é", "SIG"),
            Block::text("Hello → world\n"),
            Block::tool_call("t1", "read", r#"{"path": "a.txt", "n": [1, 2]}"#),
        ],
    )
    .delta_bytes(3)
    .render_bytes()
}

fn provider_of(e: &ProviderError) -> Option<&str> {
    match e {
        ProviderError::Http { provider, .. }
        | ProviderError::Api { provider, .. }
        | ProviderError::Transport { provider, .. }
        | ProviderError::Protocol { provider, .. }
        | ProviderError::InvalidToolArgs { provider, .. } => Some(provider),
        _ => None,
    }
}

#[test]
fn damaged_bodies_never_panic() {
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for (format, wire, name) in [
        (Format::Gemini, Wire::Gemini, "google"),
        (Format::Bedrock, Wire::Bedrock, "amazon-bedrock"),
    ] {
        let good = body(format);
        let completion = parse_stream(wire, good.chunks(5), &mut |_| {}).unwrap();
        assert_eq!(completion.message.text(), "Hello → world\n");
        let (mut ok, mut failed) = (0, 0);
        for _ in 0..3000 {
            let mut bytes = good.clone();
            for _ in 0..rng.usize(1..4) {
                let at = rng.usize(..bytes.len());
                match rng.u8(..4) {
                    0 => bytes[at] ^= 1 << rng.u8(..8),
                    1 => bytes.truncate(at),
                    2 => {
                        let end = (at + rng.usize(1..64)).min(bytes.len());
                        let copy = bytes[at..end].to_vec();
                        bytes.splice(at..at, copy);
                    }
                    _ => bytes.insert(at, rng.u8(..)),
                }
                if bytes.is_empty() {
                    break;
                }
            }
            let chunk = rng.usize(1..200);
            match parse_stream(wire, bytes.chunks(chunk), &mut |_| {}) {
                Ok(_) => ok += 1,
                Err(e) => {
                    assert_eq!(provider_of(&e), Some(name), "{e}");
                    failed += 1;
                }
            }
        }
        assert!(
            failed > 0 && ok + failed == 3000,
            "{name}: {ok} ok, {failed} failed"
        );
    }
}
