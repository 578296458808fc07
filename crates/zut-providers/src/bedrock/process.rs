//! `credential_process` of an AWS profile: a program that prints temporary
//! credentials as JSON in AWS's documented format
//! (`{"Version": 1, "AccessKeyId": …, "SecretAccessKey": …,
//! "SessionToken": …, "Expiration": "2026-12-06T12:00:00Z"}`). This is how
//! SSO logins reach tools that do not speak SSO themselves:
//! `credential_process = aws configure export-credentials --profile sso
//! --format process`.
//!
//! The command line runs through `sh -c`, as the AWS SDKs run it on Unix,
//! with no standard input, its standard error discarded, at most 60 s and
//! 64 KiB of output. The credentials are kept in memory only and fetched
//! again when less than five minutes remain before `Expiration` (never,
//! without one). Errors name the profile and what went wrong, never the
//! output.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::key_command::KeyCommand;

/// Time the command may take.
const TIMEOUT_MS: u64 = 60_000;
/// Credentials this close to their expiry are fetched again.
const REFRESH_BEFORE: Duration = Duration::from_secs(300);

/// Temporary AWS keys.
#[derive(Clone)]
pub(crate) struct Keys {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

struct Cached {
    keys: Keys,
    expires: Option<SystemTime>,
}

/// A profile's `credential_process` and its cached result.
#[derive(Clone)]
pub struct CredentialProcess {
    command: String,
    source: String,
    cache: Arc<Mutex<Option<Cached>>>,
}

impl PartialEq for CredentialProcess {
    fn eq(&self, other: &Self) -> bool {
        self.command == other.command && self.source == other.source
    }
}

impl Eq for CredentialProcess {}

impl std::fmt::Debug for CredentialProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialProcess")
            .field("command", &self.command)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl CredentialProcess {
    /// `command` (the profile's `credential_process`); `source` names the
    /// profile for errors (`profile sso in ~/.aws/config`).
    pub fn new(command: &str, source: &str) -> Self {
        Self {
            command: command.trim().to_string(),
            source: source.to_string(),
            cache: Arc::new(Mutex::new(None)),
        }
    }

    /// The command line.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The keys to sign with now: cached, or fetched by running the
    /// command (blocking: call it off the async runtime's threads).
    pub(crate) fn current(&self) -> Result<Keys, String> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = cache.as_ref() {
            let fresh = c
                .expires
                .is_none_or(|at| SystemTime::now() + REFRESH_BEFORE < at);
            if fresh {
                return Ok(c.keys.clone());
            }
        }
        let fail = |why: String| format!("the credential_process of {} failed: {why}", self.source);
        let cmd = KeyCommand {
            program: "sh".into(),
            args: vec!["-c".into(), self.command.clone()],
            timeout_ms: Some(TIMEOUT_MS),
        };
        let text = cmd.run_output().map_err(fail)?;
        let (keys, expires) = parse(&text).map_err(fail)?;
        *cache = Some(Cached {
            keys: keys.clone(),
            expires,
        });
        Ok(keys)
    }
}

/// The keys and expiry in the command's output.
fn parse(text: &str) -> Result<(Keys, Option<SystemTime>), String> {
    let v: Value = serde_json::from_str(text.trim())
        .map_err(|e| format!("its output is not the credential JSON AWS documents ({e})"))?;
    match v.get("Version").and_then(Value::as_u64) {
        Some(1) => {}
        _ => return Err("its output has no \"Version\": 1".into()),
    }
    let (keys, expires) = Keys::from_fields(|k| json_field(&v, k), "SessionToken", "its output")?;
    if expires.is_some_and(|at| at <= SystemTime::now()) {
        return Err("it printed credentials that have already expired".into());
    }
    Ok((keys, expires))
}

/// A non-empty string field of a JSON object.
pub(crate) fn json_field(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

impl Keys {
    /// The keys and expiry named `AccessKeyId`, `SecretAccessKey`, `token`
    /// and `Expiration` (RFC 3339) in an answer read by `field`; `source`
    /// names the answer in errors ("the STS answer").
    pub(crate) fn from_fields(
        field: impl Fn(&str) -> Option<String>,
        token: &str,
        source: &str,
    ) -> Result<(Keys, Option<SystemTime>), String> {
        let (Some(access_key_id), Some(secret_access_key)) =
            (field("AccessKeyId"), field("SecretAccessKey"))
        else {
            return Err(format!("{source} lacks AccessKeyId or SecretAccessKey"));
        };
        let expires = match field("Expiration") {
            None => None,
            Some(t) => Some(parse_rfc3339(&t).ok_or_else(|| {
                format!("the Expiration {t:?} in {source} is not an RFC 3339 time")
            })?),
        };
        let keys = Keys {
            access_key_id,
            secret_access_key,
            session_token: field(token),
        };
        Ok((keys, expires))
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` as a time.
pub(crate) fn parse_rfc3339(t: &str) -> Option<SystemTime> {
    let b = t.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { t.get(r)?.parse().ok() };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (hour, min, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || min > 59 || sec > 60 {
        return None;
    }
    let mut rest = &t[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = rest.get(1..)?.split_once(':')?;
            if h.len() != 2 || m.len() != 2 {
                return None;
            }
            sign * (h.parse::<i64>().ok()? * 3600 + m.parse::<i64>().ok()? * 60)
        }
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + hour * 3600 + min * 60 + sec - offset;
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times() {
        let at = |t: &str| {
            parse_rfc3339(t).map(|s| s.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).ok())
        };
        assert_eq!(at("1970-01-01T00:00:00Z"), Some(Some(0)));
        assert_eq!(at("2026-12-06T04:10:00Z"), Some(Some(1_796_530_200)));
        assert_eq!(
            at("2026-12-06T05:10:00.123+01:00"),
            Some(Some(1_796_530_200))
        );
        assert_eq!(at("2024-02-29T23:59:59-00:30"), Some(Some(1_709_252_999)));
        for bad in [
            "",
            "2026-12-06",
            "2026-13-01T00:00:00Z",
            "2026-12-06T00:00:00",
            "x026-12-06T00:00:00Z",
            "2026-12-06T00:00:00.Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn output_is_checked() {
        assert!(parse("not json")
            .unwrap_err()
            .contains("not the credential JSON"));
        assert!(parse(r#"{"AccessKeyId": "A", "SecretAccessKey": "S"}"#)
            .unwrap_err()
            .contains("Version"));
        assert!(parse(r#"{"Version": 1, "AccessKeyId": "A"}"#)
            .unwrap_err()
            .contains("SecretAccessKey"));
        assert!(parse(r#"{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "S", "Expiration": "2001-01-01T00:00:00Z"}"#)
            .unwrap_err()
            .contains("already expired"));
        let (k, exp) = parse(
            r#"{"Version": 1, "AccessKeyId": "A", "SecretAccessKey": "S", "SessionToken": "T"}"#,
        )
        .unwrap();
        assert_eq!(
            (k.access_key_id.as_str(), k.session_token.as_deref(), exp),
            ("A", Some("T"), None)
        );
    }
}
