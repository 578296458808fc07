//! `--stats FILE`: provider, model, token counts and elapsed time as JSON.

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
    let value = json!({
        "provider": provider,
        "model": model,
        "steps": steps,
        "input_tokens": usage.input,
        "output_tokens": usage.output,
        "reasoning_tokens": usage.reasoning,
        "cache_read_tokens": usage.cache_read,
        "cache_write_tokens": usage.cache_write,
        "elapsed_ms": elapsed_ms,
    });
    let text = format!("{value:#}\n");
    if let Err(e) = std::fs::write(path, text) {
        crate::errln!("zut: --stats {}: {e}", path.display());
    }
}
