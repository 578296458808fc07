//! The sandbox settings of a run: the jail switch (`--jail`,
//! `jail_by_default`, config `sandbox`) and the extension policy
//! (`extension_sandbox`).

use std::path::{Path, PathBuf};

use zut_agent::AgentConfig;
use zut_config::{SandboxNetwork, Settings};
use zut_ext_host::HostConfig;

use crate::args::GlobalArgs;

/// Sets `agent.jail` and `host.strict_sandbox` from the flags and config.
pub fn apply(
    args: &GlobalArgs,
    settings: &Settings,
    cwd: &Path,
    zut_home: &Path,
    host: &mut HostConfig,
    agent: &mut AgentConfig,
) {
    let file = settings.config_file.as_ref();
    let on = args.jail || file.and_then(|f| f.jail_by_default).unwrap_or(false);
    host.strict_sandbox = file
        .and_then(|f| f.extension_sandbox_strict)
        .unwrap_or(false);
    agent.jail = zut_tools::JailSwitch::new(jail_spec(settings, cwd, zut_home), on);
}

/// What the jail of a session in `cwd` is built from.
pub fn jail_spec(settings: &Settings, cwd: &Path, zut_home: &Path) -> zut_sandbox::JailSpec {
    jail_spec_from(settings.config_file.as_ref(), cwd, zut_home)
}

/// The jail of `zut mcp serve` in `project`: config.json's `sandbox` keys
/// and `jail_by_default`. A config.json that does not parse is an error.
pub fn mcp_serve_jail(
    zut_home: &Path,
    project: &Path,
) -> Result<(zut_sandbox::JailSpec, bool), String> {
    let file =
        zut_config::ConfigFile::load(&zut_home.join("config.json")).map_err(|e| e.to_string())?;
    let on = file
        .as_ref()
        .and_then(|f| f.jail_by_default)
        .unwrap_or(false);
    Ok((jail_spec_from(file.as_ref(), project, zut_home), on))
}

fn jail_spec_from(
    file: Option<&zut_config::ConfigFile>,
    cwd: &Path,
    zut_home: &Path,
) -> zut_sandbox::JailSpec {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let extra = file.and_then(|f| f.sandbox.clone()).unwrap_or_default();
    let expand = |p: &String| config_path(p, cwd);
    zut_sandbox::JailSpec {
        cwd: cwd.to_path_buf(),
        home: home.clone(),
        zut_home: Some(zut_home.to_path_buf()),
        extra_secrets: extra.deny_read.iter().map(expand).collect(),
        extra_writable: extra.writable.iter().map(expand).collect(),
        network: match extra.network {
            SandboxNetwork::None => zut_sandbox::Network::None,
            SandboxNetwork::Any => zut_sandbox::Network::Any,
            SandboxNetwork::Domains(d) => zut_sandbox::Network::Domains(d),
        },
    }
}

/// A path of `config.json`: `~/` is `$HOME`, a relative path is relative
/// to `cwd` (an absolute one stays).
pub fn config_path(p: &str, cwd: &Path) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match (p.strip_prefix("~/"), &home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => cwd.join(p),
    }
}
