//! STS `AssumeRole` (SigV4-signed with AWS's `aws-sigv4` crate) and
//! `AssumeRoleWithWebIdentity` (unsigned): the query API, a form body,
//! an XML answer whose `Credentials` element holds the keys.

use std::time::SystemTime;

use super::process::Keys;
use super::temporary::{signing_keys, timeout, Fetch};

/// The form body of an STS call (`Version=2011-06-15`).
fn form(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(&super::percent_encode(v));
    }
    out
}

/// Fetch keys for an `AssumeRole` or `WebIdentity` [`Fetch`].
pub(crate) async fn assume(
    fetch: &Fetch,
    client: &reqwest::Client,
) -> Result<(Keys, Option<SystemTime>), String> {
    const FORM: &str = "application/x-www-form-urlencoded; charset=utf-8";
    let request = match fetch {
        Fetch::AssumeRole {
            role_arn,
            session_name,
            external_id,
            base,
            endpoint,
            region,
        } => {
            let mut pairs = vec![
                ("Action", "AssumeRole"),
                ("Version", "2011-06-15"),
                ("RoleArn", role_arn.as_str()),
                ("RoleSessionName", session_name.as_str()),
            ];
            if let Some(id) = external_id {
                pairs.push(("ExternalId", id.as_str()));
            }
            let body = form(&pairs);
            let url = format!("{endpoint}/");
            let keys = signing_keys(base, client)
                .await?
                .ok_or("a Bedrock API key cannot assume a role")?;
            let headers = super::sign::sigv4_headers(
                "POST",
                &url,
                &[("content-type", FORM)],
                body.as_bytes(),
                &keys.access_key_id,
                &keys.secret_access_key,
                keys.session_token.as_deref(),
                region,
                "sts",
                SystemTime::now(),
            )?;
            let mut builder = client.post(url).header("content-type", FORM).body(body);
            for (name, value) in headers {
                builder = builder.header(name, value);
            }
            builder
        }
        Fetch::WebIdentity {
            role_arn,
            session_name,
            token_file,
            named_by,
            endpoint,
        } => {
            let token = std::fs::read_to_string(token_file).map_err(|e| {
                format!(
                    "cannot read the web identity token file {} (named by {named_by}): {e}",
                    token_file.display()
                )
            })?;
            let body = form(&[
                ("Action", "AssumeRoleWithWebIdentity"),
                ("Version", "2011-06-15"),
                ("RoleArn", role_arn),
                ("RoleSessionName", session_name),
                ("WebIdentityToken", token.trim()),
            ]);
            client
                .post(format!("{endpoint}/"))
                .header("content-type", FORM)
                .body(body)
        }
        Fetch::Sso { .. } | Fetch::Container { .. } => return Err("not an STS call".into()),
    };
    let response = request
        .timeout(timeout())
        .send()
        .await
        .map_err(|e| format!("STS is unreachable: {e}"))?;
    let status = response.status().as_u16();
    let text = response
        .text()
        .await
        .map_err(|e| format!("STS answer cut: {e}"))?;
    if status != 200 {
        let code = element(&text, "Code").unwrap_or_default();
        let message = element(&text, "Message").unwrap_or_else(|| "no message".into());
        let hint = match fetch {
            Fetch::WebIdentity {
                token_file,
                named_by,
                ..
            } => format!(
                " (check the token in {} named by {named_by}, and the role's trust policy)",
                token_file.display()
            ),
            _ => " (check the source credentials and the role's trust policy)".into(),
        };
        return Err(format!("STS answered {status} {code}: {message}{hint}"));
    }
    parse(&text)
}

/// The keys and expiry in an STS answer.
fn parse(text: &str) -> Result<(Keys, Option<SystemTime>), String> {
    let creds = between(text, "Credentials").ok_or("the STS answer has no Credentials")?;
    Keys::from_fields(|k| element(creds, k), "SessionToken", "the STS answer")
}

/// The raw text inside the first `<tag>…</tag>`.
fn between<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find(&close)?;
    Some(&text[start..end])
}

/// The unescaped, trimmed text of the first `<tag>` (`None` when empty).
fn element(text: &str, tag: &str) -> Option<String> {
    let raw = between(text, tag)?.trim();
    if raw.is_empty() {
        return None;
    }
    Some(
        raw.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&apos;", "'")
            .replace("&amp;", "&"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_and_errors() {
        let ok = "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>\
                  <Credentials><AccessKeyId>ASIA1</AccessKeyId><SecretAccessKey>s/e+c&amp;</SecretAccessKey>\
                  <SessionToken>tok</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>\
                  </AssumeRoleResult></AssumeRoleResponse>";
        let (keys, exp) = parse(ok).unwrap();
        assert_eq!(keys.access_key_id, "ASIA1");
        assert_eq!(keys.secret_access_key, "s/e+c&");
        assert_eq!(keys.session_token.as_deref(), Some("tok"));
        assert!(exp.is_some());
        assert!(parse("<x/>").unwrap_err().contains("no Credentials"));
        assert!(
            parse("<Credentials><AccessKeyId>A</AccessKeyId></Credentials>")
                .unwrap_err()
                .contains("SecretAccessKey")
        );
        assert_eq!(
            form(&[("RoleArn", "arn:aws:iam::1:role/a b")]),
            "RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fa%20b"
        );
    }
}
