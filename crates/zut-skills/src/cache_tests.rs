//! The discovery cache gives exactly what an uncached discovery gives, over
//! real trees edited between starts (added, removed, modified skills,
//! touched folders, same-size rewrites, symbolic links out of the root,
//! binary and oversized files), scripted and in a seeded random sequence.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cache::age_files;
use crate::discover::DiscoverOptions;
use crate::set::{BundledSkills, SkillSet};
use crate::skill::MAX_SKILL_BYTES;

/// One hour: "the next start came much later".
const LATER: i64 = 3_600_000_000_000;

struct World {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    opts: DiscoverOptions,
    cache: PathBuf,
    bundled: Vec<BundledSkills>,
}

impl World {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().to_path_buf();
        let cache = base.join("zh/cache/skills");
        let opts = DiscoverOptions {
            cwd: base.join("proj"),
            zut_home: base.join("zh"),
            user_home: Some(base.join("user")),
            agent_dirs: vec![base.join("agent")],
            cache_dir: Some(cache.clone()),
        };
        for (root, _) in opts.roots() {
            fs::create_dir_all(root).unwrap();
        }
        fs::create_dir_all(base.join("outside")).unwrap();
        let ext = base.join("ext/skills/bundled-one");
        fs::create_dir_all(&ext).unwrap();
        fs::write(ext.join("SKILL.md"), "---\nname: bundled-one\n---\nB").unwrap();
        let bundled = vec![BundledSkills {
            extension: "ext".into(),
            files: vec![ext.join("SKILL.md")],
        }];
        Self {
            _tmp: tmp,
            base,
            opts,
            cache,
            bundled,
        }
    }

    fn roots(&self) -> Vec<PathBuf> {
        self.opts.roots().into_iter().map(|(p, _)| p).collect()
    }

    fn discover(&self, cached: bool) -> SkillSet {
        let mut opts = self.opts.clone();
        if !cached {
            opts.cache_dir = None;
        }
        SkillSet::discover(&opts, &self.bundled, &[])
    }

    /// (inode, mtime) of every cache file: unchanged when no start wrote.
    fn cache_files(&self) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
        use std::os::unix::fs::MetadataExt;
        let mut out: Vec<_> = fs::read_dir(&self.cache)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| {
                let m = e.metadata().unwrap();
                (e.path(), m.ino(), m.modified().unwrap())
            })
            .collect();
        out.sort();
        out
    }

    /// Discovers with and without the cache and asserts the same result;
    /// then, the cache made "an hour later", discovers from it again (every
    /// record trusted: nothing is rewritten) and asserts the same again.
    fn check(&self, what: &str) {
        let truth = view(&self.discover(false));
        assert_eq!(
            view(&self.discover(true)),
            truth,
            "after {what}: cached start"
        );
        age_files(&self.cache, LATER);
        let before = self.cache_files();
        assert_eq!(
            view(&self.discover(true)),
            truth,
            "after {what}: warm start"
        );
        assert_eq!(
            self.cache_files(),
            before,
            "after {what}: a warm start rewrote the cache"
        );
        age_files(&self.cache, LATER);
    }
}

/// Everything a discovery gives, bodies (read on use) included.
fn view(set: &SkillSet) -> Vec<String> {
    let mut out: Vec<String> = set
        .skills()
        .iter()
        .map(|s| {
            format!(
                "{} {:?} {:?} {} {} {} {:?} {:?} body={:?}",
                s.name,
                s.aliases,
                s.description,
                s.path.display(),
                s.source.label(),
                s.disable_model_invocation,
                s.allowed_tools,
                s.permissions,
                s.body()
            )
        })
        .collect();
    out.extend(set.skipped().iter().map(|s| format!("skipped {s:?}")));
    out
}

fn write_skill(dir: &Path, name: &str, desc: &str, body: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {desc}\n---\n{body}\n"),
    )
    .unwrap();
}

/// Lets the coarse file-system clock tick, so an edit never lands in the
/// same timestamp as the write before it (what the racy rule is for; the
/// test ages the cache by an hour, which would hide such a same-tick edit).
fn tick() {
    std::thread::sleep(Duration::from_millis(12));
}

