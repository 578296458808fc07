//! zut's SigV4 signing (through the `aws-sigv4` crate) against AWS's
//! published Signature Version 4 test-suite vectors (`get-vanilla`,
//! `post-vanilla`: credentials `AKIDEXAMPLE` /
//! `wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY`, region `us-east-1`, service
//! `service`, 2015-08-30T12:36:00Z).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, SystemTime};

use zut_providers::sigv4_headers;

/// 2015-08-30T12:36:00Z.
fn vector_time() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_440_938_160)
}

fn sign(method: &str, token: Option<&str>) -> Vec<(String, String)> {
    sigv4_headers(
        method,
        "https://example.amazonaws.com/",
        &[],
        b"",
        "AKIDEXAMPLE",
        "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        token,
        "us-east-1",
        "service",
        vector_time(),
    )
    .unwrap()
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("no {name} in {headers:?}"))
}

#[test]
fn get_vanilla() {
    let headers = sign("GET", None);
    assert_eq!(header(&headers, "x-amz-date"), "20150830T123600Z");
    assert_eq!(
        header(&headers, "authorization"),
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
         SignedHeaders=host;x-amz-date, \
         Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
    );
}

#[test]
fn post_vanilla() {
    let headers = sign("POST", None);
    assert_eq!(
        header(&headers, "authorization"),
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, \
         SignedHeaders=host;x-amz-date, \
         Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"
    );
}

#[test]
fn session_token_is_sent_and_signed() {
    let headers = sign("POST", Some("session-token-1"));
    assert_eq!(header(&headers, "x-amz-security-token"), "session-token-1");
    assert!(header(&headers, "authorization")
        .contains("SignedHeaders=host;x-amz-date;x-amz-security-token"));
}
