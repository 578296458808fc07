//! `--stats FILE`: provider, model, token counts, cost and elapsed time
//! as JSON.

use std::path::Path;

use serde_json::json;
use zut_agent::UsageCounts;

/// Writes the stats file; failures are reported, never fatal.
pub fn write(
    path: &Path,
    provider: &str,
    model: &str,
    usage: &UsageCounts,
    steps: u64,
    elapsed_ms: u128,
) {
    // The Go original's fields (`prompt_tokens` counts cache reads and
    // writes; `generated_output_tokens` is the output less the reasoning
    // when that is reported), then zut's.
    let generated = match usage.reasoning {
        Some(r) => usage.output.saturating_sub(r),
        None => usage.output,
    };
    let value = json!({
        "provider": provider,
        "model": model,
        "prompt_tokens": usage.input + usage.cache_read + usage.cache_write,
        "reasoning_tokens": usage.reasoning,
        "generated_output_tokens": generated,
        "elapsed_ms": elapsed_ms,
        "steps": steps,
        "input_tokens": usage.input,
        "output_tokens": usage.output,
        "cache_read_tokens": usage.cache_read,
        "cache_write_tokens": usage.cache_write,
        "cost_usd": usage.cost_usd,
        "cost_known": usage.cost_known,
    });
    let text = format!("{value:#}\n");
    if let Err(e) = std::fs::write(path, text) {
        crate::errln!("zut: --stats {}: {e}", path.display());
    }
}
