//! Every preset resolves to its base URL, key variable, wire and default
//! model (the Go original's), and sends its key the way its service wants,
//! over real HTTP against zut-llm-server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use zut_llm_server::{LlmServer, Script};
use zut_providers::{preset, resolve, KeySource, Provider, ProviderOptions, Wire, PRESETS};

/// (id, key variable, base URL, wire, default model).
const TABLE: &[(&str, &str, &str, Wire, &str)] = &[
    (
        "anthropic",
        "ANTHROPIC_API_KEY",
        "https://api.anthropic.com",
        Wire::Anthropic,
        "claude-sonnet-4-5",
    ),
    (
        "openai",
        "OPENAI_API_KEY",
        "https://api.openai.com/v1",
        Wire::OpenAi,
        "gpt-5",
    ),
    (
        "openai-responses",
        "OPENAI_API_KEY",
        "https://api.openai.com/v1",
        Wire::Responses,
        "gpt-5",
    ),
    (
        "openrouter",
        "OPENROUTER_API_KEY",
        "https://openrouter.ai/api/v1",
        Wire::OpenAi,
        "anthropic/claude-sonnet-4.5",
    ),
    (
        "groq",
        "GROQ_API_KEY",
        "https://api.groq.com/openai/v1",
        Wire::OpenAi,
        "llama-3.3-70b-versatile",
    ),
    (
        "deepseek",
        "DEEPSEEK_API_KEY",
        "https://api.deepseek.com/v1",
        Wire::OpenAi,
        "deepseek-chat",
    ),
    (
        "xai",
        "XAI_API_KEY",
        "https://api.x.ai/v1",
        Wire::OpenAi,
        "grok-4.5",
    ),
    (
        "mistral",
        "MISTRAL_API_KEY",
        "https://api.mistral.ai/v1",
        Wire::OpenAi,
        "mistral-large-latest",
    ),
    (
        "cerebras",
        "CEREBRAS_API_KEY",
        "https://api.cerebras.ai/v1",
        Wire::OpenAi,
        "qwen-3-235b-a22b-instruct-2507",
    ),
    (
        "together",
        "TOGETHER_API_KEY",
        "https://api.together.ai/v1",
        Wire::OpenAi,
        "Qwen/Qwen3-Coder-480B-A35B-Instruct",
    ),
    (
        "huggingface",
        "HF_TOKEN",
        "https://router.huggingface.co/v1",
        Wire::OpenAi,
        "moonshotai/Kimi-K2-Instruct",
    ),
    (
        "fireworks",
        "FIREWORKS_API_KEY",
        "https://api.fireworks.ai/inference",
        Wire::Anthropic,
        "accounts/fireworks/models/kimi-k2p6",
    ),
    (
        "zai",
        "ZAI_API_KEY",
        "https://api.z.ai/api/coding/paas/v4",
        Wire::OpenAi,
        "glm-4.7",
    ),
    (
        "moonshotai",
        "MOONSHOT_API_KEY",
        "https://api.moonshot.ai/v1",
        Wire::OpenAi,
        "kimi-k2.6",
    ),
    (
        "moonshotai-cn",
        "MOONSHOT_API_KEY",
        "https://api.moonshot.cn/v1",
        Wire::OpenAi,
        "kimi-k2.6",
    ),
    (
        "minimax",
        "MINIMAX_API_KEY",
        "https://api.minimax.io/anthropic",
        Wire::Anthropic,
        "MiniMax-M2.7",
    ),
    (
        "minimax-cn",
        "MINIMAX_CN_API_KEY",
        "https://api.minimaxi.com/anthropic",
        Wire::Anthropic,
        "MiniMax-M2.7",
    ),
    (
        "vercel-ai-gateway",
        "AI_GATEWAY_API_KEY",
        "https://ai-gateway.vercel.sh",
        Wire::Anthropic,
        "anthropic/claude-sonnet-4.5",
    ),
    (
        "cloudflare-workers-ai",
        "CLOUDFLARE_API_KEY",
        "https://api.cloudflare.com/client/v4/accounts/acct-1/ai/v1",
        Wire::OpenAi,
        "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
    ),
    (
        "cloudflare-ai-gateway",
        "CLOUDFLARE_API_KEY",
        "https://gateway.ai.cloudflare.com/v1/acct-1/gw-2/compat",
        Wire::OpenAi,
        "openai/gpt-4o",
    ),
    (
        "azure-openai-responses",
        "AZURE_OPENAI_API_KEY",
        "https://res-3.openai.azure.com",
        Wire::Responses,
        "gpt-5",
    ),
    (
        "azure-openai",
        "AZURE_OPENAI_API_KEY",
        "https://res-3.openai.azure.com",
        Wire::OpenAi,
        "gpt-5",
    ),
    (
        "ollama",
        "OLLAMA_API_KEY",
        "https://ollama.com/v1",
        Wire::OpenAi,
        "qwen3",
    ),
    (
        "google",
        "GEMINI_API_KEY",
        "https://generativelanguage.googleapis.com",
        Wire::Gemini,
        "gemini-2.5-pro",
    ),
];

