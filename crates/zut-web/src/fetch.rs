//! The page fetch: redirects followed by hand (each target checked), a DNS
//! resolver that returns only checked addresses (the connection dials what
//! was checked: no rebinding between check and connect), time caps for the
//! whole fetch and for each read, a byte cap, no cookies, no credentials,
//! no proxy.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{
    HeaderMap, ACCEPT, ACCEPT_ENCODING, CONTENT_ENCODING, CONTENT_TYPE, LOCATION,
};
use tokio_util::sync::CancellationToken;
use url::Url;

use crate::address;
use crate::config::WebConfig;
use crate::destination::{self, Destination};
use crate::jail::JailNet;
use crate::limits::MAX_REDIRECTS;

/// `User-Agent` of page fetches.
pub const USER_AGENT: &str = concat!("zut-web/", env!("CARGO_PKG_VERSION"));

/// A fetched response body, not yet decoded.
#[derive(Debug)]
pub struct Fetched {
    /// The final URL (after redirects).
    pub url: Url,
    /// `Content-Type` without parameters, lower-cased (empty when absent).
    pub mime: String,
    /// The `charset` parameter of `Content-Type`, if any.
    pub charset: Option<String>,
    /// `Content-Encoding`, lower-cased (empty for identity).
    pub encoding: String,
    /// The body bytes as received (at most the byte cap).
    pub body: Vec<u8>,
    /// The body was longer than the cap and was cut.
    pub truncated: bool,
}

/// Why a fetch failed. `Display` is the text the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// The URL or an address it resolves to is not allowed.
    Denied(String),
    /// The server answered, but not with something usable.
    Unavailable(String),
    /// The connection failed.
    Failed(String),
    /// A time cap was reached.
    TimedOut(String),
    /// The call was cancelled.
    Cancelled,
}

impl std::fmt::Display for FetchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Denied(why) => write!(f, "web page: destination is not allowed: {why}"),
            Self::Unavailable(why) => write!(f, "web page: unavailable response: {why}"),
            Self::Failed(why) => write!(f, "web page: request failed: {why}"),
            Self::TimedOut(why) => write!(f, "web page: timed out: {why}"),
            Self::Cancelled => write!(f, "web page: request cancelled"),
        }
    }
}

/// Fetches `raw_url` under the policy of `cfg`, stopping when `cancel` fires.
pub async fn fetch(
    raw_url: &str,
    cfg: &WebConfig,
    cancel: &CancellationToken,
) -> Result<Fetched, FetchError> {
    fetch_jailed(raw_url, cfg, None, cancel).await
}

/// [`fetch`] inside a jail's network rule (checked for the URL and every
/// redirect target).
pub async fn fetch_jailed(
    raw_url: &str,
    cfg: &WebConfig,
    jail: Option<&JailNet>,
    cancel: &CancellationToken,
) -> Result<Fetched, FetchError> {
    let dest = destination::check(raw_url, None, cfg).map_err(FetchError::Denied)?;
    let total = cfg.timeout;
    tokio::select! {
        r = tokio::time::timeout(total, follow(dest, cfg, jail)) => match r {
            Ok(r) => r,
            Err(_) => Err(FetchError::TimedOut(format!(
                "the page did not arrive within {} s", total.as_secs_f32()
            ))),
        },
        _ = cancel.cancelled() => Err(FetchError::Cancelled),
    }
}

async fn follow(
    mut dest: Destination,
    cfg: &WebConfig,
    jail: Option<&JailNet>,
) -> Result<Fetched, FetchError> {
    let mut hops = 0;
    loop {
        if let Some(jail) = jail {
            jail.check(&dest.host).map_err(|why| match hops {
                0 => FetchError::Denied(why),
                _ => FetchError::Denied(format!("redirect to {}: {why}", dest.url)),
            })?;
        }
        let refused = Arc::new(Mutex::new(None));
        let client = client_for(&dest, cfg, refused.clone())?;
        let resp = client
            .get(dest.url.clone())
            .header(
                ACCEPT,
                "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/pdf;q=0.8,*/*;q=0.1",
            )
            .header(ACCEPT_ENCODING, "gzip, br")
            .send()
            .await
            .map_err(|e| {
                // The resolver's refusal, rather than reqwest's wrapping of it.
                match refused.lock().unwrap_or_else(|p| p.into_inner()).take() {
                    Some(why) => FetchError::Denied(why),
                    None => transport_error(&e),
                }
            })?;
        let status = resp.status();
        if status.is_redirection() {
            let Some(loc) = resp.headers().get(LOCATION).and_then(|v| v.to_str().ok()) else {
                return Err(FetchError::Unavailable(format!(
                    "HTTP {status} without a usable Location"
                )));
            };
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(FetchError::Unavailable(format!(
                    "more than {MAX_REDIRECTS} redirects"
                )));
            }
            let next = destination::check(loc, Some(&dest.url), cfg).map_err(|why| {
                FetchError::Denied(format!("redirect from {} to {loc}: {why}", dest.url))
            })?;
            dest = next;
            continue;
        }
        if !status.is_success() {
            return Err(FetchError::Unavailable(format!(
                "HTTP {status} from {}",
                dest.url
            )));
        }
        let (mime, charset, encoding) = content_headers(resp.headers());
        let (body, truncated) = read_body(resp, cfg.max_body_bytes, cfg.read_timeout).await?;
        return Ok(Fetched {
            url: dest.url,
            mime,
            charset,
            encoding,
            body,
            truncated,
        });
    }
}