#[test]
fn cached_discovery_equals_uncached_through_edits() {
    let w = World::new();
    let r = w.roots();
    let (agent, proj, global, user_claude) = (&r[0], &r[1], &r[2], &r[4]);
    write_skill(&proj.join("review"), "review", "Review.", "Read it all.");
    write_skill(
        &global.join("review"),
        "review",
        "Global review.",
        "Shadowed.",
    );
    write_skill(
        &global.join("g/nested/deep"),
        "deep",
        "Deep one.",
        "Deep body.",
    );
    write_skill(&agent.join("a1"), "a1", "Agent.", "A");
    fs::write(user_claude.join("SKILL.md"), "at the root: ignored").unwrap();
    write_skill(
        &w.base.join("outside/escaped"),
        "escaped",
        "Outside.",
        "Out",
    );
    w.check("the first start");
    assert!(
        w.cache_files().len() >= 4,
        "one file per existing root: {:?}",
        w.cache_files()
    );

    tick();
    write_skill(&proj.join("added"), "added", "New.", "N");
    w.check("adding a skill");

    tick();
    fs::remove_dir_all(proj.join("review")).unwrap();
    w.check("removing the project skill (the global one shows)");

    tick();
    write_skill(
        &global.join("g/nested/deep"),
        "deep",
        "Changed!!",
        "Deep body.",
    );
    w.check("modifying a skill in place");

    tick();
    // Same size, same inode, only the bytes differ.
    let file = agent.join("a1/SKILL.md");
    let text = fs::read_to_string(&file)
        .unwrap()
        .replace("Agent.", "Agnet.");
    fs::write(&file, text).unwrap();
    w.check("a same-size rewrite");

    tick();
    // Same size through a new file renamed over it (new inode, and the
    // folder changes too).
    let tmp = agent.join("a1/.tmp");
    let text = fs::read_to_string(&file)
        .unwrap()
        .replace("Agnet.", "Agent.");
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, &file).unwrap();
    w.check("a same-size replacement by rename");

    tick();
    fs::File::open(global.join("g"))
        .unwrap()
        .set_modified(std::time::SystemTime::now())
        .unwrap();
    w.check("touching a folder");

    tick();
    std::os::unix::fs::symlink(w.base.join("outside"), proj.join("out-link")).unwrap();
    w.check("a symbolic link out of the root");

    tick();
    write_skill(
        &w.base.join("outside/escaped2"),
        "escaped2",
        "Outside 2.",
        "O2",
    );
    w.check("a skill added behind the link");

    tick();
    fs::remove_file(proj.join("out-link")).unwrap();
    std::os::unix::fs::symlink(w.base.join("outside/escaped"), proj.join("out-link")).unwrap();
    w.check("the link retargeted");

    tick();
    std::os::unix::fs::symlink(proj, proj.join("loop")).unwrap();
    std::os::unix::fs::symlink(w.base.join("nowhere"), proj.join("dangling")).unwrap();
    w.check("a cycle and a dangling link");

    tick();
    fs::write(
        global.join("g/nested/deep/SKILL.md"),
        b"---\nname: deep\n---\n\x00",
    )
    .unwrap();
    w.check("a file turned binary");

    tick();
    let big = fs::OpenOptions::new()
        .write(true)
        .open(proj.join("added/SKILL.md"))
        .unwrap();
    big.set_len(MAX_SKILL_BYTES + 10).unwrap();
    drop(big);
    w.check("a file grown over the limit");

    tick();
    fs::remove_file(proj.join("added/SKILL.md")).unwrap();
    std::os::unix::fs::symlink(
        w.base.join("outside/escaped/SKILL.md"),
        proj.join("added/SKILL.md"),
    )
    .unwrap();
    w.check("a SKILL.md replaced by a link to a file outside");

    tick();
    write_skill(
        &w.base.join("outside/escaped"),
        "escaped",
        "Edited outside.",
        "Out",
    );
    w.check("the linked file edited");

    // A cache that is torn, not a cache, of another version or empty is
    // ignored (and replaced); so is one claiming more records than it holds.
    let whole = fs::read(&w.cache_files()[0].0).unwrap();
    let mut other_version = whole.clone();
    other_version[0] = 99;
    let torn = whole[..whole.len() / 2].to_vec();
    let mut huge = vec![2u8];
    huge.extend([1, b'/', 0, 0xfc, 0xff, 0xff, 0xff, 0xff]);
    let junk: [&[u8]; 6] = [
        &torn,
        b"not a cache",
        &other_version,
        b"{\"version\": 1, \"root\": \"\"}",
        &huge,
        b"",
    ];
    for junk in junk {
        for (path, _, _) in w.cache_files() {
            fs::write(path, junk).unwrap();
        }
        w.check("a broken cache file");
    }
    fs::remove_dir_all(&w.cache).unwrap();
    w.check("the cache deleted");
}

