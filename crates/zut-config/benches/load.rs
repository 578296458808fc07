//! Reading and resolving `config.json` + `models.json`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("config.json"),
        r#"{"provider":"my-company","model":"m2","reasoning":"low","temperature":0.3,"theme":"dark",
            "auto_compact_threshold":85,"terminal_alerts_enabled":true,"lsp_enabled":false}"#,
    )
    .unwrap();
    let mut providers = serde_json::Map::new();
    for i in 0..20 {
        let models: Vec<serde_json::Value> = (0..10)
            .map(|j| serde_json::json!({"id": format!("m{j}"), "contextWindow": 128000, "maxTokens": 32000}))
            .collect();
        providers.insert(
            if i == 0 { "my-company".to_string() } else { format!("p{i}") },
            serde_json::json!({"baseUrl": "http://127.0.0.1:1/v1", "api": "openai", "models": models}),
        );
    }
    std::fs::write(
        home.path().join("models.json"),
        serde_json::to_string(&serde_json::json!({"providers": providers})).unwrap(),
    )
    .unwrap();
    let flags = zut_config::Flags::default();
    // The size most users have: one custom provider with one model (the
    // files of scripts/bench/skills-config).
    let small = tempfile::tempdir().unwrap();
    std::fs::write(
        small.path().join("config.json"),
        r#"{"provider": "bench", "theme": "dark", "temperature": 0.5, "lsp_enabled": true}"#,
    )
    .unwrap();
    std::fs::write(
        small.path().join("models.json"),
        r#"{"providers": {"bench": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic", "auth": "none",
            "models": [{"id": "bench-model", "contextWindow": 200000, "maxTokens": 4096}]}}}"#,
    )
    .unwrap();
    c.bench_function("load_small_config_and_models_json", |b| {
        b.iter(|| {
            let s = zut_config::load(&flags, &|_| None, small.path()).unwrap();
            assert!(s.provider.is_ok());
        })
    });
    // 20 providers of 10 models each.
    c.bench_function("load_config_and_models_json", |b| {
        b.iter(|| {
            let s = zut_config::load(&flags, &|_| None, home.path()).unwrap();
            assert!(s.provider.is_ok());
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
