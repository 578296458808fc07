//! A confined program's output (outside input) through the denial
//! explainer: never panics, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let policy = zut_sandbox::Policy::jail(&zut_sandbox::JailSpec {
        cwd: "/nonexistent-ws".into(),
        ..Default::default()
    });
    let _ = zut_sandbox::explain(&text, &policy, std::path::Path::new("/nonexistent-ws"));
});
