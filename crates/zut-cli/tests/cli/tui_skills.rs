//! `/skill:<alias>` in the interactive TUI end to end (real binary in
//! tmux, local LLM server): the popup lists the project's skills and an
//! alias with a slash expands into the skill's body.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;
use common::*;
use zut_llm_server::{LlmServer, Script};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_skill_alias_with_a_slash_is_invoked() {
    if !have_tmux() {
        return;
    }
    let env = TestEnv::new();
    let dir = env.project.join(".zut/skills/backend/gopher");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: gopher\ndescription: Go service patterns\n---\nAlways wrap errors with %w.\n",
    )
    .unwrap();
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("Wrapped."));
    let t = Tmux::start(&env, &server, &["--no-ext"], 90, 24);
    started(&t);
    t.typ("/skill:");
    let s = t.wait_for("/skill:backend/gopher", 10);
    assert!(s.contains("Go service patterns"), "{s}");
    t.typ("backend/gopher fix the handler");
    t.keys(&["Enter"]);
    t.wait_for("Wrapped.", 10);
    let body = &server.requests()[0].raw_body;
    assert!(
        body.contains("Always wrap errors with %w.") && body.contains("fix the handler"),
        "{body}"
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT:0", 5);
}
