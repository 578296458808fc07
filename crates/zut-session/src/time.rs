//! Time stamps as the Go original writes them (RFC 3339).

use std::time::SystemTime;

/// The current time as RFC 3339 in UTC with nanoseconds.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_nanos(SystemTime::now()).to_string()
}

/// `YYYYMMDD-HHMMSS` (UTC) of `t`, the prefix of a session file name.
pub fn file_stamp(t: SystemTime) -> String {
    // "2026-12-04T06:25:11Z"
    let s = humantime::format_rfc3339_seconds(t).to_string();
    let digits: String = s.chars().filter(char::is_ascii_digit).collect();
    if digits.len() >= 14 {
        format!("{}-{}", &digits[..8], &digits[8..14])
    } else {
        digits
    }
}
