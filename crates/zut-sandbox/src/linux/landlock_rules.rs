//! The policy's file and TCP rules as a Landlock ruleset.

use std::collections::BTreeSet;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    Access, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};

use crate::policy::{Network, Policy, ReadScope};

/// The newest ABI whose rights we ask for; older kernels get what they
/// support (best effort), and [`crate::status`] says what that was.
const TARGET: ABI = ABI::V7;

/// What the ruleset covers, for the status line.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Coverage {
    pub tcp: bool,
}

/// Builds the ruleset of `policy`; `proxy_port` is the only TCP port a
/// `Domains` policy may connect to. `None` when the kernel has no Landlock.
pub(crate) fn build(
    policy: &Policy,
    proxy_port: Option<u16>,
    tcp_rules: bool,
) -> Result<(Option<OwnedFd>, Coverage), String> {
    let abi = crate::status::landlock_abi();
    if abi < 1 {
        return Ok((None, Coverage::default()));
    }
    let all = AccessFs::from_all(TARGET);
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(|e| e.to_string())?;
    let mut cov = Coverage::default();
    let restrict_net = tcp_rules && !matches!(policy.network, Network::Any) && abi >= 4;
    if restrict_net {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(|e| e.to_string())?;
        cov.tcp = true;
    }
    if abi >= 6 {
        ruleset = ruleset
            .scope(Scope::from_all(TARGET))
            .map_err(|e| e.to_string())?;
    }
    let mut created = ruleset.create().map_err(|e| e.to_string())?;

    let read_rights: BitFlags<AccessFs> = if policy.exec.is_some() {
        AccessFs::ReadFile | AccessFs::ReadDir
    } else {
        AccessFs::from_read(TARGET)
    };
    let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
    match &policy.read {
        ReadScope::Everywhere { except } => {
            let (full, listable) = complement(except);
            rules.extend(full.into_iter().map(|p| (p, read_rights)));
            rules.extend(listable.into_iter().map(|p| (p, AccessFs::ReadDir.into())));
        }
        ReadScope::Only(paths) => {
            rules.extend(paths.iter().map(|p| (p.clone(), read_rights)));
            rules.extend(runtime_readable().into_iter().map(|p| (p, read_rights)));
        }
    }
    for p in policy.write.iter().cloned().chain(runtime_writable()) {
        rules.push((p, all & !exec_right(policy)));
    }
    if let Some(list) = &policy.exec {
        for p in crate::exec::resolve_all(list) {
            rules.push((p, AccessFs::Execute | AccessFs::ReadFile));
        }
    }
    for (path, rights) in rules {
        let Ok(fd) = PathFd::new(&path) else {
            continue; // a path that does not exist grants nothing
        };
        let rights = if path.is_dir() {
            rights
        } else {
            rights & AccessFs::from_file(TARGET)
        };
        if rights.is_empty() {
            continue;
        }
        created = created
            .add_rule(PathBeneath::new(fd, rights))
            .map_err(|e| format!("landlock rule for {}: {e}", path.display()))?;
    }
    if restrict_net {
        if let (Network::Domains(_), Some(port)) = (&policy.network, proxy_port) {
            created = created
                .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
                .map_err(|e| e.to_string())?;
        }
    }
    let fd: Option<OwnedFd> = created.into();
    Ok((fd, cov))
}

fn exec_right(policy: &Policy) -> BitFlags<AccessFs> {
    if policy.exec.is_some() {
        AccessFs::Execute.into()
    } else {
        BitFlags::EMPTY
    }
}

/// The filesystem minus `secrets`, as Landlock rules (which only grant):
/// every sibling of each secret and of each of its ancestors is granted in
/// full (`full`); the ancestors themselves are only listable (`listable`),
/// so `ls ~` works but `~/.ssh/id_ed25519` cannot be opened.
pub(crate) fn complement(secrets: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let blocked: BTreeSet<PathBuf> = secrets
        .iter()
        .filter_map(|s| std::fs::canonicalize(s).ok())
        .collect();
    if blocked.is_empty() {
        return (vec![PathBuf::from("/")], Vec::new());
    }
    let mut partial: BTreeSet<PathBuf> = BTreeSet::new();
    for b in &blocked {
        let mut a = b.parent();
        while let Some(dir) = a {
            partial.insert(dir.to_path_buf());
            a = dir.parent();
        }
    }
    let mut full = Vec::new();
    for dir in &partial {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let child = e.path();
            if partial.contains(&child) || blocked.iter().any(|b| child.starts_with(b)) {
                continue;
            }
            full.push(child);
        }
    }
    (full, partial.into_iter().collect())
}

/// What a program needs to read to start when reads are restricted:
/// libraries, interpreters, locale and TLS data, `/dev` and `/proc`.
pub(crate) fn runtime_readable() -> Vec<PathBuf> {
    [
        "/usr",
        "/lib",
        "/lib64",
        "/lib32",
        "/bin",
        "/sbin",
        "/opt",
        "/nix/store",
        "/etc/ld.so.cache",
        "/etc/ld.so.conf",
        "/etc/ld.so.conf.d",
        "/etc/alternatives",
        "/etc/ssl",
        "/etc/ca-certificates",
        "/etc/pki",
        "/etc/resolv.conf",
        "/etc/hosts",
        "/etc/nsswitch.conf",
        "/etc/host.conf",
        "/etc/gai.conf",
        "/etc/passwd",
        "/etc/group",
        "/etc/localtime",
        "/etc/mime.types",
        "/etc/python3",
        "/etc/locale.alias",
        "/usr/share/zoneinfo",
        "/dev",
        "/proc",
        "/sys/devices/system/cpu",
        "/sys/fs/cgroup",
    ]
    .into_iter()
    .map(PathBuf::from)
    .filter(|p| Path::new(p).exists())
    .collect()
}

/// Device files every program may write: `/dev/null`, terminals.
pub(crate) fn runtime_writable() -> Vec<PathBuf> {
    [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/pts",
    ]
    .into_iter()
    .map(PathBuf::from)
    .filter(|p| p.exists())
    .collect()
}
