//! Built-in provider presets (`--provider` values).

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic Messages API (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI-compatible chat completions (`POST {base}/chat/completions`).
    OpenAi,
}

/// One `--provider` preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// The `--provider` value.
    pub id: &'static str,
    /// Wire format.
    pub wire: Wire,
    /// Default base URL (`None`: `--base-url` is required).
    pub base_url: Option<&'static str>,
    /// Environment variable holding the API key.
    pub key_env: Option<&'static str>,
    /// Whether a request without a key is refused at configuration time.
    pub key_required: bool,
    /// Default model (`None`: `--model` is required).
    pub default_model: Option<&'static str>,
    /// OpenAI wire: send the cap as `max_completion_tokens` (else `max_tokens`).
    pub max_completion_tokens: bool,
}

const fn openai_like(
    id: &'static str,
    base_url: Option<&'static str>,
    key_env: Option<&'static str>,
    key_required: bool,
    default_model: Option<&'static str>,
) -> Preset {
    Preset {
        id,
        wire: Wire::OpenAi,
        base_url,
        key_env,
        key_required,
        default_model,
        max_completion_tokens: false,
    }
}

/// Every preset, in the order used to pick a default provider.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "anthropic",
        wire: Wire::Anthropic,
        base_url: Some("https://api.anthropic.com"),
        key_env: Some("ANTHROPIC_API_KEY"),
        key_required: true,
        default_model: Some("claude-sonnet-4-5"),
        max_completion_tokens: false,
    },
    Preset {
        id: "openai",
        wire: Wire::OpenAi,
        base_url: Some("https://api.openai.com/v1"),
        key_env: Some("OPENAI_API_KEY"),
        key_required: true,
        default_model: Some("gpt-5"),
        max_completion_tokens: true,
    },
    openai_like(
        "openrouter",
        Some("https://openrouter.ai/api/v1"),
        Some("OPENROUTER_API_KEY"),
        true,
        Some("anthropic/claude-sonnet-4.5"),
    ),
    openai_like(
        "groq",
        Some("https://api.groq.com/openai/v1"),
        Some("GROQ_API_KEY"),
        true,
        Some("llama-3.3-70b-versatile"),
    ),
    openai_like(
        "deepseek",
        Some("https://api.deepseek.com/v1"),
        Some("DEEPSEEK_API_KEY"),
        true,
        Some("deepseek-chat"),
    ),
    openai_like(
        "openai-compatible",
        None,
        Some("OPENAI_COMPATIBLE_API_KEY"),
        false,
        None,
    ),
    openai_like(
        "ollama",
        Some("http://localhost:11434/v1"),
        None,
        false,
        Some("qwen3"),
    ),
    openai_like(
        "llamacpp",
        Some("http://localhost:8080/v1"),
        Some("LLAMACPP_API_KEY"),
        false,
        Some("default"),
    ),
    openai_like(
        "vllm",
        Some("http://localhost:8000/v1"),
        Some("VLLM_API_KEY"),
        false,
        None,
    ),
];

/// The preset for a `--provider` value (`llama.cpp`/`llama-cpp` alias `llamacpp`).
pub fn preset(name: &str) -> Option<&'static Preset> {
    let name = name.trim().to_ascii_lowercase();
    let name = match name.as_str() {
        "llama.cpp" | "llama-cpp" | "llama_cpp" => "llamacpp",
        "openai_compatible" => "openai-compatible",
        other => other,
    };
    PRESETS.iter().find(|p| p.id == name)
}

/// The `--provider` values, comma-separated (for error messages and help).
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}
