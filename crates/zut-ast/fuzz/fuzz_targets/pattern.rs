//! Arbitrary patterns and sources in every embedded language: compiling a
//! pattern and matching it must return matches or an error, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zut_ast::{parse_language, LangChoice};

const LANGS: &[&str] = &[
    "bash", "c", "cpp", "csharp", "css", "go", "html", "java", "javascript", "json", "kotlin",
    "lua", "php", "python", "ruby", "rust", "scala", "swift", "tsx", "typescript", "yaml",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // The first line is the pattern, the rest the source.
    let (pattern, source) = text.split_once('\n').unwrap_or((text, ""));
    let LangChoice::Embedded(lang) = parse_language(LANGS[pick as usize % LANGS.len()]) else {
        return;
    };
    let _ = zut_ast::matches_in_source(pattern, lang, source);
});
