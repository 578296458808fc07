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
        // Every candidate in precedence order (user roots, extensions in
        // alphabetical order, built-ins), with the files each group could
        // not use: a candidate's skip reasons go after its group's.
        let mut candidates: Vec<Skill> = Vec::new();
        let mut groups: Vec<(usize, Vec<Skipped>)> = Vec::new();
        for (skills, skipped) in scans {
            groups.push((candidates.len(), skipped));
            candidates.extend(skills);
        }
        let mut exts: Vec<&BundledSkills> = bundled.iter().collect();
        exts.sort_by(|a, b| a.extension.cmp(&b.extension));
        for ext in exts {
            let (skills, skipped) =
                load_files(&ext.files, &Source::Extension(ext.extension.clone()));
            groups.push((candidates.len(), skipped));
            candidates.extend(skills);
        }
        candidates.extend(builtins.iter().cloned());
        let (keep, skipped) = merge(&candidates, groups);
        // Sorted by name (names are unique once merged): indices are sorted
        // and the skills moved once, not swapped around while sorting.
        let mut order: Vec<usize> = (0..candidates.len()).filter(|&i| keep[i]).collect();
        order.sort_unstable_by(|&a, &b| candidates[a].name.cmp(&candidates[b].name));
        let mut slots: Vec<Option<Skill>> = candidates.into_iter().map(Some).collect();
        let skills = order.into_iter().filter_map(|i| slots[i].take()).collect();
        Self { skills, skipped }
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

/// The merge precedence over `candidates` (in precedence order): which
/// ones are kept (the first registration of a name or alias wins; a
/// nameless one is dropped), and the skipped list: each group's unusable
/// files (`groups`: the index of the group's first candidate, its files),
/// then the candidates of that group that lost a name. Keys borrow from
/// `candidates`, so nothing is copied to merge.
fn merge(candidates: &[Skill], groups: Vec<(usize, Vec<Skipped>)>) -> (Vec<bool>, Vec<Skipped>) {
    let keys = candidates.iter().map(|s| 1 + s.aliases.len()).sum();
    // Name or alias → index of the owning skill.
    let mut taken: FxHashMap<&str, usize> =
        FxHashMap::with_capacity_and_hasher(keys, Default::default());
    let mut keep = vec![false; candidates.len()];
    let mut skipped = Vec::new();
    let mut groups = groups.into_iter().peekable();
    for (i, skill) in candidates.iter().enumerate() {
        while let Some((_, files)) = groups.next_if(|(start, _)| *start <= i) {
            skipped.extend(files);
        }
        if skill.name.is_empty() {
            continue;
        }
        let mut names =
            std::iter::once(skill.name.as_str()).chain(skill.aliases.iter().map(String::as_str));
        if let Some((key, &owner)) = names.find_map(|k| taken.get(k).map(|o| (k, o))) {
            let winner = &candidates[owner];
            let at = if winner.path.as_os_str().is_empty() {
                String::new()
            } else {
                format!(" at {}", winner.path.display())
            };
            skipped.push(Skipped {
                path: skill.path.clone(),
                source: skill.source.clone(),
                name: Some(skill.name.clone()),
                reason: format!(
                    "name {key:?} is already taken by the {} skill{at}",
                    winner.source.label()
                ),
            });
            continue;
        }
        keep[i] = true;
        taken.insert(&skill.name, i);
        for a in &skill.aliases {
            taken.insert(a, i);
        }
    }
    skipped.extend(groups.flat_map(|(_, files)| files));
    (keep, skipped)
}
