//! The merged skill set (sessions-themes-skills.md §3.4): user roots, then
//! extension-bundled skills (extensions in alphabetical order of manifest
//! name), then built-ins; first registration of a name or alias wins.

use std::path::PathBuf;

use crate::discover::{load_files, scan_roots, DiscoverOptions, Skipped};
use crate::fx_hash::FxHashMap;
use crate::skill::{Skill, Source};

/// The `SKILL.md` files one loaded extension bundles, in declaration order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BundledSkills {
    /// Manifest name.
    pub extension: String,
    /// Checked `SKILL.md` paths.
    pub files: Vec<PathBuf>,
}

/// Every usable skill, and every skipped one with its reason.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    skills: Vec<Skill>,
    skipped: Vec<Skipped>,
}

impl SkillSet {
    /// No skills (`--no-skill`).
    pub fn empty() -> Self {
        Self::default()
    }

    /// Discovers user skills, then adds `bundled` and `builtins` under the
    /// merge precedence.
    pub fn discover(opts: &DiscoverOptions, bundled: &[BundledSkills], builtins: &[Skill]) -> Self {
        Self::from_scans(
            scan_roots(&opts.roots(), opts.cache_dir.as_deref()),
            bundled,
            builtins,
        )
    }

    /// [`SkillSet::discover`] with the user roots already scanned
    /// ([`crate::prefetch::Prefetch`]), in the order of
    /// [`DiscoverOptions::roots`].
    pub fn from_scans(
        scans: Vec<crate::discover::RootScan>,
        bundled: &[BundledSkills],
        builtins: &[Skill],
    ) -> Self {
        let mut b = Builder::default();
        for (skills, skipped) in scans {
            b.skipped.extend(skipped);
            for s in skills {
                b.register(s);
            }
        }
        let mut exts: Vec<&BundledSkills> = bundled.iter().collect();
        exts.sort_by(|a, b| a.extension.cmp(&b.extension));
        for ext in exts {
            let (skills, skipped) =
                load_files(&ext.files, &Source::Extension(ext.extension.clone()));
            b.skipped.extend(skipped);
            for s in skills {
                b.register(s);
            }
        }
        for s in builtins {
            b.register(s.clone());
        }
        let mut skills = b.skills;
        skills.sort_by(|a, b| a.name.cmp(&b.name));
        Self {
            skills,
            skipped: b.skipped,
        }
    }

    /// Every skill, sorted by name (built-ins included).
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// The skills users see (`zut skills`, the `/skills` picker,
    /// `/skill:` completion): built-ins are hidden.
    pub fn visible(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| s.source != Source::Builtin)
    }

    /// The skills listed to the model: not `disable-model-invocation`.
    pub fn for_model(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter().filter(|s| !s.disable_model_invocation)
    }

    /// Skills not used, with the reason (unreadable, name taken, ...).
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// The skill called `name` (by name first, then by alias).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        let name = name.trim();
        self.skills
            .iter()
            .find(|s| s.name == name)
            .or_else(|| self.skills.iter().find(|s| s.answers_to(name)))
    }

    /// Whether there are no skills.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }
}

#[derive(Default)]
struct Builder {
    skills: Vec<Skill>,
    /// Name or alias → index of the owning skill.
    taken: FxHashMap<String, usize>,
    skipped: Vec<Skipped>,
}

impl Builder {
    fn register(&mut self, skill: Skill) {
        if skill.name.is_empty() {
            return;
        }
        let keys = std::iter::once(&skill.name).chain(skill.aliases.iter());
        for key in keys {
            if let Some(&owner) = self.taken.get(key) {
                let winner = &self.skills[owner];
                let at = if winner.path.as_os_str().is_empty() {
                    String::new()
                } else {
                    format!(" at {}", winner.path.display())
                };
                self.skipped.push(Skipped {
                    path: skill.path.clone(),
                    source: skill.source.clone(),
                    name: Some(skill.name.clone()),
                    reason: format!(
                        "name {key:?} is already taken by the {} skill{at}",
                        winner.source.label()
                    ),
                });
                return;
            }
        }
        let idx = self.skills.len();
        self.taken.insert(skill.name.clone(), idx);
        for a in &skill.aliases {
            self.taken.insert(a.clone(), idx);
        }
        self.skills.push(skill);
    }
}
