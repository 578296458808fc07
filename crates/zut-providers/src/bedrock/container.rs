//! Container credentials, as ECS tasks and EKS Pod Identity give them: a
//! GET of `AWS_CONTAINER_CREDENTIALS_FULL_URI` (or
//! `http://169.254.170.2` + `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`) with
//! `Authorization` from `AWS_CONTAINER_AUTHORIZATION_TOKEN` or the file
//! `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read at each fetch: it is
//! rotated), answered with `{"AccessKeyId", "SecretAccessKey", "Token",
//! "Expiration"}`. As in the AWS SDKs, a full URI over plain HTTP must be
//! a loopback address or the ECS / EKS link-local one.

use std::path::PathBuf;
use std::time::SystemTime;

use serde_json::Value;

use super::process::{json_field, Keys};
use super::temporary::{timeout, Fetch};

/// ECS's credentials host for relative URIs.
const ECS_HOST: &str = "http://169.254.170.2";

/// The [`Fetch::Container`] the environment asks for, if any.
pub(crate) fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Fetch>, String> {
    let (url, named_by) = if let Some(relative) = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
        (
            format!("{ECS_HOST}{relative}"),
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        )
    } else if let Some(full) = env("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
        if !allowed(&full) {
            return Err(format!(
                "AWS_CONTAINER_CREDENTIALS_FULL_URI {full:?} must be https, or http to a loopback \
                 address or to 169.254.170.2 / 169.254.170.23"
            ));
        }
        (full, "AWS_CONTAINER_CREDENTIALS_FULL_URI")
    } else {
        return Ok(None);
    };
    Ok(Some(Fetch::Container {
        url,
        named_by: named_by.to_string(),
        token: env("AWS_CONTAINER_AUTHORIZATION_TOKEN"),
        token_file: env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE").map(PathBuf::from),
    }))
}

/// https anywhere; http to loopback or the ECS / EKS hosts.
fn allowed(url: &str) -> bool {
    if url.starts_with("https://") {
        return true;
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    host == "localhost"
        || host == "::1"
        || host == "169.254.170.2"
        || host == "169.254.170.23"
        || host.eq_ignore_ascii_case("fd00:ec2::23")
        || host.starts_with("127.")
}

/// Fetch keys for a [`Fetch::Container`].
pub(crate) async fn fetch(
    fetch: &Fetch,
    client: &reqwest::Client,
) -> Result<(Keys, Option<SystemTime>), String> {
    let Fetch::Container {
        url,
        named_by,
        token,
        token_file,
    } = fetch
    else {
        return Err("not container credentials".into());
    };
    let authorization = match (token_file, token) {
        (Some(file), _) => Some(
            std::fs::read_to_string(file)
                .map_err(|e| {
                    format!(
                        "cannot read {} (AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE): {e}",
                        file.display()
                    )
                })?
                .trim()
                .to_string(),
        ),
        (None, Some(t)) => Some(t.clone()),
        (None, None) => None,
    };
    let mut request = client.get(url).timeout(timeout());
    if let Some(a) = authorization {
        request = request.header("authorization", a);
    }
    let response = request.send().await.map_err(|e| {
        format!("the container credentials endpoint ({named_by}) is unreachable: {e}")
    })?;
    let status = response.status().as_u16();
    let text = response
        .text()
        .await
        .map_err(|e| format!("container credentials cut: {e}"))?;
    if status != 200 {
        return Err(format!(
            "the container credentials endpoint ({named_by}) answered {status}; check \
             AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE) and the task or pod role"
        ));
    }
    parse(&text)
}

fn parse(text: &str) -> Result<(Keys, Option<SystemTime>), String> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| format!("the container credentials are not JSON ({e})"))?;
    Keys::from_fields(|k| json_field(&v, k), "Token", "the container's answer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_uris_are_restricted() {
        for ok in [
            "https://creds.example.com/x",
            "http://127.0.0.1:8080/creds",
            "http://localhost/c",
            "http://[::1]:9/c",
            "http://169.254.170.23/v1/credentials",
        ] {
            assert!(allowed(ok), "{ok}");
        }
        for bad in [
            "http://example.com/c",
            "ftp://127.0.0.1/",
            "http://10.0.0.1/",
        ] {
            assert!(!allowed(bad), "{bad}");
        }
        let (k, _) = parse(r#"{"AccessKeyId":"A","SecretAccessKey":"S","Token":"T","Expiration":"2099-01-01T00:00:00Z"}"#).unwrap();
        assert_eq!(k.session_token.as_deref(), Some("T"));
        assert!(parse("{}").unwrap_err().contains("AccessKeyId"));
    }
}
