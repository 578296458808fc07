//! What zut-lsp reads from outside: a server's byte stream (framing), a
//! linter's report (every parser) and `lsp.json` layers. None may panic.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    match selector % 3 {
        0 => {
            let rt = match tokio::runtime::Builder::new_current_thread().build() {
                Ok(rt) => rt,
                Err(_) => return,
            };
            rt.block_on(async {
                let mut r = tokio::io::BufReader::new(rest);
                for _ in 0..64 {
                    match zut_lsp::framing::read_message(&mut r).await {
                        Ok(Some(_)) => {}
                        _ => break,
                    }
                }
            });
        }
        1 => {
            let text = String::from_utf8_lossy(rest);
            for parser in ["ruff-json", "eslint-json", "golangci-lint-json", "sarif", "generic"] {
                let _ = zut_lsp::linters::parse(parser, &text, Path::new("/w"), "fuzz");
            }
        }
        _ => {
            let text = String::from_utf8_lossy(rest).into_owned();
            let _ = zut_lsp::Config::from_layers(&[(PathBuf::from("/w/lsp.json"), text)]);
        }
    }
});
