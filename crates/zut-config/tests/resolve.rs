//! Resolution over real files in a temporary `$ZUT_HOME`: precedence (flag
//! over environment over file), custom providers, keys, errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;

use zut_config::{load, ConfigError, Flags, Origin, Settings};
use zut_providers::{KeySource, Reasoning, Wire};

fn home() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(home: &Path, file: &str, text: &str) {
    std::fs::write(home.join(file), text).unwrap();
}

fn run(home: &Path, flags: &Flags, env: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    load(flags, &|k| env.get(k).cloned(), home)
}

const MODELS: &str = r#"{"providers": {
  "my-company": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai",
    "models": [{"id": "m2", "contextWindow": 128000, "maxTokens": 32000},
               {"id": "m3", "baseUrl": "http://127.0.0.1:10/v1"}]},
  "gw": {"baseUrl": "http://gw", "api": "anthropic", "auth": "none", "models": [{"id": "c"}]},
  "resp": {"baseUrl": "http://r/v1", "api": "openai-responses", "models": [{"id": "x"}]},
  "anthropic": {"models": [{"id": "claude-sonnet-4-5", "contextWindow": 1000000}]}
}}"#;

#[test]
fn custom_provider_from_config_and_models() {
    let h = home();
    write(h.path(), "models.json", MODELS);
    write(
        h.path(),
        "config.json",
        r#"{"provider": "my-company", "temperature": 0.4, "reasoning": "low"}"#,
    );
    let s = run(
        h.path(),
        &Flags::default(),
        &[("MY_COMPANY_API_KEY", "sk-co")],
    )
    .unwrap();
    let p = s.provider.unwrap();
    assert_eq!(
        (p.provider.as_str(), p.model.as_str()),
        ("my-company", "m2")
    );
    assert_eq!(p.wire, Wire::OpenAi);
    assert_eq!(p.base_url, "http://127.0.0.1:9/v1");
    assert_eq!(p.api_key.as_deref(), Some("sk-co"));
    assert_eq!(p.key_source, KeySource::Env("MY_COMPANY_API_KEY".into()));
    assert_eq!(p.temperature, Some(0.4));
    assert_eq!(p.reasoning, Reasoning::Low);
    assert_eq!(s.context_window.value, Some(128_000));
    assert_eq!(s.max_output.value, Some(32_000));
    assert!(
        matches!(&s.model.origin, Origin::File(_, k) if k == "providers.my-company.models[0].id")
    );
    assert!(
        matches!(&s.provider_name.origin, Origin::File(p, k) if p.ends_with("config.json") && k == "provider")
    );
    // A model-level baseUrl wins over the provider's.
    let s = run(
        h.path(),
        &Flags {
            model: Some("m3".into()),
            ..Default::default()
        },
        &[],
    )
    .unwrap();
    let p = s.provider.unwrap();
    assert_eq!(p.base_url, "http://127.0.0.1:10/v1");
    assert_eq!(p.api_key, None);
    assert_eq!(s.context_window.value, None);
}

#[test]
fn custom_key_from_auth_json_and_no_auth() {
    let h = home();
    write(h.path(), "models.json", MODELS);
    let auth = h.path().join("auth.json");
    std::fs::write(
        &auth,
        r#"{"my-company": {"api_key": "sk-file"}, "gw": {"api_key": "never"}}"#,
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&auth, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let flags = Flags {
        provider: Some("my-company".into()),
        ..Default::default()
    };
    let p = run(h.path(), &flags, &[]).unwrap().provider.unwrap();
    assert_eq!(p.api_key.as_deref(), Some("sk-file"));
    assert_eq!(p.key_source, KeySource::AuthFile(auth.clone()));
    // --api-key beats everything.
    let flags = Flags {
        api_key: Some("sk-flag".into()),
        ..flags
    };
    let p = run(h.path(), &flags, &[("MY_COMPANY_API_KEY", "sk-env")])
        .unwrap()
        .provider
        .unwrap();
    assert_eq!(p.api_key.as_deref(), Some("sk-flag"));
    // `"auth": "none"` never sends a stored key.
    let flags = Flags {
        provider: Some("gw".into()),
        ..Default::default()
    };
    let p = run(h.path(), &flags, &[("GW_API_KEY", "sk-env")])
        .unwrap()
        .provider
        .unwrap();
    assert_eq!((p.wire, p.api_key), (Wire::Anthropic, None));
}

#[test]
fn responses_api_headers_and_reasoning_map_are_used() {
    let h = home();
    write(
        h.path(),
        "models.json",
        r#"{"providers": {
  "resp": {"baseUrl": "http://r/v1", "api": "openai-responses",
           "headers": {"X-Team": "core"},
           "models": [{"id": "x", "reasoningLevelMap": {"max": "high"}}]},
  "openai": {"api": "openai-responses", "headers": {"OpenAI-Organization": "org-1"},
             "models": [{"id": "gpt-5", "reasoningLevelMap": {"minimum": "minimum"}}]}
}}"#,
    );
    let s = run(
        h.path(),
        &Flags {
            provider: Some("resp".into()),
            reasoning: Some("max".into()),
            ..Default::default()
        },
        &[("RESP_API_KEY", "k")],
    )
    .unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let p = s.provider.unwrap();
    assert_eq!(p.wire, Wire::Responses);
    assert_eq!(p.headers, vec![("X-Team".to_string(), "core".to_string())]);
    assert_eq!(p.reasoning_map, vec![(Reasoning::Max, Reasoning::High)]);
    assert_eq!(p.reasoning, Reasoning::Max);
    assert_eq!(p.clamp_reasoning(Reasoning::Max).level, Reasoning::High);

    // A preset switched to the Responses API explicitly, for every model.
    let s = run(
        h.path(),
        &Flags {
            provider: Some("openai".into()),
            ..Default::default()
        },
        &[("OPENAI_API_KEY", "k")],
    )
    .unwrap();
    let p = s.provider.unwrap();
    assert_eq!(
        (p.wire, p.wire_for("gpt-4o")),
        (Wire::Responses, Wire::Responses)
    );
    assert_eq!(
        p.headers,
        vec![("OpenAI-Organization".to_string(), "org-1".to_string())]
    );
    assert_eq!(
        p.clamp_reasoning(Reasoning::Minimum).level,
        Reasoning::Minimum
    );
}

