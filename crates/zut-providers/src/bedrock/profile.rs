//! The credentials of a named profile of the shared AWS files, in the
//! AWS CLI's order: `role_arn` (with `web_identity_token_file`,
//! `source_profile` or `credential_source`), SSO (`sso_session` or
//! `sso_start_url`), static keys, `credential_process`. A
//! `source_profile` is resolved the same way (chains up to five deep; a
//! profile naming itself signs with its own static keys).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::credentials::{BedrockCredentials, Sections};
use super::temporary::{session_name, Fetch, TemporaryCredentials};
use crate::error::ProviderError;

/// Longest `source_profile` chain followed.
const MAX_DEPTH: usize = 5;

/// The shared credentials and config files, parsed.
pub(crate) struct Profiles {
    /// `~/.aws/credentials` and its path.
    pub creds: (Option<Sections>, Option<PathBuf>),
    /// `~/.aws/config` and its path.
    pub config: (Option<Sections>, Option<PathBuf>),
    /// `$HOME`, for the SSO token cache.
    pub home: Option<PathBuf>,
    /// The resolved region (STS calls are signed for it).
    pub region: String,
}

/// An endpoint from AWS's variables (`AWS_ENDPOINT_URL_{SERVICE}`, then
/// `AWS_ENDPOINT_URL`), else `default`; no trailing slash.
pub(crate) fn endpoint(
    env: &dyn Fn(&str) -> Option<String>,
    service: &str,
    default: &str,
) -> String {
    env(&format!("AWS_ENDPOINT_URL_{service}"))
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| default.to_string())
        .trim_end_matches('/')
        .to_string()
}

fn config_error(msg: String) -> ProviderError {
    ProviderError::Config(format!("amazon-bedrock: {msg}"))
}

impl Profiles {
    /// The profile's sections, credentials file first.
    fn sections(&self, name: &str) -> Vec<(&HashMap<String, String>, &Path)> {
        [&self.creds, &self.config]
            .into_iter()
            .filter_map(|(file, path)| Some((file.as_ref()?.get(name)?, path.as_deref()?)))
            .collect()
    }

    /// The credentials of profile `name` and where they came from
    /// (`None`: no such profile, or one without credentials).
    pub(crate) fn credentials(
        &self,
        name: &str,
        env: &dyn Fn(&str) -> Option<String>,
        depth: usize,
    ) -> Result<Option<(BedrockCredentials, String)>, ProviderError> {
        if depth > MAX_DEPTH {
            return Err(config_error(format!(
                "the source_profile chain reaching profile {name} is longer than {MAX_DEPTH} or circular"
            )));
        }
        let sections = self.sections(name);
        for (section, path) in &sections {
            let source = format!("profile {name} in {}", path.display());
            if let Some(role_arn) = section.get("role_arn") {
                return self
                    .role(name, section, path, role_arn, env, depth)
                    .map(|c| Some((c, source)));
            }
            if section.contains_key("sso_session") || section.contains_key("sso_start_url") {
                return self
                    .sso(name, section, path, env)
                    .map(|c| Some((c, source)));
            }
        }
        for (section, path) in &sections {
            let source = format!("profile {name} in {}", path.display());
            if let Some(keys) = static_keys(section) {
                return Ok(Some((keys, source)));
            }
            if let Some(command) = section
                .get("credential_process")
                .filter(|c| !c.trim().is_empty())
            {
                return Ok(Some((
                    BedrockCredentials::Process(super::process::CredentialProcess::new(
                        command, &source,
                    )),
                    format!("the credential_process of {source}"),
                )));
            }
        }
        Ok(None)
    }

