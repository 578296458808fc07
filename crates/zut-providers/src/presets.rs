//! Built-in provider presets (`--provider` values).
//!
//! Ids, key variables and default models are the Go original's, so
//! configurations and scripts carry over.

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
    /// OpenAI Responses API (`POST {base}/responses`).
    Responses,
}

/// How the API key is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    /// The wire's usual header: `x-api-key: <key>` on the Anthropic wire,
    /// `Authorization: Bearer <key>` on the OpenAI wires (also Azure with
    /// an Entra ID token).
    WireDefault,
    /// `api-key: <key>` (Azure OpenAI resource keys).
    ApiKeyHeader,
    /// `cf-aig-authorization: Bearer <key>` (Cloudflare AI Gateway; the
    /// `Authorization` header is left to the gateway's upstream).
    CloudflareGateway,
}

/// One `--provider` preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// The `--provider` value.
    pub id: &'static str,
    /// Wire format.
    pub wire: Wire,
    /// Default base URL (`None`: `--base-url` is required). May hold
    /// `{VARIABLE}` placeholders filled from the environment (Cloudflare's
    /// account and gateway ids).
    pub base_url: Option<&'static str>,
    /// Environment variable holding the API key.
    pub key_env: Option<&'static str>,
    /// A second key variable, read when the first is unset.
    pub alt_key_env: Option<&'static str>,
    /// Whether a request without a key is refused at configuration time.
    pub key_required: bool,
    /// Default model (`None`: `--model` is required).
    pub default_model: Option<&'static str>,
    /// OpenAI wire: send the cap as `max_completion_tokens` (else `max_tokens`).
    pub max_completion_tokens: bool,
    /// How the key is sent.
    pub auth: Auth,
    /// Azure OpenAI addressing: model ids map to deployments, every request
    /// carries `api-version`.
    pub azure: bool,
    /// Base URL used instead of `base_url` when the key variable is set
    /// (Ollama Cloud with `OLLAMA_API_KEY`).
    pub keyed_base_url: Option<&'static str>,
    /// Models that only exist on the Responses API: requests for them go
    /// there although the preset speaks chat completions.
    pub responses_models: &'static [&'static str],
}

const fn chat(
    id: &'static str,
    base_url: Option<&'static str>,
    key_env: Option<&'static str>,
    default_model: Option<&'static str>,
) -> Preset {
    Preset {
        id,
        wire: Wire::OpenAi,
        base_url,
        key_env,
        alt_key_env: None,
        key_required: true,
        default_model,
        max_completion_tokens: false,
        auth: Auth::WireDefault,
        azure: false,
        keyed_base_url: None,
        responses_models: &[],
    }
}

const fn local(preset: Preset) -> Preset {
    Preset {
        key_required: false,
        ..preset
    }
}

const fn messages(preset: Preset) -> Preset {
    Preset {
        wire: Wire::Anthropic,
        ..preset
    }
}

