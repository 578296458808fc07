//! Page fetches in a jailed session obey the jail's network setting
//! (`sandbox.network`): `"none"` refuses every page, a domain list admits
//! only its domains (also for redirect targets), `"any"` adds nothing;
//! unjailed calls are unaffected. Real jails (`zut_sandbox::Prepared`,
//! the domain list's proxy running) and a fixture server on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::{Fixture, Reply};
use serde_json::json;
use zut_sandbox::{JailSpec, Network, Policy, Prepared};
use zut_tools::ToolContext;
use zut_web::{AllowedHost, WebConfig, WebRuntime};

fn jail(network: Network) -> Arc<Prepared> {
    let dir = std::env::temp_dir();
    let spec = JailSpec {
        cwd: dir,
        network,
        ..JailSpec::default()
    };
    Arc::new(Prepared::new(Policy::jail(&spec)).unwrap())
}

#[tokio::test]
async fn jailed_page_fetches_follow_the_jail_network() {
    let site = Fixture::start(|path, _| match path {
        "/doc" => Reply::html("<main><p>jail test page</p></main>"),
        "/away" => Reply::redirect("http://localhost:1/doc"),
        _ => Reply::status(404, "text/plain", "no"),
    });
    let cfg = WebConfig {
        allow_hosts: vec![
            AllowedHost::parse("127.0.0.1").unwrap(),
            AllowedHost::parse("localhost").unwrap(),
        ],
        ..WebConfig::default()
    };
    let doc = site.url("/doc");
    let away = site.url("/away");
    let open = |url: &str| json!({"url": url});
    let text = |o: &zut_tools::ToolOutput| {
        o.content
            .iter()
            .map(|c| match c {
                zut_tools::ToolContent::Text(t) => t.clone(),
                _ => String::new(),
            })
            .collect::<String>()
    };
    let dir = std::env::temp_dir();

    // Not jailed: the allow-listed fixture is reachable.
    let rt = WebRuntime::new(cfg.clone());
    let out = rt
        .run("web_open", &open(&doc), &ToolContext::new(dir.clone()))
        .await;
    assert!(
        !out.is_error && text(&out).contains("jail test page"),
        "{}",
        text(&out)
    );

    // "none": refused before any connection.
    let rt = WebRuntime::new(cfg.clone());
    let before = site.requests().len();
    let ctx = ToolContext::new(dir.clone()).with_jail(Some(jail(Network::None)));
    let out = rt.run("web_open", &open(&doc), &ctx).await;
    assert!(out.is_error);
    assert!(
        text(&out).starts_with("web page: destination is not allowed: 127.0.0.1 is outside the jail's network (sandbox.network is \"none\")"),
        "{}",
        text(&out)
    );
    assert_eq!(site.requests().len(), before);

    // A domain list: its domains only, redirect targets included.
    let rt = WebRuntime::new(cfg.clone());
    let ctx = ToolContext::new(dir.clone())
        .with_jail(Some(jail(Network::Domains(vec!["127.0.0.1".into()]))));
    let out = rt.run("web_open", &open(&doc), &ctx).await;
    assert!(
        !out.is_error && text(&out).contains("jail test page"),
        "{}",
        text(&out)
    );
    let out = rt.run("web_open", &open(&away), &ctx).await;
    assert!(out.is_error);
    assert!(
        text(&out).contains("redirect to http://localhost:1/doc: localhost is outside the jail's network (sandbox.network allows only 127.0.0.1)"),
        "{}",
        text(&out)
    );

    // "any": the usual rules only.
    let rt = WebRuntime::new(cfg);
    let ctx = ToolContext::new(dir).with_jail(Some(jail(Network::Any)));
    let out = rt.run("web_open", &open(&doc), &ctx).await;
    assert!(
        !out.is_error && text(&out).contains("jail test page"),
        "{}",
        text(&out)
    );
}
