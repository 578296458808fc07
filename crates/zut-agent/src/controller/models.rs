//! The model catalogue behind `get_models` / `set_model` (rpc.md §4.8,
//! §4.10): the well-known models of each hosted provider, plus the model
//! the run started with. Local and generic providers (ollama, llama.cpp,
//! vLLM, openai-compatible, openrouter) serve whatever they have, so any
//! non-empty name is accepted there.

use crate::compaction::known_context_window;

/// One catalogue entry (RPC `get_models`).
// Its schema keeps the name RPC clients know.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "ModelEntry")]
pub struct ModelInfo {
    /// Model id.
    pub id: String,
    /// Provider name.
    pub provider: String,
    /// Context window in tokens (0 when unknown).
    pub context_window: u64,
    /// Output-token limit (0 when unknown).
    pub max_output: u64,
    /// Whether the model takes a reasoning effort.
    pub reasoning: bool,
}

/// (id, max_output, reasoning) of the known models per provider.
fn known(provider: &str) -> Option<&'static [(&'static str, u64, bool)]> {
    Some(match provider {
        "anthropic" => &[
            ("claude-sonnet-4-5", 64_000, true),
            ("claude-opus-4-1", 32_000, true),
            ("claude-haiku-4-5", 64_000, true),
            ("claude-sonnet-4-0", 64_000, true),
            ("claude-3-5-haiku-latest", 8_192, false),
        ],
        "openai" => &[
            ("gpt-5", 128_000, true),
            ("gpt-5-mini", 128_000, true),
            ("gpt-5-nano", 128_000, true),
            ("gpt-4.1", 32_768, false),
            ("gpt-4o", 16_384, false),
            ("o3", 100_000, true),
            ("o4-mini", 100_000, true),
        ],
        "groq" => &[
            ("llama-3.3-70b-versatile", 32_768, false),
            ("llama-3.1-8b-instant", 131_072, false),
            ("openai/gpt-oss-120b", 65_536, true),
            ("qwen/qwen3-32b", 40_960, true),
        ],
        "deepseek" => &[
            ("deepseek-chat", 8_192, false),
            ("deepseek-reasoner", 65_536, true),
        ],
        _ => return None,
    })
}

fn info(provider: &str, id: &str, max_output: u64, reasoning: bool) -> ModelInfo {
    ModelInfo {
        id: id.to_string(),
        provider: provider.to_string(),
        context_window: known_context_window(id).unwrap_or(0),
        max_output,
        reasoning,
    }
}

/// The models of `provider`, with `current` included.
pub fn models(provider: &str, current: &str) -> Vec<ModelInfo> {
    let mut out: Vec<ModelInfo> = known(provider)
        .unwrap_or(&[])
        .iter()
        .map(|(id, max, r)| info(provider, id, *max, *r))
        .collect();
    if !current.is_empty() && !out.iter().any(|m| m.id == current) {
        out.insert(0, info(provider, current, 0, false));
    }
    out
}

/// Checks that `model` exists for `provider` (the current model always
/// does); the error names the known ones.
pub fn check(provider: &str, current: &str, model: &str) -> Result<(), String> {
    let model = model.trim();
    if model.is_empty() {
        return Err("model must not be empty".into());
    }
    if known(provider).is_none()
        || model == current
        || zut_providers::catalog::lookup(provider, model).is_some()
    {
        return Ok(());
    }
    let list = models(provider, current);
    if list.iter().any(|m| m.id == model) {
        return Ok(());
    }
    let names: Vec<&str> = list.iter().map(|m| m.id.as_str()).collect();
    Err(format!(
        "unknown model {model:?} for provider {provider} (known: {})",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosted_catalogue_is_closed_local_is_open() {
        assert!(check("anthropic", "claude-sonnet-4-5", "claude-opus-4-1").is_ok());
        assert!(check("anthropic", "m", "m").is_ok());
        let e = check("anthropic", "m", "gpt-9").unwrap_err();
        assert!(
            e.contains("unknown model \"gpt-9\" for provider anthropic"),
            "{e}"
        );
        assert!(check("ollama", "qwen3", "anything").is_ok());
        assert!(check("ollama", "qwen3", " ").is_err());
        let m = models("anthropic", "m");
        assert_eq!(m[0].id, "m");
        assert_eq!(m[1].context_window, 200_000);
    }
}
