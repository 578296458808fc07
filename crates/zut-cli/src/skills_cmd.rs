//! `zut skills`: every skill zut would use here, with its source and path,
//! and every skipped one with why (sessions-themes-skills.md §3).
//!
//! Extension-bundled skills come from the manifests of the extensions that
//! would load (enabled, valid, first of their name), read without starting
//! any extension process.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use zut_ext_host::discovery::{discover, plan, DiscoveryOptions};
use zut_ext_host::{Planned, ZutHome};
use zut_skills::{BundledSkills, DiscoverOptions, SkillSet};

/// Usage line.
pub const USAGE: &str = "usage: zut skills [--cwd PATH] [--ext DIR]... [--no-ext]";

/// Runs `zut skills <args>`; returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    crate::stdio::exit_code(run_inner(argv))
}

fn run_inner(argv: &[String]) -> anyhow::Result<i32> {
    let here = std::env::current_dir().map_err(|e| anyhow::anyhow!("working directory: {e}"))?;
    let mut cwd = here.clone();
    let mut ext = Vec::new();
    let mut no_ext = false;
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" | "help" => {
                crate::stdio::line(USAGE);
                crate::stdio::line("lists the skills zut finds (project, $ZUT_HOME, .claude, .agents, ZUT_AGENT_SKILLS, extensions) and the ones skipped");
                return Ok(0);
            }
            "--cwd" => {
                let v = crate::stdio::flag_value(&mut it, "--cwd")?;
                cwd = here.join(v);
            }
            "-e" | "--ext" => {
                let v = crate::stdio::flag_value(&mut it, "--ext")?;
                ext.push(here.join(v));
            }
            "--no-ext" | "--no-extensions" => no_ext = true,
            other => anyhow::bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let cwd = cwd
        .canonicalize()
        .map_err(|e| anyhow::anyhow!("--cwd {}: {e}", cwd.display()))?;
    let home = ZutHome::from_env();
    let home = if home.root().is_absolute() {
        home
    } else {
        ZutHome::new(here.join(home.root()))
    };
    let bundled = bundled_from_manifests(&cwd, &home, ext, no_ext);
    let opts = DiscoverOptions::from_env(&cwd, home.root());
    let set = SkillSet::discover(&opts, &bundled, &zut_skills::builtin_skills());
    crate::stdio::text(&render(&set, &opts));
    Ok(0)
}

/// The checked `SKILL.md` files of every extension that would load.
pub fn bundled_from_manifests(
    cwd: &Path,
    home: &ZutHome,
    ext_paths: Vec<PathBuf>,
    no_ext: bool,
) -> Vec<BundledSkills> {
    let found = discover(&DiscoveryOptions {
        cwd: cwd.to_path_buf(),
        home: home.clone(),
        ext_paths,
        no_ext,
    });
    plan(&found.candidates)
        .into_iter()
        .filter_map(|p| match p {
            Planned::Load(c, m) => {
                let files = m.bundled_skills(&c.dir).files;
                (!files.is_empty()).then_some(BundledSkills {
                    extension: m.name,
                    files,
                })
            }
            _ => None,
        })
        .collect()
}

/// The listing printed by `zut skills`.
pub fn render(set: &SkillSet, opts: &DiscoverOptions) -> String {
    let mut out = String::new();
    let visible: Vec<_> = set.visible().collect();
    if visible.is_empty() {
        out.push_str("no skills found; searched:\n");
        for (root, source) in opts.roots() {
            let _ = writeln!(out, "  {} ({})", root.display(), source.label());
        }
        out.push_str("  and the skills of loaded extensions (manifest `skills`)\n");
    }
    for s in visible {
        let _ = writeln!(
            out,
            "{} [{}] {}",
            s.name,
            s.source.label(),
            s.path.display()
        );
        let _ = writeln!(out, "  {}", s.description_or_placeholder());
        if !s.aliases.is_empty() {
            let _ = writeln!(out, "  aliases: {}", s.aliases.join(", "));
        }
        if s.disable_model_invocation {
            out.push_str("  not listed to the model (disable-model-invocation); use /skill:");
            let _ = writeln!(out, "{}", s.name);
        }
    }
    if !set.skipped().is_empty() {
        out.push_str("skipped:\n");
        for k in set.skipped() {
            let _ = writeln!(
                out,
                "  {} [{}]: {}",
                k.path.display(),
                k.source.label(),
                k.reason
            );
        }
    }
    out
}
