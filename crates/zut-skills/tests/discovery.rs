//! Discovery and merge over real directories (sessions-themes-skills.md
//! §3.2–3.4; conformance N4, N6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use zut_skills::{BundledSkills, DiscoverOptions, Skill, SkillSet, Source, MAX_SKILL_BYTES};

struct Env {
    _tmp: tempfile::TempDir,
    cwd: PathBuf,
    home: PathBuf,
    user: PathBuf,
}

impl Env {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("proj");
        let home = tmp.path().join("zut-home");
        let user = tmp.path().join("user");
        for d in [&cwd, &home, &user] {
            std::fs::create_dir_all(d).unwrap();
        }
        Self {
            _tmp: tmp,
            cwd,
            home,
            user,
        }
    }
    fn opts(&self) -> DiscoverOptions {
        DiscoverOptions {
            cwd: self.cwd.clone(),
            zut_home: self.home.clone(),
            user_home: Some(self.user.clone()),
            agent_dirs: Vec::new(),
            cache_dir: None,
        }
    }
    fn discover(&self) -> SkillSet {
        SkillSet::discover(&self.opts(), &[], &[])
    }
}

fn skill(dir: &Path, front: &str, body: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("SKILL.md");
    std::fs::write(&path, format!("---\n{front}\n---\n{body}\n")).unwrap();
    path
}

#[test]
fn every_root_in_priority_order() {
    let env = Env::new();
    let agent = env.cwd.parent().unwrap().join("agent-skills");
    let roots = [
        (agent.clone(), Source::Agent),
        (env.cwd.join(".zut/skills"), Source::Project),
        (env.home.join("skills"), Source::Global),
        (env.cwd.join(".claude/skills"), Source::ProjectClaude),
        (env.user.join(".claude/skills"), Source::GlobalClaude),
        (env.cwd.join(".agents/skills"), Source::ProjectAgents),
        (env.user.join(".agents/skills"), Source::GlobalAgents),
    ];
    // Each root has its own skill plus a `shared` one: the first root wins.
    for (i, (root, _)) in roots.iter().enumerate() {
        skill(
            &root.join(format!("own{i}")),
            &format!("description: own {i}"),
            "b",
        );
        skill(
            &root.join("shared"),
            &format!("description: shared {i}"),
            "b",
        );
    }
    let mut opts = env.opts();
    opts.agent_dirs = vec![agent];
    let set = SkillSet::discover(&opts, &[], &[]);
    for (i, (root, source)) in roots.iter().enumerate() {
        let s = set.get(&format!("own{i}")).unwrap();
        assert_eq!(&s.source, source);
        assert_eq!(s.path, root.join(format!("own{i}/SKILL.md")));
    }
    assert_eq!(set.get("shared").unwrap().description, "shared 0");
    assert_eq!(set.get("shared").unwrap().source.label(), "agent");
    // Every other `shared` is listed as skipped, naming the winner.
    let skipped: Vec<_> = set
        .skipped()
        .iter()
        .filter(|s| s.name.as_deref() == Some("shared"))
        .collect();
    assert_eq!(skipped.len(), 6);
    assert_eq!(skipped[0].source, Source::Project);
    assert!(
        skipped[0]
            .reason
            .contains("already taken by the agent skill at"),
        "{:?}",
        skipped[0]
    );
}

#[test]
fn project_skill_shadows_global_one() {
    let env = Env::new();
    skill(&env.home.join("skills/review"), "description: global", "G");
    skill(
        &env.cwd.join(".zut/skills/review"),
        "description: project",
        "P",
    );
    let set = env.discover();
    let s = set.get("review").unwrap();
    assert_eq!(
        (s.source.label().as_str(), s.body().unwrap()),
        ("project", "P")
    );
    assert_eq!(set.skipped().len(), 1);
    assert_eq!(
        set.skipped()[0].path,
        env.home.join("skills/review/SKILL.md")
    );
}

