//! Any bytes as `config.json` and `models.json` give settings or an error
//! naming the file, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let half = data.len() / 2;
    let _ = std::fs::write(dir.path().join("config.json"), &data[..half]);
    let _ = std::fs::write(dir.path().join("models.json"), &data[half..]);
    match zut_config::load(&zut_config::Flags::default(), &|_| None, dir.path()) {
        Ok(_) => {}
        Err(e) => assert!(e.file.is_some()),
    }
});
