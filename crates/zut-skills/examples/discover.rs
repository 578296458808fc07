//! Discovers skills `N` times for a given tree and prints the count; wrap it
//! in `perf stat -e task-clock` to get the CPU time per discovery:
//!
//! `discover <cwd> <zut_home> <user_home> <agent_dir> <N>`
//!
//! The discovery cache is used as `zut` uses it (`$ZUT_HOME/cache/skills`)
//! unless `ZUT_SKILL_CACHE=off`.
use zut_skills::{DiscoverOptions, SkillSet};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 6 {
        eprintln!("usage: discover <cwd> <zut_home> <user_home> <agent_dir> <N>");
        std::process::exit(2);
    }
    let opts = DiscoverOptions {
        cwd: a[1].clone().into(),
        zut_home: a[2].clone().into(),
        user_home: Some(a[3].clone().into()),
        agent_dirs: vec![a[4].clone().into()],
        cache_dir: std::env::var("ZUT_SKILL_CACHE")
            .map_or(true, |v| v != "off")
            .then(|| std::path::Path::new(&a[2]).join(zut_skills::discover::CACHE_SUBDIR)),
    };
    let n: usize = a[5].parse().unwrap_or(1);
    let mut found = 0;
    for _ in 0..n {
        found = SkillSet::discover(&opts, &[], &[]).skills().len();
    }
    println!("{found} skills, {n} discoveries");
}
