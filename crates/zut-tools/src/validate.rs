//! JSON Schema validation of tool arguments (built-in and extension tools).

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::Value;

/// At most this many violations are listed in one error text.
const MAX_REPORTED_ERRORS: usize = 8;
/// Each violation's message is cut to this many characters (the validator
/// quotes the offending value, which may be huge).
const MAX_MESSAGE_CHARS: usize = 300;

/// A JSON Schema compiled once and reused for many argument checks.
pub struct ArgValidator {
    validator: jsonschema::Validator,
}

impl fmt::Debug for ArgValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ArgValidator").finish_non_exhaustive()
    }
}

impl ArgValidator {
    /// Compiles `schema`. An invalid schema (for instance from an extension)
    /// is an `Err` describing the problem, never a panic. Remote `$ref`s are
    /// not fetched.
    pub fn new(schema: &Value) -> Result<Self, String> {
        let compiled = catch_unwind(AssertUnwindSafe(|| {
            jsonschema::validator_for(schema).map_err(|e| e.to_string())
        }));
        match compiled {
            Ok(Ok(validator)) => Ok(Self { validator }),
            Ok(Err(e)) => Err(format!(
                "invalid JSON Schema: {}",
                clip(&e, MAX_MESSAGE_CHARS)
            )),
            Err(_) => Err("invalid JSON Schema: the validator could not compile it".into()),
        }
    }

    /// Checks `args`. The error text lists each violation with the JSON
    /// pointer of the offending field (`(root)` for the whole object) and the
    /// schema rule that failed, e.g.
    /// `/timeout: 0 is less than the minimum of 1 (rule: minimum)`.
    pub fn validate(&self, args: &Value) -> Result<(), String> {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let mut lines = Vec::new();
            let mut total = 0usize;
            for err in self.validator.iter_errors(args) {
                total += 1;
                if lines.len() < MAX_REPORTED_ERRORS {
                    lines.push(describe(&err));
                }
            }
            (lines, total)
        }));
        let (lines, total) = match outcome {
            Ok(v) => v,
            Err(_) => return Err("arguments could not be validated against the schema".into()),
        };
        if total == 0 {
            return Ok(());
        }
        let mut text = lines.join("; ");
        if total > lines.len() {
            text.push_str(&format!("; and {} more violation(s)", total - lines.len()));
        }
        Err(text)
    }
}

/// One-shot validation: compiles `schema` and checks `args` against it.
/// Prefer [`ArgValidator`] when the same schema is used repeatedly.
pub fn validate_args(schema: &Value, args: &Value) -> Result<(), String> {
    ArgValidator::new(schema)?.validate(args)
}

fn describe(err: &jsonschema::ValidationError<'_>) -> String {
    let path = err.instance_path().as_str();
    let path = if path.is_empty() { "(root)" } else { path };
    let schema_path = err.schema_path().as_str();
    let rule = schema_path.rsplit('/').next().unwrap_or("");
    let message = clip(&err.to_string(), MAX_MESSAGE_CHARS);
    if rule.is_empty() {
        format!("{path}: {message}")
    } else {
        format!("{path}: {message} (rule: {rule})")
    }
}

/// Cuts `s` to at most `max` characters, marking the cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((idx, _)) => format!("{}…", &s[..idx]),
    }
}
