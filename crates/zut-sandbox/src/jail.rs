//! The agent's jail: the policy `bash`, `python` and the file tools run
//! under when jailed (`/jail`, `--jail`, `jail_by_default`).

use std::path::{Path, PathBuf};

use crate::policy::{Limits, Network, Policy, ReadScope};

/// Secret locations under `$HOME` that a jailed process never reads:
/// SSH, cloud and package-registry credentials, GPG, the GitHub CLI.
pub const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".config/gh",
    ".config/gcloud",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".config/hub",
    ".password-store",
    ".local/share/keyrings",
];

/// Environment variables a jailed command does not get: credentials of
/// zut's providers and of the usual cloud and registry tools.
pub const SECRET_ENV: &[&str] = &[
    "*_API_KEY",
    "*_APIKEY",
    "*_TOKEN",
    "*_SECRET",
    "*_SECRET_KEY",
    "*_ACCESS_KEY",
    "*_PASSWORD",
    "*_CREDENTIALS",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
];

/// Everything the jail is built from.
#[derive(Debug, Clone, Default)]
pub struct JailSpec {
    /// The session directory: readable and writable.
    pub cwd: PathBuf,
    /// `$HOME`, for the secret locations.
    pub home: Option<PathBuf>,
    /// zut's own directory (`$ZUT_HOME`): its `auth.json` is secret.
    pub zut_home: Option<PathBuf>,
    /// More secret paths (config `sandbox.deny_read`).
    pub extra_secrets: Vec<PathBuf>,
    /// More writable paths (config `sandbox.writable`).
    pub extra_writable: Vec<PathBuf>,
    /// Reachable network (config `sandbox.network`); default none.
    pub network: Network,
}

impl Policy {
    /// The jail for `spec`: reads anywhere except the secret locations,
    /// writes in the session directory, the temp directories and the
    /// configured paths, network as configured (none by default), the
    /// default [`Limits::jail_defaults`].
    pub fn jail(spec: &JailSpec) -> Policy {
        let mut except: Vec<PathBuf> = Vec::new();
        if let Some(home) = &spec.home {
            except.extend(HOME_SECRETS.iter().map(|s| home.join(s)));
        }
        if let Some(zh) = &spec.zut_home {
            except.push(zh.join("auth.json"));
        }
        for var in [
            "AWS_SHARED_CREDENTIALS_FILE",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "AZURE_CONFIG_DIR",
        ] {
            if let Some(p) = std::env::var_os(var).filter(|v| !v.is_empty()) {
                except.push(PathBuf::from(p));
            }
        }
        except.extend(spec.extra_secrets.iter().cloned());
        except.sort();
        except.dedup();
        let mut write = vec![spec.cwd.clone()];
        write.extend(temp_dirs());
        write.extend(spec.extra_writable.iter().cloned());
        dedup_keep_order(&mut write);
        Policy {
            name: "the jail".into(),
            read: ReadScope::Everywhere { except },
            write,
            network: spec.network.clone(),
            exec: None,
            env: None,
            env_deny: SECRET_ENV.iter().map(|s| s.to_string()).collect(),
            limits: Limits::jail_defaults(),
        }
    }
}

/// `/tmp`, `/var/tmp` and `$TMPDIR` (those that exist).
pub fn temp_dirs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
        out.push(PathBuf::from(t));
    }
    out.push(PathBuf::from("/tmp"));
    out.push(PathBuf::from("/var/tmp"));
    out.retain(|p| p.is_dir());
    dedup_keep_order(&mut out);
    out
}

fn dedup_keep_order(v: &mut Vec<PathBuf>) {
    let mut seen: Vec<PathBuf> = Vec::new();
    v.retain(|p| {
        let key = crate::policy::resolve(p);
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
}

/// Whether `path` is one of the secrets of a jail for `home`
/// (used by tests and doctor).
pub fn is_home_secret(home: &Path, path: &Path) -> bool {
    HOME_SECRETS.iter().any(|s| path.starts_with(home.join(s)))
}