const ACCOUNT_VARS: [(&str, &str); 3] = [
    ("CLOUDFLARE_ACCOUNT_ID", "acct-1"),
    ("CLOUDFLARE_GATEWAY_ID", "gw-2"),
    ("AZURE_OPENAI_RESOURCE_NAME", "res-3"),
];

fn env_with(vars: Vec<(String, String)>) -> impl Fn(&str) -> Option<String> {
    move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

fn opts(id: &str) -> ProviderOptions {
    ProviderOptions {
        provider: Some(id.into()),
        ..Default::default()
    }
}

#[test]
fn every_preset_resolves_to_its_url_key_variable_and_model() {
    let home = tempfile::tempdir().unwrap();
    for (id, var, base, wire, model) in TABLE {
        let mut vars: Vec<(String, String)> = ACCOUNT_VARS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        vars.push((var.to_string(), format!("key-for-{id}")));
        let cfg = resolve(&opts(id), &env_with(vars), home.path()).unwrap();
        assert_eq!(cfg.provider, *id);
        assert_eq!(cfg.base_url, *base, "{id}");
        assert_eq!(cfg.wire, *wire, "{id}");
        assert_eq!(cfg.model, *model, "{id}");
        assert_eq!(cfg.key_source, KeySource::Env(var.to_string()), "{id}");
        assert_eq!(
            cfg.api_key.as_deref(),
            Some(format!("key-for-{id}").as_str())
        );
        assert_eq!(preset(id).unwrap().key_env, Some(*var), "{id}");

        // A hosted preset without its key: the error names the variable.
        if !matches!(*id, "ollama") {
            let env = env_with(
                ACCOUNT_VARS
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            );
            let err = resolve(&opts(id), &env, home.path())
                .unwrap_err()
                .to_string();
            assert!(err.contains(var), "{id}: {err}");
        }
    }
    let listed: Vec<&str> = TABLE.iter().map(|t| t.0).collect();
    for p in PRESETS {
        let local = matches!(p.id, "openai-compatible" | "llamacpp" | "vllm");
        // Cloud credential chains: tests/vertex.rs, tests/bedrock.rs.
        let cloud = matches!(p.id, "google-vertex" | "amazon-bedrock");
        assert!(
            local || cloud || listed.contains(&p.id),
            "{} is not in the table",
            p.id
        );
    }
}

#[test]
fn account_variables_alternate_keys_and_ollama_cloud() {
    let home = tempfile::tempdir().unwrap();
    // Cloudflare without its account id: the error names it.
    let env = env_with(vec![("CLOUDFLARE_API_KEY".into(), "k".into())]);
    let err = resolve(&opts("cloudflare-ai-gateway"), &env, home.path())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("CLOUDFLARE_ACCOUNT_ID") && err.contains("--base-url"),
        "{err}"
    );
    // ... unless --base-url is given.
    let mut o = opts("cloudflare-ai-gateway");
    o.base_url = Some("http://127.0.0.1:1/v1".into());
    assert!(resolve(&o, &env, home.path()).is_ok());

    // MiniMax China falls back to MINIMAX_API_KEY.
    let env = env_with(vec![("MINIMAX_API_KEY".into(), "mm".into())]);
    let cfg = resolve(&opts("minimax-cn"), &env, home.path()).unwrap();
    assert_eq!(cfg.key_source, KeySource::Env("MINIMAX_API_KEY".into()));

    // Ollama: local without a key, Ollama Cloud with OLLAMA_API_KEY.
    let cfg = resolve(&opts("ollama"), &env_with(vec![]), home.path()).unwrap();
    assert_eq!(
        (cfg.base_url.as_str(), cfg.api_key),
        ("http://localhost:11434/v1", None)
    );
    let mut o = opts("ollama");
    o.base_url = Some("http://gpu-box:11434/v1".into());
    let env = env_with(vec![("OLLAMA_API_KEY".into(), "ol".into())]);
    let cfg = resolve(&o, &env, home.path()).unwrap();
    assert_eq!(cfg.base_url, "http://gpu-box:11434/v1", "--base-url wins");

    // Azure: AZURE_OPENAI_BASE_URL wins over the resource name.
    let env = env_with(vec![
        ("AZURE_OPENAI_API_KEY".into(), "az".into()),
        ("AZURE_OPENAI_RESOURCE_NAME".into(), "res".into()),
        (
            "AZURE_OPENAI_BASE_URL".into(),
            "https://proxy.example/openai/v1/".into(),
        ),
    ]);
    let cfg = resolve(&opts("azure-openai-responses"), &env, home.path()).unwrap();
    assert_eq!(cfg.base_url, "https://proxy.example/openai/v1");
    let p = Provider::new(cfg).unwrap();
    assert_eq!(
        p.endpoint(),
        "https://proxy.example/openai/v1/responses?api-version=v1"
    );
}

