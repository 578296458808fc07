//! Retry policy: exponential backoff with jitter, honouring `retry-after`.

use std::time::{Duration, SystemTime};

/// How failed requests are retried. Only failures that happen before any
/// output was streamed are retried: 408/409/429/5xx/529 statuses,
/// `overloaded`-type error events, connection failures and streams that
/// drop before their first content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts, including the first (at least 1). Default 4.
    pub max_attempts: u32,
    /// Backoff before the first retry; doubled each retry. Default 1 s.
    pub base_delay: Duration,
    /// Upper bound of a backoff delay and of an honoured `retry-after`. Default 60 s.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The delay before retrying after failed attempt `attempt` (1-based).
    /// A server-provided `retry_after` wins (capped at `max_delay`); otherwise
    /// `base_delay * 2^(attempt-1)` capped, with "equal jitter" (a random
    /// value between half and all of it).
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let exp = attempt.saturating_sub(1).min(20);
        let full = self
            .base_delay
            .saturating_mul(1u32 << exp)
            .min(self.max_delay);
        let half = full / 2;
        let jitter_ms = fastrand::u64(0..=half.as_millis().min(u64::MAX as u128) as u64);
        half + Duration::from_millis(jitter_ms)
    }
}

/// Parse a `retry-after` header value: delay seconds (integer or decimal) or
/// an HTTP date (relative to `now`, zero when in the past).
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = value.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_secs_f64(secs.min(1e9)));
        }
        return None;
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The retry delay a response asks for: `retry-after-ms` (OpenAI) or `retry-after`.
pub(crate) fn retry_after_from_headers(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms.min(1e12) / 1000.0));
    }
    headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| parse_retry_after(v, SystemTime::now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(30))
        );
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(30));
        assert_eq!(parse_retry_after(&earlier, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }

    #[test]
    fn backoff_grows_with_jitter_and_caps() {
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(1000),
        };
        for _ in 0..50 {
            let d1 = policy.delay(1, None);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            let d3 = policy.delay(3, None);
            assert!(d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400));
            let d9 = policy.delay(9, None);
            assert!(d9 >= Duration::from_millis(500) && d9 <= Duration::from_millis(1000));
        }
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(5))),
            Duration::from_millis(1000)
        );
        assert_eq!(
            policy.delay(1, Some(Duration::from_millis(300))),
            Duration::from_millis(300)
        );
    }
}
