//! Record-and-compare fixtures, one per wire: a stream written after the
//! providers' public documentation (`tests/fixtures/wire/<wire>.sse`, or
//! for Bedrock `bedrock.events`, one `eventType payload` line per
//! event-stream frame, encoded by zut-llm-server), served over real HTTP
//! by zut-llm-server, decoded by zut's parsers, and compared with
//! `<wire>.expected` (every stream event, then the assembled message, stop
//! reason and usage; the random part of the ids zut gives Gemini's calls
//! is masked). `ZUT_RECORD_FIXTURES=1` rewrites the expected files
//! instead; review their diff before committing it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::fmt::Write as _;
use std::path::PathBuf;

use common::*;
use zut_llm_server::{EventFrame, LlmServer, Script};
use zut_providers::{BedrockCredentials, CloudAuth, Provider, ProviderConfig, StreamEvent};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wire")
}

fn bedrock_provider(server: &LlmServer) -> Provider {
    let config = ProviderConfig::new(
        "amazon-bedrock",
        &server.url(),
        None,
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    )
    .unwrap()
    .with_retry(fast_retry(1))
    .with_cloud(CloudAuth::bedrock(
        BedrockCredentials::Keys {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        },
        "us-west-2",
        "test keys",
    ));
    Provider::new(config).unwrap()
}

fn gemini_provider(server: &LlmServer) -> Provider {
    let config = ProviderConfig::new("google", &server.url(), Some(KEY), "gemini-2.5-flash")
        .unwrap()
        .with_retry(fast_retry(1));
    Provider::new(config).unwrap()
}

/// Serve the fixture of `wire`, decode it, and render what came out.
async fn decode(wire: &str) -> String {
    let server = LlmServer::start().await.unwrap();
    let provider = match wire {
        "bedrock" => {
            let text = std::fs::read_to_string(dir().join("bedrock.events")).unwrap();
            let frames = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let (kind, payload) = l.split_once(' ').expect("`eventType payload`");
                    EventFrame::event(kind, payload)
                })
                .collect();
            server.push(Script::event_stream(frames));
            bedrock_provider(&server)
        }
        _ => {
            let text = std::fs::read_to_string(dir().join(format!("{wire}.sse"))).unwrap();
            server.push(Script::raw_sse(text));
            match wire {
                "anthropic" => provider(&server, "anthropic"),
                "chat" => provider(&server, "openai-compatible"),
                "responses" => provider(&server, "openai-responses"),
                "gemini" => gemini_provider(&server),
                other => panic!("no wire {other}"),
            }
        }
    };
    let (result, events) = run(&provider, &request("What's the weather?")).await;
    let done = result.unwrap_or_else(|e| panic!("{wire}: {e}"));
    let mut out = String::new();
    for event in &events {
        if !matches!(event, StreamEvent::RequestStarted { .. }) {
            writeln!(out, "{event:?}").unwrap();
        }
    }
    writeln!(out, "message: {:?}", done.message).unwrap();
    writeln!(out, "stop: {:?}", done.stop).unwrap();
    writeln!(out, "usage: {:?}", done.usage).unwrap();
    random_ids_masked(&out)
}

/// Gemini's calls carry no id: zut makes one up, `call_<8 random hex>_<n>`;
/// the random part is masked so the comparison holds.
fn random_ids_masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("call_") {
        let (before, tail) = rest.split_at(at + 5);
        out.push_str(before);
        let hex = tail
            .get(..9)
            .filter(|h| h.ends_with('_') && h[..8].bytes().all(|b| b.is_ascii_hexdigit()));
        match hex {
            Some(_) => {
                out.push_str("XXXXXXXX_");
                rest = &tail[9..];
            }
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

async fn compare(wire: &str) {
    let got = decode(wire).await;
    let path = dir().join(format!("{wire}.expected"));
    if std::env::var_os("ZUT_RECORD_FIXTURES").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record it with ZUT_RECORD_FIXTURES=1)",
            path.display()
        )
    });
    if got != want {
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "{wire}: decoded events differ from {} at line {}:\n got: {:?}\nwant: {:?}",
            path.display(),
            first + 1,
            got.lines().nth(first),
            want.lines().nth(first)
        );
    }
}

#[tokio::test]
async fn anthropic_messages_fixture() {
    compare("anthropic").await;
}

#[tokio::test]
async fn chat_completions_fixture() {
    compare("chat").await;
}

#[tokio::test]
async fn responses_fixture() {
    compare("responses").await;
}

#[tokio::test]
async fn gemini_fixture() {
    compare("gemini").await;
}

#[tokio::test]
async fn bedrock_converse_stream_fixture() {
    compare("bedrock").await;
}