#[test]
fn flag_beats_environment_beats_file() {
    let h = home();
    write(h.path(), "models.json", MODELS);
    write(
        h.path(),
        "config.json",
        r#"{"provider": "gw", "model": "c", "temperature": 0.1}"#,
    );
    // File only.
    let s = run(h.path(), &Flags::default(), &[]).unwrap();
    assert_eq!(s.provider_name.value, "gw");
    // Environment over file (a different provider drops the file's model).
    let env = [
        ("ZUT_PROVIDER", "anthropic"),
        ("ANTHROPIC_API_KEY", "sk-a"),
        ("ANTHROPIC_BASE_URL", "http://proxy"),
    ];
    let s = run(h.path(), &Flags::default(), &env).unwrap();
    assert_eq!(s.provider_name.origin, Origin::Env("ZUT_PROVIDER".into()));
    let p = s.provider.as_ref().unwrap();
    assert_eq!(p.model, "claude-sonnet-4-5");
    assert_eq!(p.base_url, "http://proxy");
    assert_eq!(s.base_url.origin, Origin::Env("ANTHROPIC_BASE_URL".into()));
    assert_eq!(
        s.context_window.value,
        Some(1_000_000),
        "models.json adjusts a preset"
    );
    // Flag over environment.
    let flags = Flags {
        provider: Some("anthropic".into()),
        base_url: Some("http://flag".into()),
        temperature: Some(0.9),
        model: Some("x".into()),
        ..Default::default()
    };
    let s = run(h.path(), &flags, &env).unwrap();
    let p = s.provider.unwrap();
    assert_eq!(
        (p.base_url.as_str(), p.temperature, p.model.as_str()),
        ("http://flag", Some(0.9), "x")
    );
    assert_eq!(s.temperature.origin, Origin::Flag("--temperature"));
    // ZUT_MODEL over config.json model.
    let s = run(h.path(), &Flags::default(), &[("ZUT_MODEL", "c2")]).unwrap();
    assert_eq!(s.model.value, "c2");
    assert_eq!(s.temperature.value, Some(0.1));
}

#[test]
fn openai_base_url_env_and_defaults() {
    let h = home();
    let s = run(
        h.path(),
        &Flags {
            provider: Some("openai-compatible".into()),
            model: Some("m".into()),
            ..Default::default()
        },
        &[("OPENAI_BASE_URL", "http://local:8080/v1/")],
    )
    .unwrap();
    assert_eq!(s.provider.unwrap().base_url, "http://local:8080/v1");
    let s = run(h.path(), &Flags::default(), &[("ANTHROPIC_API_KEY", "k")]).unwrap();
    assert_eq!(s.theme.value, "auto");
    assert!(s.terminal_alerts_enabled.value);
    assert_eq!(s.reasoning.value, Reasoning::Off);
    assert!(matches!(s.provider_name.origin, Origin::Default(_)));
}

#[test]
fn bad_inputs() {
    let h = home();
    write(h.path(), "config.json", r#"{"provider": "nope"}"#);
    let s = run(h.path(), &Flags::default(), &[]).unwrap();
    let e = s.provider.unwrap_err().to_string();
    assert!(
        e.contains("config.json: provider: unknown provider \"nope\""),
        "{e}"
    );
    write(h.path(), "config.json", "{oops");
    let e = run(h.path(), &Flags::default(), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("config.json: not valid JSON"), "{e}");
    write(h.path(), "config.json", "{}");
    write(
        h.path(),
        "models.json",
        r#"{"providers": {"x": {"api": "openai"}}}"#,
    );
    let e = run(h.path(), &Flags::default(), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("models.json: providers.x.baseUrl: custom provider \"x\" has no baseUrl"),
        "{e}"
    );
    std::fs::remove_file(h.path().join("models.json")).unwrap();
    let e = run(
        h.path(),
        &Flags {
            temperature: Some(3.0),
            ..Default::default()
        },
        &[],
    )
    .unwrap_err();
    assert!(e
        .to_string()
        .contains("--temperature 3: expected a number from 0 to 2"));
}