#[test]
fn a_tampered_cache_cannot_lead_the_walk_out_of_the_root() {
    let w = World::new();
    let proj = &w.roots()[1];
    write_skill(&proj.join("s"), "s", "d", "x");
    write_skill(&w.base.join("outside/evil"), "evil", "Outside.", "Out");
    w.discover(true);
    age_files(&w.cache, LATER);
    // Add an entry climbing out of the project root to its listing, as if
    // the root held it; the stamp still matches.
    let mut patched = 0;
    for (path, _, _) in w.cache_files() {
        let mut stored = crate::cache::decode(&fs::read(&path).unwrap()).unwrap();
        if stored.root != proj.to_str().unwrap() {
            continue;
        }
        for (key, rec) in &mut stored.dirs {
            if key.is_empty() {
                // <base>/proj/.zut/skills/../../../outside = <base>/outside
                rec.1.push(("../../../outside".into(), 'd', 1));
                patched += 1;
            }
        }
        fs::write(&path, crate::cache::encode(&stored).unwrap()).unwrap();
    }
    assert!(patched > 0);
    let truth = view(&w.discover(false));
    assert_eq!(view(&w.discover(true)), truth);
    assert!(!truth.iter().any(|s| s.contains("evil")), "{truth:?}");
}

#[test]
fn a_fresh_edit_is_never_hidden_by_the_racy_rule() {
    // No aging here: the cache is as young as the files, so every record is
    // "racily clean" and read again, even an edit in the same clock tick.
    let w = World::new();
    let proj = &w.roots()[1];
    write_skill(&proj.join("s"), "s", "one", "x");
    assert_eq!(view(&w.discover(true)).len(), 2);
    write_skill(&proj.join("s"), "s", "two", "x");
    let truth = view(&w.discover(false));
    assert_eq!(view(&w.discover(true)), truth);
    assert!(truth.iter().any(|s| s.contains("\"two\"")), "{truth:?}");
}

#[test]
fn a_cached_skill_reads_its_body_when_used() {
    let w = World::new();
    let proj = &w.roots()[1];
    write_skill(&proj.join("s"), "s", "d", "first body");
    w.discover(true);
    age_files(&w.cache, LATER);
    let set = w.discover(true);
    let skill = set.get("s").unwrap();
    assert_eq!(skill.body(), Ok("first body"));
    assert!(crate::expand_invocation(skill, "go")
        .unwrap()
        .contains("first body\n</skill>"));
    // Gone between discovery and use: an error naming the file.
    let set = w.discover(true);
    fs::remove_dir_all(proj.join("s")).unwrap();
    let err = crate::expand_invocation(set.get("s").unwrap(), "").unwrap_err();
    assert!(err.contains("s/SKILL.md"), "{err}");
}

