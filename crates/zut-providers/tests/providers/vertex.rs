//! The Vertex AI wire (`google-vertex`): Gemini and Claude models, API
//! keys, service-account JWT exchange and gcloud application-default
//! credentials, against a local zut-llm-server (which also plays the
//! OAuth token endpoint).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::*;
use serde_json::{json, Value};
use zut_llm_server::{LlmServer, Script};
use zut_providers::{resolve, Provider, ProviderError, ProviderOptions};

const PRIVATE_KEY: &str = include_str!("../fixtures/vertex-test-key.pem");
const PUBLIC_KEY: &str = include_str!("../fixtures/vertex-test-key.pub.pem");

fn opts(server: &LlmServer, model: &str) -> ProviderOptions {
    ProviderOptions {
        provider: Some("google-vertex".into()),
        base_url: Some(server.url()),
        model: Some(model.into()),
        ..Default::default()
    }
}

fn env_with(vars: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
    move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
}

fn service_account(dir: &Path, token_uri: &str) -> String {
    let path = dir.join("sa.json");
    let file = json!({
        "type": "service_account",
        "project_id": "proj-from-file",
        "private_key_id": "kid-1",
        "private_key": PRIVATE_KEY,
        "client_email": "zut-test@proj.iam.gserviceaccount.com",
        "token_uri": token_uri,
    });
    std::fs::write(&path, file.to_string()).unwrap();
    path.display().to_string()
}

fn token(expires_in: u64) -> Script {
    Script::json(
        200,
        json!({"access_token": "ya29.test-token", "expires_in": expires_in, "token_type": "Bearer"})
            .to_string(),
    )
}

/// The form fields of a recorded `application/x-www-form-urlencoded` body.
fn form(raw: &str) -> Vec<(String, String)> {
    raw.split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), unescape(v)))
        .collect()
}

