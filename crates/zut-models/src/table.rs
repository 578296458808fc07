//! The models zut can switch to, across providers: the embedded catalog,
//! each preset's default model, and `models.json` (its limits and prices
//! win). `--list-models` prints every provider's; the TUI's `/model`
//! picker offers those of the providers that have a key (or need none).

use std::fmt::Write as _;
use std::path::Path;

use zut_config::ModelsFile;
use zut_providers::Prices;

/// One model row.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub id: String,
    /// Context window in tokens (0: unknown).
    pub context: u64,
    /// Output limit in tokens (0: unknown).
    pub output: u64,
    /// Takes a reasoning effort.
    pub reasoning: bool,
    /// List prices per million tokens, when known.
    pub price: Option<Prices>,
    /// Where the row comes from (`catalog`, `preset, default`,
    /// `models.json, openai`...).
    pub source: String,
}

impl ModelRow {
    /// `provider/id`, what `/model` takes.
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    /// `200k ctx · $3/$15 · reasoning`, for the picker.
    pub fn detail(&self) -> String {
        let mut parts = Vec::new();
        if self.context > 0 {
            parts.push(format!("{} ctx", tokens(self.context)));
        }
        parts.push(match &self.price {
            Some(p) => format!("${}/${}", money(p.input), money(p.output)),
            None => "price unknown".into(),
        });
        if self.reasoning {
            parts.push("reasoning".into());
        }
        parts.join(" · ")
    }
}