/// A small deterministic generator (xorshift64*), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn cached_discovery_equals_uncached_over_random_edits() {
    let w = World::new();
    let roots = w.roots();
    let outside = w.base.join("outside");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..30 {
        tick();
        let mut done = Vec::new();
        for _ in 0..=rng.below(3) {
            let root = &roots[rng.below(roots.len() as u64) as usize];
            let base = if rng.below(5) == 0 { &outside } else { root };
            let dir = base.join(format!("g{}/s{}", rng.below(2), rng.below(6)));
            let file = dir.join("SKILL.md");
            // Few names, so that roots shadow each other.
            let name = format!("n{}", rng.below(8));
            let op = rng.below(9);
            done.push(format!("{op} {}", dir.display()));
            match op {
                0 | 1 => write_skill(&dir, &name, &format!("d{}", rng.below(100)), "body"),
                2 => {
                    let _ = fs::remove_dir_all(&dir);
                }
                3 => {
                    if let Ok(text) = fs::read_to_string(&file) {
                        let flipped = text.replacen('d', "D", 1);
                        fs::write(&file, flipped).unwrap();
                    }
                }
                4 => {
                    if let Ok(f) = fs::File::open(dir.parent().unwrap()) {
                        f.set_modified(std::time::SystemTime::now()).unwrap();
                    }
                }
                5 => {
                    let link = root.join(format!("link{}", rng.below(3)));
                    let _ = fs::remove_file(&link);
                    let target = match rng.below(4) {
                        0 => outside.clone(),
                        1 => outside.join("g0"),
                        2 => root.clone(),
                        _ => w.base.join("nowhere"),
                    };
                    std::os::unix::fs::symlink(target, link).unwrap();
                }
                6 => {
                    if dir.exists() {
                        fs::write(&file, b"\x00binary").unwrap();
                    }
                }
                7 => {
                    if file.exists() {
                        let f = fs::OpenOptions::new().write(true).open(&file).unwrap();
                        f.set_len(MAX_SKILL_BYTES + 1).unwrap();
                    }
                }
                _ => {
                    if dir.exists() {
                        let tmp = dir.join(".new");
                        fs::write(&tmp, format!("---\nname: {name}\n---\nrenamed")).unwrap();
                        fs::rename(&tmp, &file).unwrap();
                    }
                }
            }
        }
        w.check(&format!("round {round}: {done:?}"));
    }
}

#[test]
fn an_unchanged_root_is_replayed_from_its_cache_and_nothing_else_is() {
    use crate::cache::REPLAYS;
    use crate::discover::scan_root;
    use crate::skill::Source;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    let cache = tmp.path().join("cache");
    write_skill(&root.join("g/a"), "a", "A.", "body a");
    write_skill(&root.join("g/b"), "bee", "B.", "body b");
    write_skill(&root.join("c"), "c", "C.", "body c");
    fs::create_dir_all(root.join("bin")).unwrap();
    fs::write(root.join("bin/SKILL.md"), b"\0\x01binary").unwrap();
    let replays = || REPLAYS.with(|n| n.get());
    let scan = |cached: bool| {
        let (skills, skipped) = scan_root(&root, &Source::Project, cached.then_some(&*cache));
        let mut out: Vec<String> = skills
            .iter()
            .map(|s| {
                format!(
                    "{} {:?} {} {}",
                    s.name,
                    s.aliases,
                    s.description,
                    s.path.display()
                )
            })
            .collect();
        out.extend(
            skipped
                .iter()
                .map(|s| format!("skipped {} {}", s.path.display(), s.reason)),
        );
        out
    };
    // Written, then replayed once old enough: same skills, aliases, paths
    // and skipped files as a walk without the cache.
    let truth = scan(false);
    assert_eq!(scan(true), truth);
    age_files(&cache, LATER);
    let before = replays();
    assert_eq!(scan(true), truth);
    assert_eq!(replays(), before + 1, "an unchanged root is replayed");
    assert_eq!(scan(true), truth);
    assert_eq!(replays(), before + 2);
    // An in-place edit (same size): walked, and the edit is seen.
    tick();
    write_skill(&root.join("g/a"), "a", "X.", "body a");
    let truth = scan(false);
    assert!(
        truth
            .iter()
            .any(|l| l.starts_with("a ") && l.contains(" X. ")),
        "{truth:?}"
    );
    assert_eq!(scan(true), truth);
    assert_eq!(replays(), before + 2, "a changed file is not replayed");
    age_files(&cache, LATER);
    assert_eq!(scan(true), truth);
    assert_eq!(replays(), before + 3);
    // A symbolic link under the root: never replayed (links are followed
    // afresh), still the same result.
    tick();
    write_skill(&tmp.path().join("elsewhere/d"), "d", "D.", "body d");
    std::os::unix::fs::symlink(tmp.path().join("elsewhere"), root.join("link")).unwrap();
    let truth = scan(false);
    assert!(truth.iter().any(|l| l.starts_with("d ")), "{truth:?}");
    assert_eq!(scan(true), truth);
    age_files(&cache, LATER);
    assert_eq!(scan(true), truth);
    assert_eq!(scan(true), truth);
    assert_eq!(replays(), before + 3, "a root with a link is walked");
}

