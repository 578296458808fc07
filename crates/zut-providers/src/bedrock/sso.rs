//! AWS IAM Identity Center (SSO): the access token that `aws sso login`
//! cached in `~/.aws/sso/cache/<sha1>.json` (SHA-1 of the `sso_session`
//! name, or of the legacy `sso_start_url`), exchanged at the portal's
//! `GET /federation/credentials` for role keys. zut does not log in nor
//! refresh the token itself: a missing or expired token is an error that
//! says to run `aws sso login --profile NAME`.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;
use sha1::{Digest, Sha1};

use super::process::{json_field, parse_rfc3339, Keys};
use super::temporary::{from_millis, timeout, Fetch};

/// `~/.aws/sso/cache/<hex sha1 of key>.json`.
pub(crate) fn cache_file(home: &Path, key: &str) -> PathBuf {
    let digest = Sha1::digest(key.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    home.join(".aws")
        .join("sso")
        .join("cache")
        .join(format!("{hex}.json"))
}

/// Fetch keys for a [`Fetch::Sso`].
pub(crate) async fn role_credentials(
    fetch: &Fetch,
    client: &reqwest::Client,
) -> Result<(Keys, Option<SystemTime>), String> {
    let Fetch::Sso {
        profile,
        account_id,
        role_name,
        cache_file,
        endpoint,
    } = fetch
    else {
        return Err("not an SSO profile".into());
    };
    let login = format!("run `aws sso login --profile {profile}`");
    let text = std::fs::read_to_string(cache_file)
        .map_err(|e| format!("no SSO token in {} ({e}); {login}", cache_file.display()))?;
    let cached: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not an SSO token cache ({e}); {login}",
            cache_file.display()
        )
    })?;
    let token = cached
        .get("accessToken")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("{} has no accessToken; {login}", cache_file.display()))?;
    let expires_at = cached
        .get("expiresAt")
        .and_then(Value::as_str)
        .unwrap_or("");
    match parse_rfc3339(expires_at) {
        Some(at) if at > SystemTime::now() => {}
        Some(_) => {
            return Err(format!(
                "the SSO token in {} expired at {expires_at}; {login}",
                cache_file.display()
            ))
        }
        None => {
            return Err(format!(
                "{} has no valid expiresAt; {login}",
                cache_file.display()
            ))
        }
    }
    let url = format!(
        "{endpoint}/federation/credentials?role_name={}&account_id={}",
        super::percent_encode(role_name),
        super::percent_encode(account_id)
    );
    let response = client
        .get(url)
        .header("x-amz-sso_bearer_token", token)
        .timeout(timeout())
        .send()
        .await
        .map_err(|e| format!("the SSO portal is unreachable: {e}"))?;
    let status = response.status().as_u16();
    let text = response
        .text()
        .await
        .map_err(|e| format!("SSO portal answer cut: {e}"))?;
    if status != 200 {
        let message = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|v| {
                v.get("message")
                    .or_else(|| v.get("Message"))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "no message".into());
        let fix = if matches!(status, 401 | 403) {
            format!(
                "; {login}, and check sso_account_id {account_id} and sso_role_name {role_name}"
            )
        } else {
            String::new()
        };
        return Err(format!("the SSO portal answered {status}: {message}{fix}"));
    }
    parse(&text)
}

/// The keys in a `GetRoleCredentials` answer.
fn parse(text: &str) -> Result<(Keys, Option<SystemTime>), String> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| format!("the SSO portal's answer is not JSON ({e})"))?;
    let creds = v
        .get("roleCredentials")
        .ok_or("the SSO portal's answer has no roleCredentials")?;
    let field = |k: &str| json_field(creds, k);
    let (Some(access_key_id), Some(secret_access_key)) =
        (field("accessKeyId"), field("secretAccessKey"))
    else {
        return Err("the SSO portal's answer lacks accessKeyId or secretAccessKey".into());
    };
    Ok((
        Keys {
            access_key_id,
            secret_access_key,
            session_token: field("sessionToken"),
        },
        creds
            .get("expiration")
            .and_then(Value::as_u64)
            .map(from_millis),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_file_is_the_sha1_of_the_session() {
        // sha1("abc"), FIPS 180 example vector.
        let f = cache_file(Path::new("/h"), "abc");
        assert_eq!(
            f,
            Path::new("/h/.aws/sso/cache/a9993e364706816aba3e25717850c26c9cd0d89d.json")
        );
        let (k, exp) = parse(
            r#"{"roleCredentials":{"accessKeyId":"A","secretAccessKey":"S","sessionToken":"T","expiration":4102444800000}}"#,
        )
        .unwrap();
        assert_eq!(
            (k.access_key_id.as_str(), k.session_token.as_deref()),
            ("A", Some("T"))
        );
        assert!(exp.is_some());
        assert!(parse("{}").unwrap_err().contains("roleCredentials"));
    }
}