#[test]
fn recursive_scan_aliases_and_root_file_ignored() {
    let env = Env::new();
    let root = env.cwd.join(".zut/skills");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("SKILL.md"), "---\nname: at-root\n---\n").unwrap();
    skill(
        &root.join("systems-backend/subskills/golang-patterns"),
        "description: go",
        "body",
    );
    skill(&root.join("dir-name"), "name: renamed", "r");
    // A nested skill whose alias is taken by an earlier one is skipped whole.
    skill(&root.join("a"), "name: first", "1");
    skill(&env.home.join("skills/x"), "name: a", "2");
    let set = env.discover();
    assert!(set.get("at-root").is_none());
    let go = set
        .get("systems-backend/subskills/golang-patterns")
        .unwrap();
    assert_eq!(go.name, "golang-patterns");
    assert_eq!(set.get("golang-patterns").unwrap(), go);
    assert_eq!(set.get("dir-name").unwrap().name, "renamed");
    assert!(set.get("first").is_some());
    assert_eq!(set.get("a").unwrap().name, "first", "alias of `first`");
    assert!(set
        .skipped()
        .iter()
        .any(|s| s.name.as_deref() == Some("a") && s.reason.contains("\"a\" is already taken")));
}

#[test]
fn binary_and_oversized_skill_files_are_skipped_with_a_reason() {
    let env = Env::new();
    let root = env.home.join("skills");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/SKILL.md"), b"\x7fELF\x00\x00binary").unwrap();
    std::fs::create_dir_all(root.join("huge")).unwrap();
    let f = std::fs::File::create(root.join("huge/SKILL.md")).unwrap();
    f.set_len(MAX_SKILL_BYTES * 4).unwrap();
    skill(&root.join("fine"), "description: ok", "b");
    let set = env.discover();
    assert_eq!(set.skills().len(), 1);
    let reasons: Vec<(String, String)> = set
        .skipped()
        .iter()
        .map(|s| (s.path.display().to_string(), s.reason.clone()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[0].0.ends_with("bin/SKILL.md"));
    assert!(reasons[0].1.contains("binary"), "{reasons:?}");
    assert!(reasons[1].0.ends_with("huge/SKILL.md"));
    assert!(
        reasons[1].1.contains("over the 1024 KiB limit"),
        "{reasons:?}"
    );
}

#[test]
fn front_matter_defaults_and_unclosed_block() {
    // N6: no closing `---` → whole file is body; name from the directory.
    let env = Env::new();
    let root = env.home.join("skills");
    std::fs::create_dir_all(root.join("open")).unwrap();
    std::fs::write(root.join("open/SKILL.md"), "---\nname: nope\nText").unwrap();
    skill(
        &root.join("hidden"),
        "description: manual only\ndisable-model-invocation: true",
        "H",
    );
    let set = env.discover();
    let open = set.get("open").unwrap();
    assert_eq!(open.body().unwrap(), "---\nname: nope\nText");
    assert_eq!(open.description_or_placeholder(), "(no description)");
    assert!(set.get("hidden").is_some());
    let model: Vec<&str> = set.for_model().map(|s| s.name.as_str()).collect();
    assert_eq!(model, vec!["open"]);
}

#[cfg(unix)]
#[test]
fn symlinked_directories_are_followed_and_cycles_end() {
    let env = Env::new();
    let root = env.user.join(".agents/skills");
    std::fs::create_dir_all(&root).unwrap();
    let shared = env.cwd.parent().unwrap().join("shared");
    skill(&shared.join("linked"), "description: via link", "L");
    std::os::unix::fs::symlink(shared.join("linked"), root.join("linked")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
    std::os::unix::fs::symlink(env.cwd.join("missing"), root.join("dangling")).unwrap();
    let set = env.discover();
    let s = set.get("linked").unwrap();
    assert_eq!(
        s.path,
        root.join("linked/SKILL.md"),
        "keeps the walked path"
    );
    assert!(set.skipped().is_empty(), "{:?}", set.skipped());
}

#[test]
fn bundled_precedence_and_builtins() {
    // N4: user beats bundled; bundled beats built-in; two extensions bundling
    // `z` → the alphabetically first manifest name wins.
    let env = Env::new();
    skill(&env.cwd.join(".zut/skills/mine"), "description: user", "U");
    let ext = env.cwd.parent().unwrap().join("exts");
    let a = skill(&ext.join("alpha/skills/z"), "description: from alpha", "A");
    let b = skill(&ext.join("beta/skills/z"), "description: from beta", "B");
    let m = skill(&ext.join("beta/skills/mine"), "description: bundled", "M");
    let bi = skill(&ext.join("beta/skills/bi"), "description: bundled bi", "BI");
    let bundled = vec![
        BundledSkills {
            extension: "beta".into(),
            files: vec![b, m, bi],
        },
        BundledSkills {
            extension: "alpha".into(),
            files: vec![a],
        },
    ];
    let builtins = vec![
        Skill::builtin("bi", "---\ndescription: builtin\n---\nX"),
        Skill::builtin("only-builtin", "---\ndescription: builtin\n---\nY"),
    ];
    let set = SkillSet::discover(&env.opts(), &bundled, &builtins);
    assert_eq!(set.get("z").unwrap().source.label(), "extension alpha");
    assert_eq!(set.get("mine").unwrap().source, Source::Project);
    assert_eq!(set.get("bi").unwrap().source.label(), "extension beta");
    assert_eq!(set.get("only-builtin").unwrap().source, Source::Builtin);
    let visible: Vec<&str> = set.visible().map(|s| s.name.as_str()).collect();
    assert_eq!(visible, vec!["bi", "mine", "z"]);
    assert!(set.for_model().any(|s| s.name == "only-builtin"));
}

#[test]
fn missing_roots_are_fine() {
    let env = Env::new();
    let set = env.discover();
    assert!(set.is_empty());
    assert!(set.skipped().is_empty());
}

#[test]
fn within_one_extension_the_first_declaration_wins() {
    // N4: two declared dirs both bundling `shared`.
    let env = Env::new();
    let ext = env.cwd.parent().unwrap().join("ext");
    let first = skill(&ext.join("a/shared"), "description: first", "1");
    let second = skill(&ext.join("b/shared"), "description: second", "2");
    let bundled = vec![BundledSkills {
        extension: "bundle".into(),
        files: vec![first.clone(), second.clone()],
    }];
    let set = SkillSet::discover(&env.opts(), &bundled, &[]);
    assert_eq!(set.get("shared").unwrap().path, first);
    assert_eq!(set.skipped().len(), 1);
    assert_eq!(set.skipped()[0].path, second);
    assert!(set.skipped()[0]
        .reason
        .contains("already taken by the extension bundle skill"));
}

#[test]
fn a_prefetched_scan_gives_the_same_set_and_only_for_its_options() {
    use zut_skills::prefetch::Prefetch;
    let env = Env::new();
    skill(&env.cwd.join(".zut/skills/review"), "description: r", "R");
    skill(
        &env.user.join(".claude/skills/a/b"),
        "description: nested",
        "N",
    );
    skill(
        &env.home.join("skills/review"),
        "description: shadowed",
        "G",
    );
    let bundled_dir = env.cwd.parent().unwrap().join("ext");
    let bundled = vec![BundledSkills {
        extension: "ext".into(),
        files: vec![skill(&bundled_dir.join("lint"), "description: l", "L")],
    }];
    let names = |set: &SkillSet| -> Vec<(String, String, Vec<String>)> {
        set.skills()
            .iter()
            .map(|s| (s.name.clone(), s.description.clone(), s.aliases.clone()))
            .collect()
    };
    let fresh = SkillSet::discover(&env.opts(), &bundled, &[]);
    let early = Prefetch::start(env.opts()).unwrap();
    let scans = early.take(&env.opts()).expect("same options");
    let prefetched = SkillSet::from_scans(scans, &bundled, &[]);
    assert_eq!(names(&prefetched), names(&fresh));
    assert_eq!(prefetched.skipped().len(), fresh.skipped().len());
    // Made for other options: not used.
    let mut other = env.opts();
    other.cwd = env.user.clone();
    assert!(Prefetch::start(env.opts()).unwrap().take(&other).is_none());
}

#[test]
fn a_prefetch_with_no_root_is_ready_at_once_and_a_root_made_later_is_still_found() {
    use zut_skills::prefetch::Prefetch;
    let env = Env::new();
    // No root exists: the (empty) scan is made on the spot.
    let early = Prefetch::start(env.opts()).unwrap();
    let scans = early.take(&env.opts()).expect("same options");
    assert_eq!(scans.len(), env.opts().roots().len());
    assert!(scans
        .iter()
        .all(|(found, skipped)| found.is_empty() && skipped.is_empty()));
    // The next prompt's own discovery sees a root created since.
    skill(&env.cwd.join(".zut/skills/late"), "description: l", "L");
    let set = SkillSet::discover(&env.opts(), &[], &[]);
    assert_eq!(set.skills().len(), 1);
    assert_eq!(set.skills()[0].name, "late");
}