#[test]
fn a_big_root_is_replayed_on_two_threads_and_a_change_in_either_half_is_seen() {
    use crate::cache::{REPLAYS, REPLAY_SPLIT_AT};
    use crate::discover::scan_root;
    use crate::skill::Source;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("skills");
    let cache = tmp.path().join("cache");
    // A folder and a file record per skill: over the split threshold.
    let n = REPLAY_SPLIT_AT / 2 + 10;
    for i in 0..n {
        write_skill(
            &root.join(format!("g/s{i:03}")),
            &format!("s{i}"),
            "D.",
            "b",
        );
    }
    let replays = || REPLAYS.with(|c| c.get());
    let scan = |cached: bool| {
        let (skills, skipped) = scan_root(&root, &Source::Project, cached.then_some(&*cache));
        assert!(skipped.is_empty(), "{skipped:?}");
        skills
            .iter()
            .map(|s| format!("{} {:?} {}", s.name, s.aliases, s.description))
            .collect::<Vec<_>>()
    };
    let truth = scan(false);
    assert_eq!(truth.len(), n);
    assert_eq!(scan(true), truth);
    age_files(&cache, LATER);
    let before = replays();
    assert_eq!(scan(true), truth);
    assert_eq!(replays(), before + 1, "replayed");
    // An in-place edit in the first half (the caller's share of the
    // `stat`s), then in the last (the helper's): each is seen.
    for i in [1, n - 2] {
        tick();
        write_skill(
            &root.join(format!("g/s{i:03}")),
            &format!("s{i}"),
            "E.",
            "b",
        );
        let truth = scan(false);
        assert!(truth
            .iter()
            .any(|l| l.starts_with(&format!("s{i} ")) && l.ends_with(" E.")));
        let count = replays();
        assert_eq!(scan(true), truth, "edit of s{i}");
        assert_eq!(replays(), count, "edit of s{i} not replayed");
        age_files(&cache, LATER);
        assert_eq!(scan(true), truth);
        assert_eq!(replays(), count + 1);
    }
}

#[test]
fn a_json_cache_of_version_1_is_removed_when_its_root_is_written_again() {
    let w = World::new();
    write_skill(&w.roots()[0].join("alpha"), "alpha", "first", "A");
    fs::create_dir_all(&w.cache).unwrap();
    // What version 1 left: `<same hash>.json` per root, and a stranger.
    let legacy: Vec<PathBuf> = w
        .roots()
        .iter()
        .map(|r| {
            w.cache
                .join(crate::cache::file_name(r))
                .with_extension("json")
        })
        .collect();
    for p in &legacy {
        fs::write(p, "{\"version\":1}").unwrap();
    }
    fs::write(w.cache.join("notes.json"), "mine").unwrap();
    let set = w.discover(true);
    assert!(view(&set).iter().any(|s| s.contains("alpha")));
    // The root that has skills got its new file, and its old one is gone.
    assert!(w
        .cache
        .join(crate::cache::file_name(&w.roots()[0]))
        .exists());
    assert!(!legacy[0].exists());
    // Anything else in the directory is left alone.
    assert!(w.cache.join("notes.json").exists());
}