fn tokens(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

fn money(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Every model of every provider (presets in preset order, then the
/// custom providers of models.json), with the discovered ones of `cache`
/// that are not listed otherwise.
pub fn all(models: Option<&ModelsFile>, cache: Option<&crate::discovery::Cache>) -> Vec<ModelRow> {
    let mut out = listed(models);
    let Some(cache) = cache else {
        return out;
    };
    for (provider, entry) in &cache.providers {
        let known: std::collections::HashSet<&str> = out
            .iter()
            .filter(|r| &r.provider == provider)
            .map(|r| r.id.as_str())
            .collect();
        let mut found: Vec<ModelRow> = entry
            .models
            .iter()
            .filter(|m| !known.contains(m.id.as_str()))
            .map(|m| {
                let mut r = row_for(provider, &m.id, "discovered");
                if let Some(c) = m.context_window.filter(|c| *c > 0) {
                    r.context = c;
                }
                if let Some(o) = m.max_output.filter(|o| *o > 0) {
                    r.output = o;
                }
                r.price = r.price.or(m.prices);
                r
            })
            .collect();
        // After the provider's other rows.
        let at = out
            .iter()
            .rposition(|r| &r.provider == provider)
            .map_or(out.len(), |i| i + 1);
        let tail = out.split_off(at);
        out.append(&mut found);
        out.extend(tail);
    }
    out
}

fn listed(models: Option<&ModelsFile>) -> Vec<ModelRow> {
    let catalog = zut_providers::catalog::catalog();
    let mut out: Vec<ModelRow> = Vec::new();
    for p in zut_providers::PRESETS {
        let start = out.len();
        let entry = models.and_then(|m| m.provider(p.id));
        if let Some(id) = p.default_model {
            out.push(row_for(p.id, id, "preset, default"));
        }
        for m in catalog.provider_models(p.id) {
            if !out[start..].iter().any(|r| r.id == m.id) {
                out.push(row_for(p.id, &m.id, "catalog"));
            }
        }
        if let Some(e) = entry {
            for m in &e.models {
                let i = match out[start..].iter().position(|r| r.id == m.id) {
                    Some(i) => start + i,
                    None => {
                        out.push(row_for(p.id, &m.id, "models.json"));
                        out.len() - 1
                    }
                };
                let r = &mut out[i];
                if r.source != "models.json" {
                    r.source.push_str(", models.json");
                }
                apply_entry(r, m);
            }
        }
        if out.len() == start {
            out.push(ModelRow {
                provider: p.id.into(),
                id: "(pass --model)".into(),
                context: 0,
                output: 0,
                reasoning: false,
                price: None,
                source: "preset".into(),
            });
        }
    }
    if let Some(m) = models {
        for p in m.providers.iter().filter(|p| !p.is_preset) {
            for model in &p.models {
                let mut r = row_for(&p.name, &model.id, "");
                r.source = format!("models.json, {}", p.api.as_str());
                apply_entry(&mut r, model);
                out.push(r);
            }
        }
    }
    out
}

fn row_for(provider: &str, id: &str, source: &str) -> ModelRow {
    let known = zut_providers::catalog::lookup(provider, id);
    ModelRow {
        provider: provider.into(),
        id: id.into(),
        context: known
            .map(|m| m.context)
            .filter(|c| *c > 0)
            .or_else(|| zut_agent::compaction::known_context_window(id))
            .unwrap_or(0),
        output: known.map(|m| m.output).unwrap_or(0),
        reasoning: known.is_some_and(|m| m.reasoning),
        price: known.and_then(|m| m.price),
        source: source.into(),
    }
}

fn apply_entry(r: &mut ModelRow, m: &zut_config::CustomModel) {
    if let Some(c) = m.context_window.filter(|c| *c > 0) {
        r.context = c;
    }
    if let Some(o) = m.max_tokens.filter(|o| *o > 0) {
        r.output = u64::from(o);
    }
    if let Some(p) = m.prices {
        r.price = Some(p);
    }
    if !m.reasoning_level_map.is_empty() {
        r.reasoning = true;
    }
}

/// The rows of the providers that have a key (or need none), plus the
/// provider in use (a stale discovered list is refreshed in the
/// background: [`crate::discovery::refresh`]).
pub fn available(home: &Path, models: Option<&ModelsFile>, current: &str) -> Vec<ModelRow> {
    let ready: Vec<String> = crate::keys::rows(home)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.ready)
        .map(|r| r.provider)
        .collect();
    let cache = crate::discovery::load(home);
    // A list gone stale while this process ran is asked again.
    crate::discovery::refresh(&cache);
    all(models, Some(&cache))
        .into_iter()
        .filter(|r| !r.id.starts_with('('))
        .filter(|r| r.provider == current || ready.contains(&r.provider))
        .collect()
}

/// RPC `get_models`: the models of every provider with credentials (and
/// of the one in use, its current model first when no list has it), with
/// the Go original's fields.
pub fn rpc_models(
    home: &Path,
    current: &zut_providers::ProviderConfig,
) -> Vec<zut_agent::controller::ModelInfo> {
    let models = ModelsFile::load(&ModelsFile::path_in(home)).ok().flatten();
    let rows = available(home, models.as_ref(), &current.provider);
    let info = |r: &ModelRow| zut_agent::controller::ModelInfo {
        id: r.id.clone(),
        provider: r.provider.clone(),
        context_window: r.context,
        max_output: r.output,
        reasoning: r.reasoning,
    };
    let mut out: Vec<_> = rows.iter().map(info).collect();
    if !rows
        .iter()
        .any(|r| r.provider == current.provider && r.id == current.model)
    {
        let row = all(None, None)
            .into_iter()
            .find(|r| r.provider == current.provider && r.id == current.model)
            .unwrap_or_else(|| row_for(&current.provider, &current.model, "in use"));
        out.insert(0, info(&row));
    }
    out
}

/// The `--list-models` table.
pub fn table(rows: &[ModelRow]) -> String {
    let w0 = rows
        .iter()
        .map(|r| r.provider.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let w1 = rows.iter().map(|r| r.id.len()).max().unwrap_or(5).max(5);
    let mut out = format!(
        "{:<w0$}  {:<w1$}  {:>8}  {:>7}  {:>15}  {:<9}  source\n",
        "provider", "model", "context", "output", "$/M in/out", "reasoning"
    );
    for r in rows {
        let num = |n: u64| {
            if n == 0 {
                "-".to_string()
            } else {
                n.to_string()
            }
        };
        let price = r.price.map_or("-".to_string(), |p| {
            format!("{}/{}", money(p.input), money(p.output))
        });
        let _ = writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:>8}  {:>7}  {:>15}  {:<9}  {}",
            r.provider,
            r.id,
            num(r.context),
            num(r.output),
            price,
            if r.reasoning { "yes" } else { "-" },
            r.source
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_rows_carry_prices_and_the_default_comes_first() {
        let rows = all(None, None);
        let sonnet = rows
            .iter()
            .find(|r| r.provider == "anthropic" && r.id == "claude-sonnet-4-5")
            .map(|r| (r.source.clone(), r.context, r.price.map(|p| p.input)));
        assert_eq!(
            sonnet,
            Some(("preset, default".to_string(), 200_000, Some(3.0)))
        );
        let first_openai = rows
            .iter()
            .find(|r| r.provider == "openai")
            .map(|r| r.id.clone());
        assert_eq!(first_openai.as_deref(), Some("gpt-5"));
        assert!(rows.iter().filter(|r| r.provider == "openai").count() > 5);
        let r = ModelRow {
            provider: "p".into(),
            id: "m".into(),
            context: 1_048_576,
            output: 0,
            reasoning: true,
            price: Some(Prices {
                input: 1.25,
                output: 10.0,
                ..Prices::default()
            }),
            source: String::new(),
        };
        assert_eq!(r.detail(), "1.0M ctx · $1.25/$10 · reasoning");
    }
}
