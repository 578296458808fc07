//! zut's skills (sessions-themes-skills.md §3): `SKILL.md` folders of
//! reusable instructions.
//!
//! * [`front_matter`] parses the front-matter subset of a `SKILL.md`;
//! * [`skill`] holds a [`Skill`] and reads files safely (≤ 1 MiB, text only);
//! * [`discover`] walks the user roots in priority order
//!   (`ZUT_AGENT_SKILLS`, project, `$ZUT_HOME`, `.claude`, `.agents`);
//! * [`set`] merges user, extension-bundled and built-in skills into a
//!   [`SkillSet`], keeping the skipped ones with their reasons.
//!
//! The crate knows nothing of the extension host, the agent or providers:
//! the caller passes each loaded extension's checked `SKILL.md` files in as
//! [`BundledSkills`] (the host applies the path-safety rules of §3.3).

pub mod builtin;
mod cache;
#[cfg(test)]
mod cache_tests;
mod dir_fd;
pub mod discover;
pub mod front_matter;
mod fx_hash;
pub mod prefetch;
pub mod set;
pub mod skill;

pub use builtin::builtin_skills;
pub use discover::{DiscoverOptions, Skipped};
pub use set::{BundledSkills, SkillSet};
pub use skill::{read_skill_file, ReadError, Skill, Source, MAX_SKILL_BYTES};

/// Expands `/skill:<name> [request]` into the user message text: the full
/// body, the skill directory (for relative references) and the request.
/// Fails (naming the file) when the body, read on first use, cannot be read.
pub fn expand_invocation(skill: &Skill, request: &str) -> Result<String, String> {
    let body = skill.body()?;
    let mut text = format!("<skill name=\"{}\"", skill.name);
    if let Some(dir) = skill.dir() {
        text.push_str(&format!(" dir=\"{}\"", dir.display()));
    }
    text.push_str(">\n");
    text.push_str(body);
    text.push_str("\n</skill>");
    if let Some(dir) = skill.dir() {
        text.push_str(&format!(
            "\n\nRelative paths in this skill are relative to {}.",
            dir.display()
        ));
    }
    let request = request.trim();
    if !request.is_empty() {
        text.push_str("\n\n");
        text.push_str(request);
    }
    Ok(text)
}
