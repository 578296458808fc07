//! Built-in provider presets (`--provider` values).

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic Messages API (`POST {base}/v1/messages`).
    Anthropic,
    /// OpenAI-compatible chat completions (`POST {base}/chat/completions`).
    OpenAi,
    /// Google Gemini (`POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse`).
    Gemini,
    /// Vertex AI: Gemini models (`streamGenerateContent`) and Claude
    /// (`streamRawPredict`) under `{base}/v1/projects/{project}/locations/{location}`.
    Vertex,
    /// Amazon Bedrock Converse-Stream (`POST {base}/model/{model}/converse-stream`).
    Bedrock,
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
    Preset {
        id: "google",
        wire: Wire::Gemini,
        base_url: Some("https://generativelanguage.googleapis.com"),
        key_env: Some("GEMINI_API_KEY"),
        key_required: true,
        default_model: Some("gemini-2.5-pro"),
        max_completion_tokens: false,
    },
    Preset {
        id: "google-vertex",
        wire: Wire::Vertex,
        // From GOOGLE_CLOUD_LOCATION (see `cloud::default_base_url`).
        base_url: None,
        key_env: None,
        key_required: false,
        default_model: Some("gemini-2.5-pro"),
        max_completion_tokens: false,
    },
    Preset {
        id: "amazon-bedrock",
        wire: Wire::Bedrock,
        // From the AWS region (see `cloud::default_base_url`).
        base_url: None,
        key_env: None,
        key_required: false,
        default_model: Some("anthropic.claude-sonnet-4-5-20250929-v1:0"),
        max_completion_tokens: false,
    },
];

/// The preset for a `--provider` value (`llama.cpp`/`llama-cpp` alias
/// `llamacpp`; `gemini`, `vertex`, `bedrock` as in the Go original).
pub fn preset(name: &str) -> Option<&'static Preset> {
    let name = name.trim().to_ascii_lowercase();
    let name = match name.as_str() {
        "llama.cpp" | "llama-cpp" | "llama_cpp" => "llamacpp",
        "openai_compatible" => "openai-compatible",
        "gemini" | "googleai" | "google-ai" => "google",
        "vertex" | "gcp-vertex" | "vertex-ai" => "google-vertex",
        "bedrock" | "aws-bedrock" | "amazon" => "amazon-bedrock",
        other => other,
    };
    PRESETS.iter().find(|p| p.id == name)
}

/// The `--provider` values, comma-separated (for error messages and help).
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}
