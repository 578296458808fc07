//! SigV4 signing of Bedrock requests with the AWS signing crate
//! (`aws-sigv4`); no signing code of zut's own.

use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;

/// The headers to add to a request so that it is signed for `service` in
/// `region` at `time` (`authorization`, `x-amz-date`, and
/// `x-amz-security-token` with temporary credentials). `headers` are the
/// request's other headers (all signed); `url` must be percent-encoded.
#[allow(clippy::too_many_arguments)]
pub fn sigv4_headers(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    access_key_id: &str,
    secret_access_key: &str,
    session_token: Option<&str>,
    region: &str,
    service: &str,
    time: SystemTime,
) -> Result<Vec<(String, String)>, String> {
    let identity: Identity = Credentials::new(
        access_key_id,
        secret_access_key,
        session_token.map(str::to_string),
        None,
        "zut",
    )
    .into();
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(time)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| format!("cannot sign the request: {e}"))?
        .into();
    let request = SignableRequest::new(
        method,
        url,
        headers.iter().copied(),
        SignableBody::Bytes(body),
    )
    .map_err(|e| format!("cannot sign the request: {e}"))?;
    let (instructions, _signature) = sign(request, &params)
        .map_err(|e| format!("cannot sign the request: {e}"))?
        .into_parts();
    Ok(instructions
        .headers()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect())
}
