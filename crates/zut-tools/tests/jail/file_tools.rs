//! read, write, edit and grep refuse paths outside the jail's scopes.

use serde_json::json;

use crate::env::*;

#[tokio::test]
async fn file_tools_refuse_outside_paths_with_the_rule() {
    let env = Env::new();
    let ctx = env.ctx_with(env.policy(zut_sandbox::Network::None));
    let key = env.home.join(".ssh/id_ed25519");
    let out = tool(&ctx, "read", json!({"path": key})).await;
    assert!(out.is_error);
    let t = out.text_content();
    assert!(!t.contains(SECRET_KEY), "{t}");
    assert!(
        t.contains("read of") && t.contains("denied by the jail (secret location"),
        "{t}"
    );

    let out = tool(
        &ctx,
        "read",
        json!({"path": env.zut_home.join("auth.json")}),
    )
    .await;
    assert!(out.is_error && !out.text_content().contains(SECRET_AUTH));

    let victim = env.outside.join("victim.txt");
    let out = tool(&ctx, "write", json!({"path": victim, "content": "x"})).await;
    assert!(out.is_error);
    let t = out.text_content();
    assert!(
        t.contains(&format!(
            "write to {} denied by the jail (writable: {}",
            victim.display(),
            env.ws.display()
        )),
        "{t}"
    );
    assert_eq!(read(&victim), "original\n");

    let out = tool(
        &ctx,
        "edit",
        json!({"path": victim, "edits": [{"oldText": "original", "newText": "changed"}]}),
    )
    .await;
    assert!(out.is_error, "{}", out.text_content());
    assert_eq!(read(&victim), "original\n");

    // `..` and a symlink in the workspace pointing out.
    let out = tool(
        &ctx,
        "write",
        json!({"path": "../outside/dotdot.txt", "content": "x"}),
    )
    .await;
    assert!(out.is_error && !env.outside.join("dotdot.txt").exists());
    std::os::unix::fs::symlink(&env.outside, env.ws.join("out")).unwrap();
    let out = tool(
        &ctx,
        "write",
        json!({"path": "out/via-link.txt", "content": "x"}),
    )
    .await;
    assert!(out.is_error && !env.outside.join("via-link.txt").exists());
    std::os::unix::fs::symlink(env.outside.join("nowhere"), env.ws.join("dangling")).unwrap();
    let out = tool(
        &ctx,
        "write",
        json!({"path": "dangling/x/../y.txt", "content": "x"}),
    )
    .await;
    assert!(out.is_error, "{}", out.text_content());

    // Inside: fine.
    let out = tool(&ctx, "write", json!({"path": "ok.txt", "content": "fine"})).await;
    assert!(!out.is_error, "{}", out.text_content());
    let out = tool(
        &ctx,
        "edit",
        json!({"path": "ok.txt", "edits": [{"oldText": "fine", "newText": "finer"}]}),
    )
    .await;
    assert!(!out.is_error, "{}", out.text_content());
    let out = tool(&ctx, "read", json!({"path": env.home.join("notes.txt")})).await;
    assert!(
        !out.is_error,
        "reads outside the workspace are allowed: {}",
        out.text_content()
    );

    // grep over $HOME with hidden files skips the secrets.
    let out = tool(
        &ctx,
        "grep",
        json!({"pattern": "FAKE", "path": env.home, "hidden": true}),
    )
    .await;
    let t = out.text_content();
    assert!(!t.contains(SECRET_KEY) && !t.contains(SECRET_AUTH), "{t}");
    let out = tool(
        &ctx,
        "grep",
        json!({"pattern": "x", "path": env.home.join(".ssh")}),
    )
    .await;
    assert!(out.is_error && out.text_content().contains("secret location"));
}
