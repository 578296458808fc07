//! Any bytes as a gzip, deflate or brotli body, then sniffed and decoded
//! to text: never a panic, never more than the cap.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, body)) = data.split_first() else { return };
    let enc = ["gzip", "deflate", "br", ""][usize::from(which % 4)];
    if let Ok((out, _)) = zut_web::decode::content_encoding(enc, body.to_vec(), 1 << 20) {
        assert!(out.len() <= 1 << 20);
        let _ = zut_web::decode::kind("", &out);
        let _ = zut_web::decode::text(&out, Some("windows-1252"), true);
    }
});
