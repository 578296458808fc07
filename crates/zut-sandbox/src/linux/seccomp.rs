//! The system-call filter every confined process gets.
//!
//! Refused with `EPERM`: tracing and reading other processes (`ptrace`,
//! `process_vm_readv`/`writev`), mounting, the kernel keyring, namespaces
//! (`unshare`, `setns`, `clone` with a `CLONE_NEW*` flag), loading kernel
//! modules, `bpf`, `perf_event_open`, rebooting, setting the clock; when
//! resource limits are set, raising them (`setrlimit`, `prlimit64` with a
//! new limit); when the network is restricted without a network namespace,
//! UDP and raw sockets. `clone3` answers `ENOSYS` (its flags are in memory
//! the filter cannot read) so the C library falls back to `clone`.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What the filter must also refuse.
pub(crate) struct Options {
    /// Refuse raising rlimits.
    pub lock_limits: bool,
    /// Refuse UDP and raw IP sockets.
    pub no_udp: bool,
}

#[cfg(target_arch = "x86_64")]
const ARCH: Option<TargetArch> = Some(TargetArch::x86_64);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<TargetArch> = Some(TargetArch::aarch64);
#[cfg(target_arch = "riscv64")]
const ARCH: Option<TargetArch> = Some(TargetArch::riscv64);
#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "riscv64"
)))]
const ARCH: Option<TargetArch> = None;

/// The two programs to install (EPERM rules, then clone3 → ENOSYS), or
/// `None` on an architecture the filter compiler does not know.
pub(crate) fn build(opts: &Options) -> Result<Option<Vec<BpfProgram>>, String> {
    let Some(arch) = ARCH else {
        return Ok(None);
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut deny = |nr: libc::c_long| {
        rules.insert(nr, Vec::new());
    };
    for nr in [
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_fsopen,
        libc::SYS_fsmount,
        libc::SYS_fsconfig,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_mount_setattr,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_keyctl,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_kexec_load,
        libc::SYS_kexec_file_load,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_reboot,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_acct,
        libc::SYS_userfaultfd,
        libc::SYS_pidfd_getfd,
    ] {
        deny(nr);
    }
    if opts.lock_limits {
        #[cfg(target_arch = "x86_64")]
        deny(libc::SYS_setrlimit);
        rules.insert(
            libc::SYS_prlimit64,
            vec![rule(vec![cond(2, SeccompCmpOp::Ne, 0)?])?],
        );
    }
    let ns_flags = [
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWNS,
        libc::CLONE_NEWNET,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWCGROUP,
    ];
    let mut clone_rules = Vec::new();
    for f in ns_flags {
        let f = f as u64;
        clone_rules.push(rule(vec![cond(0, SeccompCmpOp::MaskedEq(f), f)?])?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    if opts.no_udp {
        let mut socket_rules = Vec::new();
        for family in [libc::AF_INET, libc::AF_INET6] {
            for kind in [libc::SOCK_DGRAM, libc::SOCK_RAW] {
                socket_rules.push(rule(vec![
                    cond(0, SeccompCmpOp::Eq, family as u64)?,
                    cond(1, SeccompCmpOp::MaskedEq(0xf), kind as u64)?,
                ])?);
            }
        }
        socket_rules.push(rule(vec![cond(
            0,
            SeccompCmpOp::Eq,
            libc::AF_PACKET as u64,
        )?])?);
        rules.insert(libc::SYS_socket, socket_rules);
    }
    let eperm = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let mut clone3 = BTreeMap::new();
    clone3.insert(libc::SYS_clone3, Vec::new());
    let enosys = SeccompFilter::new(
        clone3,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let a: BpfProgram = eperm
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    let b: BpfProgram = enosys
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    Ok(Some(vec![a, b]))
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).map_err(|e| e.to_string())
}

fn rule(conds: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conds).map_err(|e| e.to_string())
}