fn unescape(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() + 1 {
            out.push(u8::from_str_radix(&v[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn service_account_jwt_is_exchanged_once_and_the_token_cached() {
    let server = LlmServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let token_uri = format!("{}/token", server.url());
    let sa = service_account(dir.path(), &token_uri);
    let env = env_with(vec![
        ("GOOGLE_APPLICATION_CREDENTIALS", sa.clone()),
        ("GOOGLE_CLOUD_LOCATION", "europe-west4".into()),
    ]);
    let config = resolve(&opts(&server, "gemini-2.5-flash"), &env, dir.path()).unwrap();
    let provider = Provider::new(config).unwrap();
    server.push(token(3599));
    server.push(Script::gemini_text("one"));
    server.push(Script::gemini_text("two"));
    assert_eq!(
        run(&provider, &request("a"))
            .await
            .0
            .unwrap()
            .message
            .text(),
        "one"
    );
    assert_eq!(
        run(&provider, &request("b"))
            .await
            .0
            .unwrap()
            .message
            .text(),
        "two"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3, "one token exchange for two requests");
    let exchange = &requests[0];
    assert_eq!(exchange.path, "/token");
    assert_eq!(
        exchange.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    let fields = form(&exchange.raw_body);
    assert_eq!(
        fields[0],
        (
            "grant_type".into(),
            "urn:ietf:params:oauth:grant-type:jwt-bearer".into()
        )
    );
    let jwt = &fields[1].1;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::RS256);
    validation.set_audience(&[token_uri.as_str()]);
    let decoded = jsonwebtoken::decode::<Value>(
        jwt,
        &jsonwebtoken::DecodingKey::from_rsa_pem(PUBLIC_KEY.as_bytes()).unwrap(),
        &validation,
    )
    .expect("a JWT signed with the service account's key");
    assert_eq!(decoded.header.kid.as_deref(), Some("kid-1"));
    assert_eq!(
        decoded.claims["iss"],
        "zut-test@proj.iam.gserviceaccount.com"
    );
    assert_eq!(
        decoded.claims["scope"],
        "https://www.googleapis.com/auth/cloud-platform"
    );
    let lifetime =
        decoded.claims["exp"].as_u64().unwrap() - decoded.claims["iat"].as_u64().unwrap();
    assert_eq!(lifetime, 3600);

    for r in &requests[1..] {
        assert_eq!(
            r.path,
            "/v1/projects/proj-from-file/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(r.header("authorization"), Some("Bearer ya29.test-token"));
    }
}

#[tokio::test]
async fn a_token_about_to_expire_is_exchanged_again() {
    let server = LlmServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sa = service_account(dir.path(), &format!("{}/token", server.url()));
    let env = env_with(vec![
        ("GOOGLE_APPLICATION_CREDENTIALS", sa),
        ("GOOGLE_CLOUD_PROJECT", "proj-env".into()),
    ]);
    let provider =
        Provider::new(resolve(&opts(&server, "gemini-2.5-flash"), &env, dir.path()).unwrap())
            .unwrap();
    // 60 s left is inside the five-minute refresh margin.
    for text in ["one", "two"] {
        server.push(token(60));
        server.push(Script::gemini_text(text));
        assert_eq!(
            run(&provider, &request("x"))
                .await
                .0
                .unwrap()
                .message
                .text(),
            text
        );
    }
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths[0], "/token");
    assert_eq!(paths[2], "/token");
    assert!(paths[1].starts_with("/v1/projects/proj-env/locations/us-central1/"));
}

#[tokio::test]
async fn claude_on_vertex_uses_stream_raw_predict_and_the_anthropic_stream() {
    let server = LlmServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = env_with(vec![
        ("GOOGLE_CLOUD_API_KEY", "vertex-api-key-42".into()),
        ("GOOGLE_CLOUD_PROJECT", "p1".into()),
        ("GOOGLE_CLOUD_LOCATION", "global".into()),
    ]);
    let provider = Provider::new(
        resolve(
            &opts(&server, "claude-sonnet-4-5@20250929"),
            &env,
            dir.path(),
        )
        .unwrap(),
    )
    .unwrap();
    server.push(Script::anthropic_text("from claude"));
    let (result, _) = run(&provider, &request("hi")).await;
    assert_eq!(result.unwrap().message.text(), "from claude");
    let r = &server.requests()[0];
    assert_eq!(
        r.path,
        "/v1/projects/p1/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"
    );
    assert_eq!(r.header("x-goog-api-key"), Some("vertex-api-key-42"));
    assert_eq!(r.body["anthropic_version"], "vertex-2023-10-16");
    assert!(r.body.get("model").is_none());
    assert_eq!(r.body["messages"][0]["content"][0]["text"], "hi");
}

#[tokio::test]
async fn gcloud_application_default_credentials_refresh_token() {
    let server = LlmServer::start().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let gcloud = home.path().join(".config/gcloud");
    std::fs::create_dir_all(&gcloud).unwrap();
    std::fs::write(
        gcloud.join("application_default_credentials.json"),
        json!({
            "type": "authorized_user",
            "client_id": "cid.apps.googleusercontent.com",
            "client_secret": "csecret",
            "refresh_token": "1//refresh",
            "quota_project_id": "quota-proj",
            "token_uri": format!("{}/oauth/token", server.url()),
        })
        .to_string(),
    )
    .unwrap();
    let env = env_with(vec![("HOME", home.path().display().to_string())]);
    let provider =
        Provider::new(resolve(&opts(&server, "gemini-2.5-pro"), &env, home.path()).unwrap())
            .unwrap();
    server.push(token(3599));
    server.push(Script::gemini_text("adc ok"));
    assert_eq!(
        run(&provider, &request("x"))
            .await
            .0
            .unwrap()
            .message
            .text(),
        "adc ok"
    );
    let requests = server.requests();
    let fields = form(&requests[0].raw_body);
    assert!(fields.contains(&("grant_type".into(), "refresh_token".into())));
    assert!(fields.contains(&("refresh_token".into(), "1//refresh".into())));
    assert!(requests[1]
        .path
        .starts_with("/v1/projects/quota-proj/locations/us-central1/"));
}

#[tokio::test]
async fn rejected_credentials_name_the_file_and_variable() {
    let server = LlmServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sa = service_account(dir.path(), &format!("{}/token", server.url()));
    let env = env_with(vec![("GOOGLE_APPLICATION_CREDENTIALS", sa.clone())]);
    let provider =
        Provider::new(resolve(&opts(&server, "gemini-2.5-flash"), &env, dir.path()).unwrap())
            .unwrap();
    server.push(Script::json(
        400,
        json!({"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
            .to_string(),
    ));
    let err = run(&provider, &request("x")).await.0.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("invalid_grant: Invalid JWT Signature."),
        "{text}"
    );
    assert!(
        text.contains(&sa) && text.contains("GOOGLE_APPLICATION_CREDENTIALS"),
        "{text}"
    );
    assert!(!err.is_retryable());
    assert_eq!(
        server.request_count(),
        1,
        "the model endpoint was not called"
    );

    // Configuration errors name what to set.
    let err = resolve(&opts(&server, "m"), &env_with(vec![]), dir.path()).unwrap_err();
    assert!(err.to_string().contains("GOOGLE_CLOUD_API_KEY"), "{err}");
    let env = env_with(vec![("GOOGLE_CLOUD_API_KEY", "k".into())]);
    let err = resolve(&opts(&server, "m"), &env, dir.path()).unwrap_err();
    assert!(
        err.to_string().contains("set GOOGLE_CLOUD_PROJECT"),
        "{err}"
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"type":"service_account","client_email":"a@b","private_key":"nope"}"#,
    )
    .unwrap();
    let env = env_with(vec![(
        "GOOGLE_APPLICATION_CREDENTIALS",
        bad.display().to_string(),
    )]);
    let err = resolve(&opts(&server, "m"), &env, dir.path()).unwrap_err();
    assert!(
        matches!(&err, ProviderError::Config(m) if m.contains("private_key is not an RSA PEM key") && m.contains("bad.json")),
        "{err}"
    );
}
