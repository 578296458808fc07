//! The model catalog: the built-in providers' current models with their
//! context window, output limit, reasoning support, input kinds and list
//! prices, as data (`catalog.json`, embedded at build time and parsed once,
//! on first use), and the cost of a request from its token counts.
//!
//! The file records its source and date; `scripts/refresh-catalog`
//! rebuilds it from the public models.dev dataset.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::types::Usage;

/// The embedded catalog file.
pub const CATALOG_JSON: &str = include_str!("../catalog.json");

/// List prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// Input (prompt) tokens not read from or written to the cache.
    #[serde(default)]
    pub input: f64,
    /// Output tokens (reasoning included).
    #[serde(default)]
    pub output: f64,
    /// Prompt-cache reads.
    #[serde(default)]
    pub cache_read: f64,
    /// Prompt-cache writes.
    #[serde(default)]
    pub cache_write: f64,
}

// Prices are validated finite and non-negative wherever they are read
// (models.json, the catalog), so equality is total.
impl Eq for Prices {}

impl Prices {
    /// The cost in US dollars of one request's `usage`. Reasoning tokens
    /// are part of `usage.output` on every wire (zut adds Gemini's thoughts
    /// to its output count), so they are not counted twice.
    pub fn cost(&self, usage: &Usage) -> f64 {
        (usage.input as f64 * self.input
            + usage.output as f64 * self.output
            + usage.cache_read as f64 * self.cache_read
            + usage.cache_write as f64 * self.cache_write)
            / 1_000_000.0
    }

    /// Whether every price is a finite, non-negative number.
    pub fn is_valid(&self) -> bool {
        [self.input, self.output, self.cache_read, self.cache_write]
            .iter()
            .all(|p| p.is_finite() && *p >= 0.0)
    }
}

/// One catalog model.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogModel {
    /// Provider id (a preset's id).
    pub provider: String,
    /// Model id, as sent to the provider.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Context window in tokens (0: unknown).
    #[serde(default)]
    pub context: u64,
    /// Output limit in tokens (0: unknown).
    #[serde(default)]
    pub output: u64,
    /// Whether the model takes a reasoning effort.
    #[serde(default)]
    pub reasoning: bool,
    /// Input kinds (`text`, `image`, `pdf`, `audio`, `video`).
    #[serde(default)]
    pub input: Vec<String>,
    /// List prices; absent when the provider publishes none.
    #[serde(default)]
    pub price: Option<Prices>,
}

/// The whole catalog file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    /// Where the data came from.
    pub source: String,
    /// When it was gathered (`YYYY-MM-DD`).
    pub date: String,
    /// Free-form notes for maintainers.
    #[serde(default)]
    pub note: String,
    /// The models, grouped by provider.
    pub models: Vec<CatalogModel>,
}

impl Catalog {
    /// Parses a catalog file; prices must be finite and non-negative.
    pub fn parse(text: &str) -> Result<Self, String> {
        let c: Catalog = serde_json::from_str(text).map_err(|e| format!("catalog: {e}"))?;
        for m in &c.models {
            if let Some(p) = &m.price {
                if !p.is_valid() {
                    return Err(format!(
                        "catalog: {}/{}: prices must be non-negative numbers",
                        m.provider, m.id
                    ));
                }
            }
        }
        Ok(c)
    }

    /// The entry for `provider`/`model`.
    pub fn lookup(&self, provider: &str, model: &str) -> Option<&CatalogModel> {
        self.models
            .iter()
            .find(|m| m.provider == provider && m.id == model)
    }

    /// The models of `provider`, in file order.
    pub fn provider_models<'a>(
        &'a self,
        provider: &'a str,
    ) -> impl Iterator<Item = &'a CatalogModel> + 'a {
        self.models.iter().filter(move |m| m.provider == provider)
    }
}

/// The embedded catalog, parsed on first use. A broken embedded file (a
/// maintainer's mistake the unit tests catch) gives an empty catalog and a
/// warning rather than a crash.
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        Catalog::parse(CATALOG_JSON).unwrap_or_else(|e| {
            tracing::warn!(%e, "embedded model catalog unreadable; no prices");
            Catalog {
                source: String::new(),
                date: String::new(),
                note: String::new(),
                models: Vec::new(),
            }
        })
    })
}

/// The catalog entry for `provider`/`model`, if any.
pub fn lookup(provider: &str, model: &str) -> Option<&'static CatalogModel> {
    catalog().lookup(provider, model)
}

/// The prices for `provider`/`model` from the catalog, if listed. Every
/// run that knows its model asks this at start-up (config resolution,
/// then each usage), so it reads a table that build.rs made from the
/// catalog's provider, id and price fields, compiled into the binary
/// ([`catalog`] parses the whole file for the model pickers).
pub fn catalog_prices(provider: &str, model: &str) -> Option<Prices> {
    match PRICE_TABLE {
        Some(table) => table
            .iter()
            .find(|(p, id, _)| *p == provider && *id == model)
            .and_then(|(_, _, price)| *price),
        // build.rs could not read the file: the full parse says why.
        None => lookup(provider, model).and_then(|m| m.price),
    }
}

include!(concat!(env!("OUT_DIR"), "/catalog_prices.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalog_parses_and_is_sane() {
        let c = Catalog::parse(CATALOG_JSON).unwrap();
        assert!(c.models.len() >= 50, "{}", c.models.len());
        // The build-time price table agrees with the full parse, model by
        // model.
        assert_eq!(PRICE_TABLE.map(<[_]>::len), Some(c.models.len()));
        for m in &c.models {
            assert_eq!(
                catalog_prices(&m.provider, &m.id),
                m.price,
                "{}/{}",
                m.provider,
                m.id
            );
        }
        assert!(!c.source.is_empty() && c.date.len() == 10);
        let mut seen = std::collections::HashSet::new();
        for m in &c.models {
            assert!(
                crate::preset(&m.provider).is_some(),
                "{}: not a preset",
                m.provider
            );
            assert!(seen.insert((&m.provider, &m.id)), "duplicate {}", m.id);
            assert!(m.context > 0, "{}: no context", m.id);
            assert!(m.output > 0 && m.output <= m.context, "{}: output", m.id);
            assert!(m.input.iter().any(|k| k == "text"), "{}: input", m.id);
        }
        assert!(lookup("anthropic", "claude-sonnet-4-5").is_some());
    }

    #[test]
    fn cost_is_per_million() {
        let p = Prices {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        };
        let u = Usage {
            input: 1_000_000,
            output: 100_000,
            reasoning: Some(50_000),
            cache_read: 2_000_000,
            cache_write: 0,
        };
        assert!((p.cost(&u) - (3.0 + 1.5 + 0.6)).abs() < 1e-9);
    }

    #[test]
    fn bad_prices_are_refused() {
        let bad = r#"{"source":"s","date":"2025-01-01","models":[
            {"provider":"openai","id":"m","context":1,"output":1,"input":["text"],"price":{"input":-1}}]}"#;
        let e = Catalog::parse(bad).unwrap_err();
        assert!(e.contains("openai/m"), "{e}");
        let e = Catalog::parse(r#"{"source":"s","date":"d","models":[{"provider":"x","id":"m","price":{"input":"1"}}]}"#)
            .unwrap_err();
        assert!(e.contains("catalog"), "{e}");
        // A model without prices is fine: its cost is unknown.
        let ok = Catalog::parse(
            r#"{"source":"s","date":"d","models":[{"provider":"openai","id":"m"}]}"#,
        )
        .unwrap();
        assert_eq!(ok.models[0].price, None);
    }
}
