//! Skill discovery with 500 skills spread over the seven roots.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, Criterion};
use zut_skills::{DiscoverOptions, SkillSet};

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let cwd = tmp.path().join("proj");
    let home = tmp.path().join("home");
    let user = tmp.path().join("user");
    let agent = tmp.path().join("agent");
    let opts = DiscoverOptions {
        cwd: cwd.clone(),
        zut_home: home.clone(),
        user_home: Some(user.clone()),
        agent_dirs: vec![agent],
        cache_dir: None,
    };
    let roots: Vec<_> = opts.roots().into_iter().map(|(p, _)| p).collect();
    for i in 0..500 {
        let dir = roots[i % roots.len()].join(format!("group{}/skill-{i}", i % 5));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: skill-{i}\ndescription: Skill number {i}.\nallowed-tools: [read, bash]\n---\n{}",
                "Some instructions. ".repeat(50)
            ),
        )
        .unwrap();
    }
    c.bench_function("discover_500_skills_7_roots", |b| {
        b.iter(|| {
            let set = SkillSet::discover(&opts, &[], &[]);
            assert_eq!(set.skills().len(), 500);
        })
    });
    // With the discovery cache, nothing changed since it was written: the
    // files must be older than the racy window (2 s) to be trusted, as
    // they are on a real start.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let cached = DiscoverOptions {
        cache_dir: Some(tmp.path().join("cache")),
        ..opts.clone()
    };
    assert_eq!(SkillSet::discover(&cached, &[], &[]).skills().len(), 500);
    c.bench_function("discover_500_skills_7_roots_cached", |b| {
        b.iter(|| {
            let set = SkillSet::discover(&cached, &[], &[]);
            assert_eq!(set.skills().len(), 500);
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
