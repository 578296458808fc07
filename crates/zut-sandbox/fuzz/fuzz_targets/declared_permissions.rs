//! An extension manifest's `permissions` (outside input): parsing,
//! checking and turning it into a policy never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(d) = zut_sandbox::Declared::from_json(&value) {
        let vars = zut_sandbox::Vars {
            cwd: "/w".into(),
            data_dir: "/d".into(),
            extension_dir: "/e".into(),
            home: Some("/h".into()),
            tmp: "/tmp".into(),
        };
        let _ = d.to_policy("fuzz", &vars, &[]);
        let _ = d.describe();
        let _ = zut_sandbox::Declared::diff(None, Some(&d));
    }
});
