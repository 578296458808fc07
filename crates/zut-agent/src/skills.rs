//! Skills as the model and the user meet them (sessions-themes-skills.md
//! §3.5): the `skill` tool, the system-prompt listing and `/skill:<name>
//! [request]` expansion. Discovery and merging are `zut-skills`; this module
//! feeds it the loaded extensions' bundled files and turns the result into
//! tool output and prompt text.
//!
//! The set is rebuilt at the start of every prompt (so `/reload-ext` and
//! edits to `SKILL.md` files are seen by the next prompt) unless skills are
//! off (`--no-skill`: no listing, no tool, `/skill:` refused).

use std::path::Path;

use serde_json::{json, Value};
use zut_ext_host::ExtensionHost;
use zut_skills::{BundledSkills, DiscoverOptions, Skill, SkillSet, Source};

use crate::config::AgentConfig;

/// The tool's name.
pub const SKILL_TOOL: &str = "skill";

/// The tool's description.
pub const SKILL_TOOL_DESCRIPTION: &str = "Load a skill: returns the full instructions of the \
named skill (see the skill list in the system prompt). Call it before doing a task a listed \
skill covers.";

/// The tool's input schema.
pub fn skill_tool_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name (or its path alias)."}
        },
        "required": ["name"]
    })
}

/// The bundled skills of the host's loaded extensions.
pub fn bundled_from_host(host: &ExtensionHost) -> Vec<BundledSkills> {
    host.reports()
        .into_iter()
        .filter(|r| !r.skill_files.is_empty())
        .map(|r| BundledSkills {
            extension: r.name,
            files: r.skill_files,
        })
        .collect()
}

/// Discovers the skill set for `config` (empty when skills are off).
pub fn load(config: &AgentConfig, host: Option<&ExtensionHost>) -> SkillSet {
    if !config.skills {
        return SkillSet::empty();
    }
    let opts = DiscoverOptions::from_env(&config.cwd, &config.system.zut_home);
    let bundled = host.map(bundled_from_host).unwrap_or_default();
    let builtins = zut_skills::builtin_skills();
    let early = PREFETCH
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .and_then(|p| p.take(&opts));
    match early {
        Some(scans) => SkillSet::from_scans(scans, &bundled, &builtins),
        None => SkillSet::discover(&opts, &bundled, &builtins),
    }
}

/// The scan [`prefetch`] started, taken by the next [`load`].
static PREFETCH: std::sync::Mutex<Option<zut_skills::prefetch::Prefetch>> =
    std::sync::Mutex::new(None);

/// Starts scanning the user roots for `config` on a thread now (a front
/// end calls it as soon as it knows its configuration), so the first
/// [`load`] — within [`zut_skills::prefetch::MAX_AGE`], with the same
/// options — takes the result instead of scanning while the user waits.
/// Extension-bundled skills are still read by `load`. Nothing when skills
/// are off; nothing new when a scan for the same options is already
/// running ([`prefetch_early`]).
pub fn prefetch(config: &AgentConfig) {
    if !config.skills {
        return;
    }
    prefetch_early(&config.cwd, &config.system.zut_home);
}

/// [`prefetch`] from the working directory and `$ZUT_HOME` alone, for a
/// front end that can guess them before it has read its flags and files
/// (the CLI's first instruction): a guess that turns out wrong (another
/// `--cwd`, `--no-skill`) only costs the scan, since [`load`] takes a
/// prefetched scan only when it was made for its own options.
pub fn prefetch_early(cwd: &Path, zut_home: &Path) {
    let opts = DiscoverOptions::from_env(cwd, zut_home);
    let mut slot = PREFETCH.lock().unwrap_or_else(|e| e.into_inner());
    if slot.as_ref().is_some_and(|p| p.serves(&opts)) {
        return;
    }
    *slot = zut_skills::prefetch::Prefetch::start(opts);
}

/// Waits for a prefetched scan that no prompt took (a run that ended
/// before its first prompt, e.g. on a bad flag or configuration file), so
/// that the process does not exit while the scan is writing its cache.
/// Nothing when there is none.
pub fn settle_prefetch() {
    let pending = PREFETCH.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(p) = pending {
        p.wait();
    }
}

