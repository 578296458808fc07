//! Any text parses as a subagent profile (Go or Claude Code convention)
//! without panicking; a profile that parses has a non-empty system prompt
//! that is a substring of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zut_agent::subagent::profiles::{parse_frontmatter, parse_profile, ProfileFormat};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_frontmatter(text);
        for format in [ProfileFormat::Zut, ProfileFormat::Claude] {
            if let Ok(p) = parse_profile(text, "stem", format) {
                assert!(!p.system_prompt.trim().is_empty());
                assert!(text.contains(p.system_prompt.as_str()));
            }
        }
    }
});