fn content_headers(h: &HeaderMap) -> (String, Option<String>, String) {
    let ct = h
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut parts = ct.split(';');
    let mime = parts.next().unwrap_or("").trim().to_string();
    let charset = parts
        .filter_map(|p| p.trim().strip_prefix("charset="))
        .map(|c| c.trim_matches(|c| c == '"' || c == '\'').to_string())
        .next();
    let encoding = h
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let encoding = if encoding == "identity" {
        String::new()
    } else {
        encoding
    };
    (mime, charset, encoding)
}

/// Reads at most `cap` bytes, each read within `per_read`.
async fn read_body(
    mut resp: reqwest::Response,
    cap: usize,
    per_read: Duration,
) -> Result<(Vec<u8>, bool), FetchError> {
    let mut body = Vec::with_capacity(resp.content_length().unwrap_or(0).min(cap as u64) as usize);
    loop {
        let chunk = match tokio::time::timeout(per_read, resp.chunk()).await {
            Err(_) => {
                return Err(FetchError::TimedOut(format!(
                    "the server sent nothing for {} s",
                    per_read.as_secs_f32()
                )))
            }
            Ok(Err(e)) => return Err(transport_error(&e)),
            Ok(Ok(None)) => return Ok((body, false)),
            Ok(Ok(Some(c))) => c,
        };
        let room = cap - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
}

fn transport_error(e: &reqwest::Error) -> FetchError {
    if e.is_timeout() {
        return FetchError::TimedOut("the server did not answer in time".into());
    }
    let mut text = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        text.push_str(": ");
        text.push_str(&s.to_string());
        src = s.source();
    }
    FetchError::Failed(text)
}

/// A client for one request to `dest`: no redirects, no proxy, no pooled
/// connections, and a resolver that checks every address of the host.
fn client_for(
    dest: &Destination,
    cfg: &WebConfig,
    refused: Arc<Mutex<Option<String>>>,
) -> Result<reqwest::Client, FetchError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .pool_max_idle_per_host(0)
        .connect_timeout(cfg.read_timeout)
        .read_timeout(cfg.read_timeout)
        .user_agent(USER_AGENT)
        .dns_resolver(Arc::new(CheckingResolver {
            allowed: dest.allowed,
            refused,
        }))
        .build()
        .map_err(|e| FetchError::Failed(format!("cannot build the HTTP client: {e}")))
}

/// Resolves with the system resolver and returns the addresses only when
/// every one of them is public (or the host is on the allow-list).
struct CheckingResolver {
    allowed: bool,
    /// Where a refusal's reason is left for the fetch to report.
    refused: Arc<Mutex<Option<String>>>,
}

impl Resolve for CheckingResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allowed = self.allowed;
        let refused = self.refused.clone();
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> {
                    format!("cannot resolve {host}: {e}").into()
                })?
                .collect();
            if !allowed {
                if let Err(why) = check_addresses(&host, &addrs) {
                    *refused.lock().unwrap_or_else(|p| p.into_inner()) = Some(why.clone());
                    return Err(why.into());
                }
            }
            let out: Addrs = Box::new(addrs.into_iter());
            Ok(out)
        })
    }
}

/// `Err(reason)` when any address of `host` is not public.
pub(crate) fn check_addresses(host: &str, addrs: &[SocketAddr]) -> Result<(), String> {
    if addrs.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    for a in addrs {
        if let Some(why) = address::refusal(a.ip()) {
            return Err(format!(
                "{host} resolves to {}, {why}; add it to \"web\": {{\"allow_hosts\": [...]}} in config.json to allow it",
                a.ip()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn addrs(list: &[&str]) -> Vec<SocketAddr> {
        list.iter()
            .map(|a| SocketAddr::new(a.parse().unwrap(), 443))
            .collect()
    }

    #[test]
    fn a_name_is_refused_when_any_address_it_resolves_to_is_not_public() {
        assert!(check_addresses("docs.rs", &addrs(&["93.184.216.34", "2606:4700::1111"])).is_ok());
        for (list, want) in [
            (
                &["10.0.0.5"][..],
                "internal.example resolves to 10.0.0.5, a private address",
            ),
            (&["192.168.1.20"][..], "192.168.1.20, a private address"),
            // One private address among public ones is enough (a rebinding
            // name answering both).
            (
                &["93.184.216.34", "172.16.0.9"][..],
                "172.16.0.9, a private address",
            ),
            (&["169.254.169.254"][..], "a cloud metadata address"),
            (&["::ffff:10.0.0.1"][..], "a private address"),
            (&["fd12::1"][..], "unique-local"),
        ] {
            let e = check_addresses("internal.example", &addrs(list)).unwrap_err();
            assert!(e.contains(want), "{list:?}: {e}");
            assert!(e.contains("\"allow_hosts\""), "{e}");
        }
        let e = check_addresses("void.example", &[]).unwrap_err();
        assert!(e.contains("resolves to no address"), "{e}");
    }
}