/// The system-prompt addendum: one instruction line, then `- <name>
/// [<pointer>]: <description>` per skill the model may invoke; `None` when
/// there is none.
pub fn listing(set: &SkillSet, user_home: Option<&Path>) -> Option<String> {
    let user_home = user_home.filter(|h| !h.as_os_str().is_empty());
    let mut out = String::from(
        "Skills: call the `skill` tool with a skill's name to load its full instructions \
         before doing a task it covers.",
    );
    let head = out.len();
    // One buffer for the whole listing (it is rebuilt at every prompt and
    // holds a line per skill).
    out.reserve(set.skills().len() * 96);
    for s in set.for_model() {
        out.push_str("\n- ");
        out.push_str(&s.name);
        out.push_str(" [");
        push_pointer(&mut out, s, user_home);
        out.push_str("]: ");
        out.push_str(s.description_or_placeholder());
    }
    (out.len() > head).then_some(out)
}

/// Appends `builtin`, or the `SKILL.md` path with the home directory
/// shortened to `~`.
fn push_pointer(out: &mut String, s: &Skill, user_home: Option<&Path>) {
    use std::fmt::Write as _;
    if s.source == Source::Builtin {
        out.push_str("builtin");
        return;
    }
    if let Some(rest) = user_home.and_then(|home| under_home(&s.path, home)) {
        let _ = write!(out, "~/{}", rest.display());
        return;
    }
    let _ = write!(out, "{}", s.path.display());
}

/// `path` relative to `home` when it lies under it ([`Path::strip_prefix`],
/// with a byte comparison first: that one walks components and costs more
/// than the rest of a listing line).
fn under_home<'p>(path: &'p Path, home: &Path) -> Option<&'p Path> {
    let (p, h) = (
        path.as_os_str().as_encoded_bytes(),
        home.as_os_str().as_encoded_bytes(),
    );
    let h = &h[..h.len() - h.iter().rev().take_while(|&&b| b == b'/').count()];
    // A home spelled plainly (no `//`, `/./` or `/..`) can only be a
    // component prefix of `path` if it is a byte prefix followed by `/`.
    let plain = !h.is_empty()
        && !h.windows(2).any(|w| w == b"//")
        && !h.split(|&b| b == b'/').any(|c| c == b"." || c == b"..");
    if plain && p != h {
        if !(p.starts_with(h) && p.get(h.len()) == Some(&b'/')) {
            return None;
        }
        if let Some(rest) = path.to_str().and_then(|s| s.get(h.len() + 1..)) {
            if !rest.split('/').any(|c| c == "." || c == "..") {
                return Some(Path::new(rest.trim_start_matches('/')));
            }
        }
    }
    path.strip_prefix(home).ok()
}

/// Runs the `skill` tool: `(is_error, text)`.
pub fn run_tool(set: &SkillSet, args: &Value) -> (bool, String) {
    let name = args
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim();
    match set.get(name) {
        Some(skill) => match zut_skills::expand_invocation(skill, "") {
            Ok(text) => (false, text),
            Err(why) => (true, why),
        },
        None => {
            let known: Vec<&str> = set.for_model().map(|s| s.name.as_str()).collect();
            let list = if known.is_empty() {
                "no skills are available".to_string()
            } else {
                format!("available skills: {}", known.join(", "))
            };
            (true, format!("unknown skill {name:?}; {list}"))
        }
    }
}