/// Each preset's request reaches the server with its auth header.
#[tokio::test]
async fn keys_are_sent_the_way_each_service_wants() {
    let home = tempfile::tempdir().unwrap();
    let server = LlmServer::start().await.unwrap();
    for (id, var, _, wire, _) in TABLE {
        let base = match (*wire, *id) {
            (_, "azure-openai-responses" | "azure-openai") => server.url(),
            (Wire::Anthropic | Wire::Gemini, _) => server.url(),
            _ => server.openai_base_url(),
        };
        let mut o = opts(id);
        o.base_url = Some(base);
        let key = format!("key-for-{id}");
        let cfg = resolve(
            &o,
            &env_with(vec![(var.to_string(), key.clone())]),
            home.path(),
        )
        .unwrap();
        let provider = Provider::new(cfg).unwrap();
        // xAI's default model only exists on the Responses API.
        let wire = &provider.config().wire_for(provider.model());
        server.push(match *wire {
            Wire::Anthropic => Script::anthropic_text("ok"),
            Wire::OpenAi => Script::openai_text("ok"),
            Wire::Responses => Script::responses_text("ok"),
            Wire::Gemini => Script::gemini_text("ok"),
            other => panic!("{id}: not in the table: {other:?}"),
        });
        let completion = run(&provider, &request("x")).await.0;
        assert_eq!(completion.unwrap().message.text(), "ok", "{id}");
        let sent = server.requests().pop().unwrap();
        let (header, value) = match *id {
            "azure-openai-responses" | "azure-openai" => ("api-key", key.clone()),
            "cloudflare-ai-gateway" => ("cf-aig-authorization", format!("Bearer {key}")),
            "google" => ("x-goog-api-key", key.clone()),
            _ if *wire == Wire::Anthropic => ("x-api-key", key.clone()),
            _ => ("authorization", format!("Bearer {key}")),
        };
        assert_eq!(
            sent.header(header),
            Some(value.as_str()),
            "{id}: {:?}",
            sent.headers
        );
        if header != "authorization" {
            assert_eq!(sent.header("authorization"), None, "{id}");
        }
        let path_end = match *wire {
            Wire::Anthropic => "/v1/messages",
            Wire::OpenAi => "/chat/completions",
            Wire::Responses => "/responses",
            Wire::Gemini => ":streamGenerateContent",
            other => panic!("{id}: not in the table: {other:?}"),
        };
        let path = sent.path.split('?').next().unwrap();
        assert!(path.ends_with(path_end), "{id}: {}", sent.path);
    }
}
