//! Skills in the loop: an extension's bundled skill appears after the host
//! reloads and the agent rebuilds its skills (the `/reload-ext` path), and
//! an extension cannot claim the `skill` tool while skills are on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use serde_json::json;
use zut_llm_server::{LlmServer, Script};
use zut_test_support::{write_manifest, TestEnv};

#[tokio::test]
async fn bundled_skill_appears_after_reload() {
    let env = TestEnv::new();
    let ext = env.project.join("bundle-ext");
    write_manifest(&ext, &json!({"name": "bundle"}));
    std::fs::write(ext.join("theme.json"), "{}").unwrap();
    let (host, _ui) = start_host(&env, std::slice::from_ref(&ext)).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("one"));
    server.push(Script::anthropic_text("two"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    a.config_mut().skills = true;
    run(&mut a, "first").await;
    assert!(a.skills().get("phases").is_none());
    let first = server.requests()[0].body["system"].to_string();
    assert!(!first.contains("phases"));
    assert!(common::offered_tools(&server.requests()[0].body).contains(&"skill".to_string()));

    // The extension now bundles a skill; `/reload-ext` re-reads manifests.
    write_manifest(&ext, &json!({"name": "bundle", "skills": ["skills"]}));
    let dir = ext.join("skills/phases");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\ndescription: Work in phases.\n---\nPHASES",
    )
    .unwrap();
    let mut reloading = (*host).clone();
    let report = reloading.reload().await;
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let skill = a.reload_skills().get("phases").cloned().unwrap();
    assert_eq!(skill.source.label(), "extension bundle");
    run(&mut a, "second").await;
    let second = server.requests()[1].body["system"].to_string();
    assert!(second.contains("- phases ["), "{second}");
    assert!(second.contains("]: Work in phases."), "{second}");
    host.shutdown().await;
}

#[tokio::test]
async fn skills_off_by_default_for_embedders() {
    let env = TestEnv::new();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let mut a = agent(&env, &server, "anthropic", None);
    assert!(a.expand_skill_command("/skill:x").unwrap().is_err());
    run(&mut a, "hi").await;
    assert!(!common::offered_tools(&server.requests()[0].body).contains(&"skill".to_string()));
}

#[tokio::test]
async fn controller_runs_skill_commands_and_reload_rebuilds_skills() {
    use zut_agent::controller::{CommandOutcome, JobOutcome};
    let env = TestEnv::new();
    let dir = env.project.join(".zut/skills/Review");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\ndescription: R.\n---\nREVIEW-STEPS",
    )
    .unwrap();
    let ext = env.project.join("bundle-ext");
    write_manifest(&ext, &json!({"name": "bundle"}));
    std::fs::write(ext.join("theme.json"), "{}").unwrap();
    let (host, _ui) = start_host(&env, std::slice::from_ref(&ext)).await;
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("done"));
    let mut a = agent(&env, &server, "anthropic", Some(host.clone()));
    a.config_mut().skills = true;
    let (ctl, _stream) = zut_agent::Controller::new(a, None);
    let out = ctl
        .command("/skill:Review", "  the diff ", None)
        .await
        .unwrap();
    let CommandOutcome::Queued(job) = out else {
        panic!("not queued")
    };
    assert!(matches!(job.outcome().await, JobOutcome::Prompt(_)));
    let user = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(
        user.contains("REVIEW-STEPS") && user.contains("the diff"),
        "{user}"
    );
    let err = ctl.command("skill:nope", "", None).await.err().unwrap();
    assert!(err.contains("unknown skill \"nope\""), "{err}");

    // /reload-ext picks up a skill the extension now bundles.
    write_manifest(&ext, &json!({"name": "bundle", "skills": ["s"]}));
    std::fs::create_dir_all(ext.join("s/phases")).unwrap();
    std::fs::write(ext.join("s/phases/SKILL.md"), "PHASES-BODY").unwrap();
    let CommandOutcome::Queued(job) = ctl.command("reload-ext", "", None).await.unwrap() else {
        panic!("not queued")
    };
    job.outcome().await;
    server.push(Script::anthropic_text("ok"));
    let CommandOutcome::Queued(job) = ctl.command("skill:phases", "", None).await.unwrap() else {
        panic!("not queued")
    };
    job.outcome().await;
    assert!(server.requests()[1].raw_body.contains("PHASES-BODY"));
    host.shutdown().await;
}