/// Every preset, in the order used to pick a default provider.
pub const PRESETS: &[Preset] = &[
    messages(chat(
        "anthropic",
        Some("https://api.anthropic.com"),
        Some("ANTHROPIC_API_KEY"),
        Some("claude-sonnet-4-5"),
    )),
    Preset {
        max_completion_tokens: true,
        responses_models: &["gpt-5.6-luna", "gpt-5.6-sol", "gpt-5.6-terra"],
        ..chat(
            "openai",
            Some("https://api.openai.com/v1"),
            Some("OPENAI_API_KEY"),
            Some("gpt-5"),
        )
    },
    chat(
        "openrouter",
        Some("https://openrouter.ai/api/v1"),
        Some("OPENROUTER_API_KEY"),
        Some("anthropic/claude-sonnet-4.5"),
    ),
    chat(
        "groq",
        Some("https://api.groq.com/openai/v1"),
        Some("GROQ_API_KEY"),
        Some("llama-3.3-70b-versatile"),
    ),
    chat(
        "deepseek",
        Some("https://api.deepseek.com/v1"),
        Some("DEEPSEEK_API_KEY"),
        Some("deepseek-chat"),
    ),
    local(chat(
        "openai-compatible",
        None,
        Some("OPENAI_COMPATIBLE_API_KEY"),
        None,
    )),
    Preset {
        keyed_base_url: Some("https://ollama.com/v1"),
        ..local(chat(
            "ollama",
            Some("http://localhost:11434/v1"),
            Some("OLLAMA_API_KEY"),
            Some("qwen3"),
        ))
    },
    local(chat(
        "llamacpp",
        Some("http://localhost:8080/v1"),
        Some("LLAMACPP_API_KEY"),
        Some("default"),
    )),
    local(chat(
        "vllm",
        Some("http://localhost:8000/v1"),
        Some("VLLM_API_KEY"),
        None,
    )),
    Preset {
        wire: Wire::Responses,
        ..chat(
            "openai-responses",
            Some("https://api.openai.com/v1"),
            Some("OPENAI_API_KEY"),
            Some("gpt-5"),
        )
    },
    Preset {
        wire: Wire::Responses,
        auth: Auth::ApiKeyHeader,
        azure: true,
        ..chat(
            "azure-openai-responses",
            Some("https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com"),
            Some("AZURE_OPENAI_API_KEY"),
            Some("gpt-5"),
        )
    },
    Preset {
        auth: Auth::ApiKeyHeader,
        azure: true,
        ..chat(
            "azure-openai",
            Some("https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com"),
            Some("AZURE_OPENAI_API_KEY"),
            Some("gpt-5"),
        )
    },
    Preset {
        responses_models: &["grok-4.5"],
        ..chat(
            "xai",
            Some("https://api.x.ai/v1"),
            Some("XAI_API_KEY"),
            Some("grok-4.5"),
        )
    },
    chat(
        "mistral",
        Some("https://api.mistral.ai/v1"),
        Some("MISTRAL_API_KEY"),
        Some("mistral-large-latest"),
    ),
    chat(
        "cerebras",
        Some("https://api.cerebras.ai/v1"),
        Some("CEREBRAS_API_KEY"),
        Some("qwen-3-235b-a22b-instruct-2507"),
    ),
    chat(
        "together",
        Some("https://api.together.ai/v1"),
        Some("TOGETHER_API_KEY"),
        Some("Qwen/Qwen3-Coder-480B-A35B-Instruct"),
    ),
    chat(
        "huggingface",
        Some("https://router.huggingface.co/v1"),
        Some("HF_TOKEN"),
        Some("moonshotai/Kimi-K2-Instruct"),
    ),
    messages(chat(
        "fireworks",
        Some("https://api.fireworks.ai/inference"),
        Some("FIREWORKS_API_KEY"),
        Some("accounts/fireworks/models/kimi-k2p6"),
    )),
    chat(
        "zai",
        Some("https://api.z.ai/api/coding/paas/v4"),
        Some("ZAI_API_KEY"),
        Some("glm-4.7"),
    ),
    chat(
        "moonshotai",
        Some("https://api.moonshot.ai/v1"),
        Some("MOONSHOT_API_KEY"),
        Some("kimi-k2.6"),
    ),
    chat(
        "moonshotai-cn",
        Some("https://api.moonshot.cn/v1"),
        Some("MOONSHOT_API_KEY"),
        Some("kimi-k2.6"),
    ),
    messages(chat(
        "minimax",
        Some("https://api.minimax.io/anthropic"),
        Some("MINIMAX_API_KEY"),
        Some("MiniMax-M2.7"),
    )),
    Preset {
        alt_key_env: Some("MINIMAX_API_KEY"),
        ..messages(chat(
            "minimax-cn",
            Some("https://api.minimaxi.com/anthropic"),
            Some("MINIMAX_CN_API_KEY"),
            Some("MiniMax-M2.7"),
        ))
    },
    messages(chat(
        "vercel-ai-gateway",
        Some("https://ai-gateway.vercel.sh"),
        Some("AI_GATEWAY_API_KEY"),
        Some("anthropic/claude-sonnet-4.5"),
    )),
    chat(
        "cloudflare-workers-ai",
        Some("https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"),
        Some("CLOUDFLARE_API_KEY"),
        Some("@cf/meta/llama-3.3-70b-instruct-fp8-fast"),
    ),
    Preset {
        auth: Auth::CloudflareGateway,
        ..chat(
            "cloudflare-ai-gateway",
            Some("https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/compat"),
            Some("CLOUDFLARE_API_KEY"),
            Some("openai/gpt-4o"),
        )
    },
    Preset {
        alt_key_env: Some("GOOGLE_API_KEY"),
        wire: Wire::Gemini,
        ..chat(
            "google",
            Some("https://generativelanguage.googleapis.com"),
            Some("GEMINI_API_KEY"),
            Some("gemini-2.5-pro"),
        )
    },
    Preset {
        wire: Wire::Vertex,
        // Credentials, project and region: see `cloud::resolve`; the base
        // URL comes from GOOGLE_CLOUD_LOCATION (`cloud::default_base_url`).
        key_required: false,
        ..chat("google-vertex", None, None, Some("gemini-2.5-pro"))
    },
    Preset {
        wire: Wire::Bedrock,
        // The AWS credential chain (`cloud::resolve`); the base URL comes
        // from the AWS region (`cloud::default_base_url`).
        key_required: false,
        ..chat(
            "amazon-bedrock",
            None,
            None,
            Some("anthropic.claude-sonnet-4-5-20250929-v1:0"),
        )
    },
];

/// The preset for a `--provider` value (`llama.cpp`/`llama-cpp` alias
/// `llamacpp`; `gemini`, `vertex`, `bedrock`, `moonshot` and `azure` as in
/// the Go original).
pub fn preset(name: &str) -> Option<&'static Preset> {
    let name = name.trim().to_ascii_lowercase();
    let name = match name.as_str() {
        "llama.cpp" | "llama-cpp" | "llama_cpp" => "llamacpp",
        "openai_compatible" => "openai-compatible",
        "gemini" | "googleai" | "google-ai" => "google",
        "vertex" | "gcp-vertex" | "vertex-ai" => "google-vertex",
        "bedrock" | "aws-bedrock" | "amazon" => "amazon-bedrock",
        "moonshot" => "moonshotai",
        "azure" => "azure-openai-responses",
        other => other,
    };
    PRESETS.iter().find(|p| p.id == name)
}

/// The `--provider` values, comma-separated (for error messages and help).
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| p.id).collect::<Vec<_>>().join(", ")
}

impl Preset {
    /// Whether `model` only exists on the Responses API for this preset.
    pub fn responses_only(&self, model: &str) -> bool {
        self.responses_models.contains(&model)
    }
}
