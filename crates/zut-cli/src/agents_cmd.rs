//! `zut agents list|show NAME`: the subagent profiles zut finds here
//! (`zut_agent::subagent::profiles`), with the files it could not use and
//! why.

use std::fmt::Write as _;
use std::path::PathBuf;

use zut_agent::subagent::profiles::{self, Profile, ProfileSet, PromptMode};

/// Usage line.
pub const USAGE: &str = "usage: zut agents [list | show NAME] [--cwd PATH]";

/// Runs `zut agents <args>`; returns the exit status.
pub fn run(argv: &[String]) -> i32 {
    crate::stdio::exit_code(run_inner(argv))
}

fn run_inner(argv: &[String]) -> anyhow::Result<i32> {
    let here = std::env::current_dir().map_err(|e| anyhow::anyhow!("working directory: {e}"))?;
    let mut cwd = here.clone();
    let mut words: Vec<&str> = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" | "help" => {
                crate::stdio::line(USAGE);
                crate::stdio::line("lists the subagent profiles (ZUT_AGENT_PROFILES, .agents/agents, .claude/agents, ~/.agents/agents, ~/.pi/agent/agents, ~/.claude/agents) and the files skipped");
                return Ok(0);
            }
            "--cwd" => {
                let v = crate::stdio::flag_value(&mut it, "--cwd")?;
                cwd = here.join(v);
            }
            other if other.starts_with('-') => anyhow::bail!("unknown argument {other:?}\n{USAGE}"),
            other => words.push(other),
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let set = profiles::discover(&cwd, home.as_deref());
    match words.as_slice() {
        [] | ["list"] => {
            crate::stdio::text(&render_list(&set, &cwd, home.as_deref()));
            Ok(0)
        }
        ["show", name] => match set.get(name) {
            Some(p) => {
                crate::stdio::text(&render_show(p));
                Ok(0)
            }
            None => {
                let bad: Vec<String> = set
                    .bad
                    .iter()
                    .filter(|b| b.path.file_stem().and_then(|s| s.to_str()) == Some(name))
                    .map(|b| format!("\n  {}: {}", b.path.display(), b.reason))
                    .collect();
                anyhow::bail!("no subagent profile named {name:?}{}", bad.concat())
            }
        },
        _ => anyhow::bail!("unknown arguments {words:?}\n{USAGE}"),
    }
}

fn render_list(set: &ProfileSet, cwd: &std::path::Path, home: Option<&std::path::Path>) -> String {
    let mut out = String::new();
    if set.profiles.is_empty() {
        out.push_str("no subagent profiles found; searched:\n");
        for (dir, format) in profiles::search_dirs(cwd, home) {
            let _ = writeln!(out, "  {} ({})", dir.display(), format.as_str());
        }
    }
    for p in &set.profiles {
        let _ = writeln!(
            out,
            "{} [{}] {}",
            p.name,
            p.format.as_str(),
            p.path.display()
        );
        let desc = if p.description.is_empty() {
            "(no description)"
        } else {
            p.description.as_str()
        };
        let _ = writeln!(out, "  {desc}");
        for n in &p.notes {
            let _ = writeln!(out, "  note: {n}");
        }
    }
    if !set.bad.is_empty() {
        out.push_str("skipped:\n");
        for b in &set.bad {
            let _ = writeln!(out, "  {}: {}", b.path.display(), b.reason);
        }
    }
    for (name, path) in &set.shadowed {
        let _ = writeln!(
            out,
            "shadowed: {} ({name} is defined earlier)",
            path.display()
        );
    }
    out
}

fn render_show(p: &Profile) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "name: {}", p.name);
    let _ = writeln!(out, "file: {} ({})", p.path.display(), p.format.as_str());
    if !p.description.is_empty() {
        let _ = writeln!(out, "description: {}", p.description);
    }
    match &p.tools {
        None => out.push_str("tools: (inherited)\n"),
        Some(t) if t.is_empty() => out.push_str("tools: (none)\n"),
        Some(t) => {
            let _ = writeln!(out, "tools: {}", t.join(", "));
        }
    }
    if let Some(m) = &p.model {
        match &p.provider {
            Some(prov) => {
                let _ = writeln!(out, "model: {prov}/{m}");
            }
            None => {
                let _ = writeln!(out, "model: {m}");
            }
        }
    }
    if let Some(r) = p.reasoning {
        let _ = writeln!(out, "reasoning: {}", r.as_str());
    }
    if p.prompt_mode == PromptMode::Replace {
        out.push_str("system prompt mode: replace\n");
    }
    if !p.inherit_project_context {
        out.push_str("inherit project context: false\n");
    }
    if !p.inherit_skills {
        out.push_str("inherit skills: false\n");
    }
    if let Some(f) = p.fast_mode {
        let _ = writeln!(out, "fast mode: {f}");
    }
    if let Some(n) = p.max_turns {
        let _ = writeln!(out, "max turns: {n}");
    }
    if let Some(n) = p.timeout_secs {
        let _ = writeln!(out, "timeout: {n}s");
    }
    if p.sandbox != Default::default() {
        let _ = writeln!(out, "sandbox: {}", p.sandbox.as_str());
    }
    for n in &p.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out.push_str("---\n");
    out.push_str(&p.system_prompt);
    out.push('\n');
    out
}