/// `/skill:<name> [request]` split into name and request (`None` when the
/// text is not a skill invocation). The prefix is matched
/// case-insensitively; the name keeps its case and may contain `/`.
pub fn parse_command(text: &str) -> Option<(String, String)> {
    let t = text.trim_start();
    let head = t.get(..7)?;
    if !head.eq_ignore_ascii_case("/skill:") {
        return None;
    }
    let rest = &t[7..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    Some((rest[..end].to_string(), rest[end..].trim().to_string()))
}

/// Expands a `/skill:<name> [request]` text into the user message to send:
/// `None` when `text` is no skill invocation, `Some(Err(why))` when it
/// cannot be served (skills off, unknown name). Front ends (print, stream,
/// JSON, RPC `command`, TUI) all go through this.
pub fn expand_command(set: Option<&SkillSet>, text: &str) -> Option<Result<String, String>> {
    let (name, request) = parse_command(text)?;
    let Some(set) = set else {
        return Some(Err(format!(
            "/skill:{name}: skills are disabled (--no-skill)"
        )));
    };
    if name.is_empty() {
        return Some(Err("/skill: needs a skill name, e.g. /skill:review".into()));
    }
    Some(match set.get(&name) {
        Some(skill) => zut_skills::expand_invocation(skill, &request),
        None => {
            let known: Vec<&str> = set.visible().map(|s| s.name.as_str()).collect();
            let hint = if known.is_empty() {
                "no skills are installed".to_string()
            } else {
                format!("skills: {}", known.join(", "))
            };
            Err(format!("unknown skill {name:?} ({hint})"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_parsing() {
        assert_eq!(
            parse_command("  /Skill:Review  check the diff\nplease "),
            Some(("Review".into(), "check the diff\nplease".into()))
        );
        assert_eq!(
            parse_command("/skill:a/b/c"),
            Some(("a/b/c".into(), "".into()))
        );
        assert_eq!(parse_command("/skills"), None);
        assert_eq!(parse_command("/ski"), None);
        assert_eq!(parse_command("/héllo wörld"), None);
        assert!(
            matches!(expand_command(None, "/skill:x"), Some(Err(e)) if e.contains("--no-skill"))
        );
        let empty = SkillSet::empty();
        assert!(
            matches!(expand_command(Some(&empty), "/skill:x"), Some(Err(e)) if e.contains("unknown skill \"x\""))
        );
        assert_eq!(expand_command(Some(&empty), "hello"), None);
    }

    #[test]
    fn home_shortening_matches_strip_prefix() {
        let cases = [
            ("/home/u/.agents/skills/a/SKILL.md", "/home/u"),
            ("/home/u/.agents/skills/a/SKILL.md", "/home/u/"),
            ("/home/u/.agents/skills/a/SKILL.md", "/home/u//"),
            ("/home/u2/x/SKILL.md", "/home/u"),
            ("/home/u/x/SKILL.md", "/home//u"),
            ("/home/u/x/SKILL.md", "/home/./u"),
            ("/srv/p/.zut/skills/a/SKILL.md", "/home/u"),
            ("/home/u", "/home/u"),
            ("/home/u/x", "/"),
            ("/home/u/./x/SKILL.md", "/home/u"),
        ];
        for (path, home) in cases {
            let (path, home) = (Path::new(path), Path::new(home));
            assert_eq!(
                under_home(path, home).map(|p| p.display().to_string()),
                path.strip_prefix(home)
                    .ok()
                    .map(|p| p.display().to_string()),
                "{path:?} under {home:?}"
            );
        }
    }

    #[test]
    fn listing_and_tool() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join(".agents/skills/rev");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("SKILL.md"),
            "---\ndescription: Reviews.\n---\nBODY",
        )
        .unwrap();
        let hidden = home.path().join(".agents/skills/hid");
        std::fs::create_dir_all(&hidden).unwrap();
        std::fs::write(
            hidden.join("SKILL.md"),
            "---\ndisable-model-invocation: true\n---\nH",
        )
        .unwrap();
        let opts = DiscoverOptions {
            cwd: home.path().join("nowhere"),
            zut_home: home.path().join("zh"),
            user_home: Some(home.path().into()),
            agent_dirs: vec![],
            cache_dir: None,
        };
        let builtins = vec![Skill::builtin("bi", "x")];
        let set = SkillSet::discover(&opts, &[], &builtins);
        let text = listing(&set, Some(home.path())).unwrap();
        assert_eq!(
            text.lines().skip(1).collect::<Vec<_>>(),
            vec![
                "- bi [builtin]: (no description)",
                "- rev [~/.agents/skills/rev/SKILL.md]: Reviews.",
            ]
        );
        let (err, body) = run_tool(&set, &json!({"name": "rev"}));
        assert!(!err);
        assert!(body.contains("BODY"), "{body}");
        let (err, body) = run_tool(&set, &json!({"name": "hid"}));
        assert!(!err, "hidden skills are still loadable: {body}");
        let (err, body) = run_tool(&set, &json!({"name": "nope"}));
        assert!(err);
        assert_eq!(body, "unknown skill \"nope\"; available skills: bi, rev");
        assert!(listing(&SkillSet::empty(), None).is_none());
    }
}
