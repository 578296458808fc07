//! Skills embedded in zut. There are none yet; the merge keeps their place
//! (after user and extension-bundled skills) so one can be added here.

use crate::skill::Skill;

/// The built-in skills.
pub fn builtin_skills() -> Vec<Skill> {
    Vec::new()
}
