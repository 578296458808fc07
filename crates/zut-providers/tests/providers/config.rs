//! Resolving flags, environment and `$ZUT_HOME/auth.json`; presets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use common::*;
use zut_llm_server::{LlmServer, Script};
use zut_providers::{
    parse_reasoning, preset, resolve, KeySource, Provider, ProviderError, ProviderOptions,
    Reasoning, Wire, PRESETS,
};

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn opts(provider: &str) -> ProviderOptions {
    ProviderOptions {
        provider: Some(provider.into()),
        ..ProviderOptions::default()
    }
}

fn write_auth(home: &Path, json: &str, mode: u32) {
    let path = home.join("auth.json");
    std::fs::write(&path, json).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = mode;
}

fn config_error(result: Result<zut_providers::ProviderConfig, ProviderError>) -> String {
    match result {
        Err(ProviderError::Config(message)) => message,
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

#[test]
fn key_precedence_flag_then_env_then_auth_file() {
    let home = tempfile::tempdir().unwrap();
    write_auth(
        home.path(),
        r#"{"anthropic": {"api_key": "from-file"}, "groq": {"api_key": "groq-file"}}"#,
        0o600,
    );
    let with_env = env(&[("ANTHROPIC_API_KEY", "from-env")]);

    let mut o = opts("anthropic");
    o.api_key = Some("from-flag".into());
    let cfg = resolve(&o, &with_env, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("from-flag"));
    assert_eq!(cfg.key_source, KeySource::Flag);

    let cfg = resolve(&opts("anthropic"), &with_env, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("from-env"));
    assert_eq!(cfg.key_source, KeySource::Env("ANTHROPIC_API_KEY".into()));

    let cfg = resolve(&opts("anthropic"), &no_env, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("from-file"));
    assert_eq!(
        cfg.key_source,
        KeySource::AuthFile(home.path().join("auth.json"))
    );

    // An empty environment variable does not count.
    let empty = env(&[("ANTHROPIC_API_KEY", "  ")]);
    let cfg = resolve(&opts("anthropic"), &empty, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("from-file"));

    // Each provider reads its own entry and variable.
    let cfg = resolve(&opts("groq"), &with_env, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("groq-file"));
}

#[tokio::test]
async fn key_from_auth_file_is_sent() {
    let home = tempfile::tempdir().unwrap();
    write_auth(
        home.path(),
        r#"{"anthropic": {"api_key": "sk-ant-from-file"}}"#,
        0o600,
    );
    let server = LlmServer::start().await.unwrap();
    server.push(Script::anthropic_text("ok"));
    let mut o = opts("anthropic");
    o.base_url = Some(server.url());
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    let provider = Provider::new(cfg).unwrap();
    run(&provider, &request("x")).await.0.unwrap();
    assert_eq!(
        server.requests()[0].header("x-api-key"),
        Some("sk-ant-from-file")
    );
}

#[cfg(unix)]
#[test]
fn auth_file_readable_by_others_is_refused() {
    let home = tempfile::tempdir().unwrap();
    write_auth(
        home.path(),
        r#"{"anthropic": {"api_key": "sk-ant-leaky"}}"#,
        0o644,
    );
    let message = config_error(resolve(&opts("anthropic"), &no_env, home.path()));
    assert!(message.contains("0644"), "{message}");
    assert!(message.contains("chmod 600"), "{message}");
    assert!(!message.contains("sk-ant-leaky"), "{message}");

    // Group-readable only is refused too; 0400 is fine.
    write_auth(home.path(), r#"{"anthropic": {"api_key": "k"}}"#, 0o640);
    config_error(resolve(&opts("anthropic"), &no_env, home.path()));
    write_auth(home.path(), r#"{"anthropic": {"api_key": "k"}}"#, 0o400);
    let cfg = resolve(&opts("anthropic"), &no_env, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("k"));

    // The file is not read at all when a flag or the environment gives the key.
    write_auth(home.path(), r#"{"anthropic": {"api_key": "k"}}"#, 0o666);
    let mut o = opts("anthropic");
    o.api_key = Some("flag".into());
    assert!(resolve(&o, &no_env, home.path()).is_ok());
    let with_env = env(&[("ANTHROPIC_API_KEY", "env")]);
    assert!(resolve(&opts("anthropic"), &with_env, home.path()).is_ok());
}

#[test]
fn invalid_auth_file_is_a_clear_error_without_its_content() {
    let home = tempfile::tempdir().unwrap();
    write_auth(home.path(), r#"{"anthropic": {"api_key": "sk-half"#, 0o600);
    let message = config_error(resolve(&opts("anthropic"), &no_env, home.path()));
    assert!(message.contains("auth.json"), "{message}");
    assert!(message.contains("not valid JSON"), "{message}");
    assert!(!message.contains("sk-half"), "{message}");
}

#[test]
fn missing_key_for_a_hosted_provider() {
    let home = tempfile::tempdir().unwrap();
    let message = config_error(resolve(&opts("openrouter"), &no_env, home.path()));
    assert!(message.contains("OPENROUTER_API_KEY"), "{message}");
    assert!(message.contains("--api-key"), "{message}");
    assert!(message.contains("auth.json"), "{message}");
}

#[test]
fn presets_resolve_base_urls_and_wire() {
    let home = tempfile::tempdir().unwrap();
    let keys = env(&[
        ("OPENROUTER_API_KEY", "or"),
        ("GROQ_API_KEY", "gq"),
        ("DEEPSEEK_API_KEY", "ds"),
        ("OPENAI_API_KEY", "oa"),
        ("ANTHROPIC_API_KEY", "an"),
        ("GEMINI_API_KEY", "gm"),
    ]);
    let cases = [
        (
            "anthropic",
            "https://api.anthropic.com",
            Wire::Anthropic,
            Some("an"),
        ),
        (
            "openai",
            "https://api.openai.com/v1",
            Wire::OpenAi,
            Some("oa"),
        ),
        (
            "openrouter",
            "https://openrouter.ai/api/v1",
            Wire::OpenAi,
            Some("or"),
        ),
        (
            "groq",
            "https://api.groq.com/openai/v1",
            Wire::OpenAi,
            Some("gq"),
        ),
        (
            "deepseek",
            "https://api.deepseek.com/v1",
            Wire::OpenAi,
            Some("ds"),
        ),
        ("ollama", "http://localhost:11434/v1", Wire::OpenAi, None),
        ("llamacpp", "http://localhost:8080/v1", Wire::OpenAi, None),
        ("vllm", "http://localhost:8000/v1", Wire::OpenAi, None),
        (
            "google",
            "https://generativelanguage.googleapis.com",
            Wire::Gemini,
            Some("gm"),
        ),
    ];
    for (id, base, wire, key) in cases {
        let mut o = opts(id);
        o.model = Some("m".into());
        let cfg = resolve(&o, &keys, home.path()).unwrap();
        assert_eq!(cfg.provider, id);
        assert_eq!(cfg.base_url, base, "{id}");
        assert_eq!(cfg.wire, wire, "{id}");
        assert_eq!(cfg.api_key.as_deref(), key, "{id}");
        let provider = Provider::new(cfg).unwrap();
        let expected = match wire {
            Wire::Anthropic => format!("{base}/v1/messages"),
            Wire::OpenAi => format!("{base}/chat/completions"),
            Wire::Gemini => format!("{base}/v1beta/models/m:streamGenerateContent?alt=sse"),
            Wire::Responses => format!("{base}/responses"),
            // Vertex and Bedrock: tests/vertex.rs, tests/bedrock.rs.
            other => panic!("{other:?}"),
        };
        assert_eq!(provider.endpoint(), expected);
        assert_eq!(provider.name(), id);
    }
    // Aliases.
    for alias in ["llama.cpp", "llama-cpp", "LlamaCpp"] {
        assert_eq!(preset(alias).map(|p| p.id), Some("llamacpp"));
    }
    for (alias, id) in [
        ("gemini", "google"),
        ("vertex", "google-vertex"),
        ("bedrock", "amazon-bedrock"),
        ("aws-bedrock", "amazon-bedrock"),
    ] {
        assert_eq!(preset(alias).map(|p| p.id), Some(id));
    }
    let mut ids: Vec<&str> = PRESETS.iter().map(|p| p.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), PRESETS.len(), "preset ids are unique");
}

#[test]
fn openai_compatible_needs_base_url_and_model() {
    let home = tempfile::tempdir().unwrap();
    let message = config_error(resolve(&opts("openai-compatible"), &no_env, home.path()));
    assert!(message.contains("--base-url"), "{message}");

    let mut o = opts("openai-compatible");
    o.base_url = Some("http://127.0.0.1:9999/v1/".into());
    let message = config_error(resolve(&o, &no_env, home.path()));
    assert!(message.contains("--model"), "{message}");

    o.model = Some("qwen2.5-coder".into());
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert_eq!(
        cfg.base_url, "http://127.0.0.1:9999/v1",
        "trailing slash trimmed"
    );
    assert_eq!(cfg.wire, Wire::OpenAi);
    assert_eq!(cfg.api_key, None, "keyless is fine for local servers");
    assert_eq!(cfg.model, "qwen2.5-coder");

    // The optional key comes from its own variable.
    let keyed = env(&[("OPENAI_COMPATIBLE_API_KEY", "local-key")]);
    let cfg = resolve(&o, &keyed, home.path()).unwrap();
    assert_eq!(cfg.api_key.as_deref(), Some("local-key"));

    // vllm has a base URL but no default model.
    let message = config_error(resolve(&opts("vllm"), &no_env, home.path()));
    assert!(message.contains("--model"), "{message}");
}

#[test]
fn base_url_overrides_a_preset_and_implies_openai_compatible() {
    let home = tempfile::tempdir().unwrap();
    let mut o = opts("ollama");
    o.base_url = Some("http://gpu-box:11434/v1".into());
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert_eq!(cfg.provider, "ollama");
    assert_eq!(cfg.base_url, "http://gpu-box:11434/v1");

    let o = ProviderOptions {
        base_url: Some("http://localhost:1234/v1".into()),
        model: Some("local".into()),
        ..ProviderOptions::default()
    };
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert_eq!(cfg.provider, "openai-compatible");
}

#[test]
fn default_provider_follows_available_keys() {
    let home = tempfile::tempdir().unwrap();
    let cfg = resolve(
        &ProviderOptions::default(),
        &env(&[("GROQ_API_KEY", "gq")]),
        home.path(),
    )
    .unwrap();
    assert_eq!(cfg.provider, "groq");

    let cfg = resolve(
        &ProviderOptions::default(),
        &env(&[
            ("ZUT_PROVIDER", "deepseek"),
            ("DEEPSEEK_API_KEY", "d"),
            ("ZUT_MODEL", "deepseek-reasoner"),
        ]),
        home.path(),
    )
    .unwrap();
    assert_eq!(
        (cfg.provider.as_str(), cfg.model.as_str()),
        ("deepseek", "deepseek-reasoner")
    );

    write_auth(
        home.path(),
        r#"{"openrouter": {"api_key": "or-file"}}"#,
        0o600,
    );
    let cfg = resolve(&ProviderOptions::default(), &no_env, home.path()).unwrap();
    assert_eq!(cfg.provider, "openrouter");
    assert_eq!(cfg.api_key.as_deref(), Some("or-file"));

    let empty = tempfile::tempdir().unwrap();
    let message = config_error(resolve(&ProviderOptions::default(), &no_env, empty.path()));
    assert!(message.contains("anthropic"), "{message}");
}

#[test]
fn unknown_provider_lists_the_known_ones() {
    let home = tempfile::tempdir().unwrap();
    let message = config_error(resolve(&opts("gemini-direct"), &no_env, home.path()));
    for id in [
        "anthropic",
        "openai",
        "ollama",
        "llamacpp",
        "vllm",
        "openrouter",
        "groq",
        "deepseek",
        "openai-compatible",
    ] {
        assert!(message.contains(id), "{message}");
    }
}

#[test]
fn reasoning_levels_and_model_flag() {
    assert_eq!(parse_reasoning("off").unwrap(), Reasoning::Off);
    assert_eq!(parse_reasoning("none").unwrap(), Reasoning::Off);
    assert_eq!(parse_reasoning("minimal").unwrap(), Reasoning::Minimum);
    assert_eq!(parse_reasoning("xhigh").unwrap(), Reasoning::XHigh);
    assert_eq!(parse_reasoning("max").unwrap(), Reasoning::Max);
    assert_eq!(parse_reasoning("LOW").unwrap(), Reasoning::Low);
    assert_eq!(parse_reasoning("medium").unwrap(), Reasoning::Medium);
    assert_eq!(parse_reasoning("high").unwrap(), Reasoning::High);
    assert!(matches!(
        parse_reasoning("extreme"),
        Err(ProviderError::Config(_))
    ));

    let home = tempfile::tempdir().unwrap();
    let mut o = opts("ollama");
    o.reasoning = Some("high".into());
    o.model = Some("qwen3:32b".into());
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert_eq!(cfg.reasoning, Reasoning::High);
    assert_eq!(cfg.model, "qwen3:32b");
    o.reasoning = Some("sideways".into());
    config_error(resolve(&o, &no_env, home.path()));
}

#[test]
fn debug_output_never_shows_the_key() {
    let home = tempfile::tempdir().unwrap();
    let mut o = opts("anthropic");
    o.api_key = Some(KEY.into());
    assert!(!format!("{o:?}").contains(KEY));
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert!(!format!("{cfg:?}").contains(KEY));
    let provider = Provider::new(cfg).unwrap();
    assert!(!format!("{provider:?}").contains(KEY));
}

#[test]
fn retry_options() {
    let home = tempfile::tempdir().unwrap();
    let mut o = opts("ollama");
    o.max_attempts = Some(0);
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert_eq!(cfg.retry.max_attempts, 1, "at least one attempt");
    o.max_attempts = None;
    let cfg = resolve(&o, &no_env, home.path()).unwrap();
    assert_eq!(cfg.retry.max_attempts, 4);
}
