//! Any text parses as a `SKILL.md` without panicking, and the body is a
//! substring of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let fm = zut_skills::front_matter::parse(text);
        assert!(text.contains(fm.body.as_str()));
        let _ = zut_skills::expand_invocation(
            &zut_skills::Skill::from_text(text, "x", "/x/SKILL.md".into(), zut_skills::Source::Global),
            text,
        );
    }
});
