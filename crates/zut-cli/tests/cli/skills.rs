//! Skills end to end (sessions-themes-skills.md §3, conformance N1–N6): the
//! real `zut` binary, a real local LLM server, real skill folders and real
//! (theme-only, so process-free) extensions bundling skills.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};

/// Writes `<dir>/SKILL.md`.
fn skill(dir: &Path, front: &str, body: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join("SKILL.md");
    std::fs::write(&p, format!("---\n{front}\n---\n{body}\n")).unwrap();
    p
}

/// A user home for the run (so the machine's own `~/.claude/skills` stay out).
fn user_home(env: &TestEnv) -> PathBuf {
    let h = env.home.parent().unwrap().join("user");
    std::fs::create_dir_all(&h).unwrap();
    h
}

/// A theme-only extension named `name` in the global scope bundling
/// `skills` (loads without a process).
fn bundle(env: &TestEnv, name: &str, skills: Value) -> PathBuf {
    let dir = env.global_dir(name);
    write_manifest(&dir, &json!({"name": name, "skills": skills}));
    std::fs::write(dir.join("theme.json"), "{}").unwrap();
    dir
}

fn cmd(env: &TestEnv, args: &[&str]) -> std::process::Command {
    let mut c = zut_cmd(env, args);
    c.env("HOME", user_home(env))
        .env_remove("ZUT_AGENT_SKILLS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

async fn run_llm(env: &TestEnv, server: &LlmServer, args: &[&str]) -> Run {
    let mut c = llm_cmd(env, &server.url(), args);
    c.env("HOME", user_home(env)).env_remove("ZUT_AGENT_SKILLS");
    output_blocking(c).await
}

fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["name"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn model_loads_a_skill_with_the_skill_tool() {
    let env = TestEnv::new();
    let path = skill(
        &env.project.join(".zut/skills/review"),
        "name: review\ndescription: Review a change carefully.",
        "REVIEW-BODY: read the diff twice.",
    );
    skill(
        &env.home.join("skills/manual"),
        "description: manual only\ndisable-model-invocation: true",
        "MANUAL",
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_tool_call(
        "call_1",
        "skill",
        r#"{"name":"review"}"#,
    ));
    server.push(Script::anthropic_text("Reviewed."));
    let r = run_llm(&env, &server, &["-p", "review my change"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Reviewed.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    // The first request lists the skill in the system prompt and offers the tool.
    let system = reqs[0].body["system"].to_string();
    assert!(
        system.contains(&format!(
            "- review [{}]: Review a change carefully.",
            path.display()
        )),
        "{system}"
    );
    assert!(system.contains("call the `skill` tool"), "{system}");
    assert!(
        !system.contains("manual"),
        "hidden from the model: {system}"
    );
    assert!(offered_tools(&reqs[0].body).contains(&"skill".to_string()));
    // The second request carries the body as the tool result.
    let second = reqs[1].body["messages"].to_string();
    assert!(
        second.contains("REVIEW-BODY: read the diff twice."),
        "{second}"
    );
    assert!(!reqs[0].raw_body.contains("REVIEW-BODY"));
}

#[tokio::test]
async fn slash_skill_expands_into_the_user_message() {
    // N6: a `disable-model-invocation` skill is still usable via /skill:.
    let env = TestEnv::new();
    let dir = env.home.join("skills/deploy");
    skill(
        &dir,
        "description: Deploys.\ndisable-model-invocation: true",
        "DEPLOY-STEPS: see ./checklist.md",
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    server.push(Script::anthropic_text("ok"));
    let r = run_llm(&env, &server, &["-p", "/skill:deploy to staging now"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let user = reqs_user_text(&server.requests()[0].body);
    assert!(user.contains("DEPLOY-STEPS: see ./checklist.md"), "{user}");
    assert!(user.contains(&dir.display().to_string()), "{user}");
    assert!(user.contains("to staging now"), "{user}");
    // JSON mode goes through the same expansion.
    let r = run_llm(&env, &server, &["--json", "/skill:deploy"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let first: Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["type"], "user_message");
    assert!(first["content"].to_string().contains("DEPLOY-STEPS"));
    // An unknown skill fails without a model call.
    let before = server.request_count();
    let r = run_llm(&env, &server, &["-p", "/skill:nope"]).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("unknown skill \"nope\" (skills: deploy)"),
        "{r:?}"
    );
    assert_eq!(server.request_count(), before);
}

fn reqs_user_text(body: &Value) -> String {
    body["messages"][0]["content"].to_string()
}

#[tokio::test]
async fn no_skill_turns_everything_off() {
    // N5: no bundled skills, no `skill` tool, no listing, `/skill:` refused.
    let env = TestEnv::new();
    skill(&env.home.join("skills/review"), "description: R", "B");
    let ext = bundle(&env, "bundle", json!(["skills"]));
    skill(&ext.join("skills/phases"), "description: Phases.", "P");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let r = run_llm(&env, &server, &["--no-skill", "-p", "hi"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let req = &server.requests()[0];
    assert!(!offered_tools(&req.body).contains(&"skill".to_string()));
    assert!(!req.raw_body.contains("review"), "{}", req.raw_body);
    assert!(!req.raw_body.contains("phases"));
    let r = run_llm(&env, &server, &["--no-skills", "-p", "/skill:review"]).await;
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("skills are disabled (--no-skill)"),
        "{r:?}"
    );
}

#[tokio::test]
async fn bundled_skills_reach_the_model_and_zut_skills() {
    // N1 and N3 through the real binary.
    let env = TestEnv::new();
    let ext = bundle(&env, "bundle", json!(["skills", "single"]));
    let phases = skill(&ext.join("skills/phases"), "description: Phases.", "P");
    let single = skill(&ext.join("single"), "name: solo\ndescription: One.", "S");
    // Children of a directory holding SKILL.md are not scanned.
    skill(&ext.join("single/child"), "description: zzneverlisted", "C");
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let r = run_llm(&env, &server, &["-p", "hi"]).await;
    assert_eq!(r.code, 0, "{r:?}");
    let system = server.requests()[0].body["system"].to_string();
    assert!(
        system.contains(&format!("- phases [{}]: Phases.", phases.display())),
        "{system}"
    );
    assert!(
        system.contains(&format!("- solo [{}]: One.", single.display())),
        "{system}"
    );
    assert!(!system.contains("zzneverlisted"), "{system}");

    let out = cmd(&env, &["skills"]).output().unwrap();
    let r = Run::from(out);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains(&format!(
            "phases [extension bundle] {}\n  Phases.\n",
            phases.display()
        )),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("solo [extension bundle]"), "{}", r.stdout);
    assert!(!r.stdout.contains("child"), "{}", r.stdout);
}

#[test]
fn zut_skills_lists_sources_and_skipped_ones() {
    let env = TestEnv::new();
    let user = user_home(&env);
    let project = skill(
        &env.project.join(".zut/skills/review"),
        "description: project one",
        "P",
    );
    let global = skill(
        &env.home.join("skills/review"),
        "description: global one",
        "G",
    );
    let claude = skill(&user.join(".claude/skills/tidy"), "", "T");
    std::fs::create_dir_all(env.home.join("skills/blob")).unwrap();
    std::fs::write(env.home.join("skills/blob/SKILL.md"), b"\x00\x01\x02").unwrap();
    let agent_root = env.home.parent().unwrap().join("agent-skills");
    skill(&agent_root.join("first"), "description: from env", "A");
    let r = Run::from(
        cmd(&env, &["skills"])
            .env("ZUT_AGENT_SKILLS", &agent_root)
            .output()
            .unwrap(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    let want = format!(
        "first [agent] {}\n  from env\n\
         review [project] {}\n  project one\n\
         tidy [global (claude)] {}\n  (no description)\n\
         skipped:\n",
        agent_root.join("first/SKILL.md").display(),
        project.display(),
        claude.display(),
    );
    assert!(r.stdout.starts_with(&want), "{}\n---\n{want}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "  {} [global]: name \"review\" is already taken by the project skill at {}\n",
            global.display(),
            project.display()
        )),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("blob/SKILL.md [global]: not a text file (binary or not UTF-8)"),
        "{}",
        r.stdout
    );
    let r = zut(&env, &["skills", "--bogus"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("unknown argument \"--bogus\""), "{r:?}");
}

#[test]
fn doctor_shows_bundled_skills_and_rejects_escaping_paths() {
    // N2: `../outside`, "", an absolute path and a SKILL.md symlinked outside
    // are rejected with warnings naming the path; the extension still loads.
    let env = TestEnv::new();
    let outside = env.home.parent().unwrap().join("outside");
    skill(&outside.join("evil"), "description: evil", "E");
    let ext = bundle(
        &env,
        "bundle",
        json!([
            "skills",
            "../outside",
            "",
            outside.display().to_string(),
            "linked"
        ]),
    );
    let good = skill(&ext.join("skills/phases"), "description: Phases.", "P");
    std::fs::create_dir_all(ext.join("linked/evil")).unwrap();
    std::os::unix::fs::symlink(
        outside.join("evil/SKILL.md"),
        ext.join("linked/evil/SKILL.md"),
    )
    .unwrap();
    let r = zut(&env, &["ext", "doctor"]);
    assert_eq!(r.code, 0, "{r:?}");
    let b = &r.stdout;
    assert!(b.contains("bundle [global] theme-only"), "{b}");
    assert!(
        b.contains(&format!("  skills:\n    phases ({})\n", good.display())),
        "{b}"
    );
    for w in [
        "  warning: skill: skill path \"../outside\" escapes the extension directory\n".to_string(),
        "  warning: skill: skill path \"\" must be a relative directory\n".to_string(),
        format!(
            "  warning: skill: skill path {:?} must be a relative directory\n",
            outside.display().to_string()
        ),
        format!(
            "  warning: skill: {}: resolved path escapes bundled extension directory\n",
            ext.join("linked/evil/SKILL.md").display()
        ),
    ] {
        assert!(b.contains(&w), "want {w:?} in\n{b}");
    }
    // Only the safe skill reaches the skill set.
    let r = Run::from(cmd(&env, &["skills"]).output().unwrap());
    assert!(
        r.stdout.contains("phases [extension bundle]"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("evil"), "{}", r.stdout);
}

/// The CLI starts scanning the skill roots before it parses its flags: a
/// run that then fails on a bad flag or a broken `config.json` still lets
/// the scan finish, so the cache holds whole files and no temporary one.
#[test]
fn a_run_ending_before_its_prompt_leaves_a_whole_skill_cache() {
    let env = TestEnv::new();
    skill(&env.project.join(".zut/skills/early"), "name: early", "E");
    let cache = env.home.join("cache/skills");
    let bad_flag = cmd(&env, &["-p", "--no-ext", "--no-such-flag", "hi"])
        .output()
        .unwrap();
    assert_eq!(bad_flag.status.code(), Some(1));
    std::fs::write(env.home.join("config.json"), "{ not json").unwrap();
    let bad_config = cmd(&env, &["-p", "--no-ext", "hi"]).output().unwrap();
    assert_ne!(bad_config.status.code(), Some(0));
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.is_empty(), "the early scan wrote its cache");
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".bin") && !n.starts_with('.')),
        "only whole cache files: {names:?}"
    );
    // And the cache it wrote serves the next run.
    std::fs::remove_file(env.home.join("config.json")).unwrap();
    let skills = cmd(&env, &["skills"]).output().unwrap();
    let skills = String::from_utf8_lossy(&skills.stdout);
    assert!(skills.contains("early"), "{skills}");
}