    fn role(
        &self,
        name: &str,
        section: &HashMap<String, String>,
        path: &Path,
        role_arn: &str,
        env: &dyn Fn(&str) -> Option<String>,
        depth: usize,
    ) -> Result<BedrockCredentials, ProviderError> {
        let source = format!("profile {name} in {}", path.display());
        let session = section
            .get("role_session_name")
            .cloned()
            .unwrap_or_else(session_name);
        let sts = endpoint(
            env,
            "STS",
            &format!("https://sts.{}.amazonaws.com", self.region),
        );
        if let Some(file) = section.get("web_identity_token_file") {
            let fetch = Fetch::WebIdentity {
                role_arn: role_arn.to_string(),
                session_name: session,
                token_file: PathBuf::from(file),
                named_by: source.clone(),
                endpoint: sts,
            };
            return Ok(BedrockCredentials::Temporary(TemporaryCredentials::new(
                fetch, &source,
            )));
        }
        let base = if let Some(from) = section.get("source_profile") {
            let found = if from == name {
                self.sections(name)
                    .into_iter()
                    .find_map(|(s, p)| static_keys(s).map(|k| (k, p.display().to_string())))
                    .map(|(k, p)| (k, format!("profile {name} in {p}")))
            } else {
                self.credentials(from, env, depth + 1)?
            };
            match found {
                Some((credentials, _)) => credentials,
                None => {
                    return Err(config_error(format!(
                        "{source} assumes its role with source_profile {from}, which has no credentials \
                         in the shared AWS files; add keys to [{from}] or fix source_profile"
                    )))
                }
            }
        } else {
            match section.get("credential_source").map(String::as_str) {
                Some("Environment") => {
                    return Err(config_error(format!(
                        "{source} has credential_source = Environment but AWS_ACCESS_KEY_ID and \
                         AWS_SECRET_ACCESS_KEY are not set"
                    )))
                }
                Some("EcsContainer") => match super::container::from_env(env).map_err(config_error)? {
                    Some(fetch) => BedrockCredentials::Temporary(TemporaryCredentials::new(
                        fetch,
                        "container credentials",
                    )),
                    None => {
                        return Err(config_error(format!(
                            "{source} has credential_source = EcsContainer but neither \
                             AWS_CONTAINER_CREDENTIALS_RELATIVE_URI nor AWS_CONTAINER_CREDENTIALS_FULL_URI is set"
                        )))
                    }
                },
                Some(other) => {
                    return Err(config_error(format!(
                        "{source} has credential_source = {other}, which zut does not support \
                         (Environment, EcsContainer or a source_profile are)"
                    )))
                }
                None => {
                    return Err(config_error(format!(
                        "{source} has role_arn but no source_profile, credential_source or \
                         web_identity_token_file"
                    )))
                }
            }
        };
        Ok(BedrockCredentials::Temporary(TemporaryCredentials::new(
            Fetch::AssumeRole {
                role_arn: role_arn.to_string(),
                session_name: session,
                external_id: section.get("external_id").cloned(),
                base: Box::new(base),
                endpoint: sts,
                region: self.region.clone(),
            },
            &source,
        )))
    }

    fn sso(
        &self,
        name: &str,
        section: &HashMap<String, String>,
        path: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<BedrockCredentials, ProviderError> {
        let source = format!("profile {name} in {}", path.display());
        let missing = |key: &str| {
            config_error(format!("{source} is an SSO profile without {key}; run `aws configure sso --profile {name}`"))
        };
        let (cache_key, sso_region) = match section.get("sso_session") {
            Some(session) => {
                let block = self
                    .config
                    .0
                    .as_ref()
                    .and_then(|c| c.get(&format!("sso-session {session}")))
                    .ok_or_else(|| {
                        config_error(format!(
                            "{source} names sso_session {session}, but there is no [sso-session {session}] section in {}",
                            self.config.1.as_deref().unwrap_or(path).display()
                        ))
                    })?;
                let region = block
                    .get("sso_region")
                    .or_else(|| section.get("sso_region"))
                    .ok_or_else(|| missing("sso_region"))?;
                (session.clone(), region.clone())
            }
            None => {
                let url = section
                    .get("sso_start_url")
                    .ok_or_else(|| missing("sso_start_url"))?;
                let region = section
                    .get("sso_region")
                    .ok_or_else(|| missing("sso_region"))?;
                (url.clone(), region.clone())
            }
        };
        let account_id = section
            .get("sso_account_id")
            .ok_or_else(|| missing("sso_account_id"))?;
        let role_name = section
            .get("sso_role_name")
            .ok_or_else(|| missing("sso_role_name"))?;
        let home = self.home.as_deref().ok_or_else(|| {
            config_error(format!("{source} is an SSO profile but HOME is not set"))
        })?;
        Ok(BedrockCredentials::Temporary(TemporaryCredentials::new(
            Fetch::Sso {
                profile: name.to_string(),
                account_id: account_id.clone(),
                role_name: role_name.clone(),
                cache_file: super::sso::cache_file(home, &cache_key),
                endpoint: endpoint(
                    env,
                    "SSO",
                    &format!("https://portal.sso.{sso_region}.amazonaws.com"),
                ),
            },
            &source,
        )))
    }
}

/// `aws_access_key_id` + `aws_secret_access_key` (+ `aws_session_token`).
fn static_keys(section: &HashMap<String, String>) -> Option<BedrockCredentials> {
    Some(BedrockCredentials::Keys {
        access_key_id: section.get("aws_access_key_id")?.clone(),
        secret_access_key: section.get("aws_secret_access_key")?.clone(),
        session_token: section.get("aws_session_token").cloned(),
    })
}
