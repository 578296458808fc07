//! What this machine can enforce, probed once: the Landlock ABI, seccomp,
//! network namespaces, a pids cgroup. [`status`] is what `zut doctor`,
//! `/info` and `zut ext doctor` print; nothing claims a sandbox that is not
//! there.

use std::path::PathBuf;
use std::sync::OnceLock;

/// The enforcement available here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The kernel's Landlock ABI (0: none). 1–3 confine files, 4+ also TCP
    /// connect and bind, 6+ signals and abstract sockets.
    pub landlock_abi: i32,
    /// seccomp filters can be installed.
    pub seccomp: bool,
    /// A confined process can get its own network namespace (for network
    /// `none`).
    pub netns: bool,
    /// Where per-process pids cgroups are made (fork bombs bounded even for
    /// root, whom `RLIMIT_NPROC` does not bind).
    pub pids_cgroup: Option<PathBuf>,
    /// The platform is Linux (elsewhere: macOS Seatbelt or nothing).
    pub linux: bool,
}

impl Status {
    /// Whether file confinement is enforced.
    pub fn enforced(&self) -> bool {
        self.landlock_abi >= 1
    }

    /// One line: `landlock ABI 7 (files, TCP), seccomp, network namespace,
    /// pids cgroup` or `NOT ENFORCED: …`.
    pub fn line(&self) -> String {
        if !self.linux {
            return if cfg!(target_os = "macos") {
                "macOS Seatbelt (sandbox-exec); untested".into()
            } else {
                "NOT ENFORCED: no sandbox on this platform".into()
            };
        }
        if !self.enforced() {
            return "NOT ENFORCED: this kernel has no Landlock; confined processes run \
                    with seccomp and limits only, file and network rules are not applied"
                .into();
        }
        let mut parts = vec![format!(
            "landlock ABI {} ({})",
            self.landlock_abi,
            if self.landlock_abi >= 4 {
                "files, TCP"
            } else {
                "files only: TCP not confined"
            }
        )];
        parts.push(
            if self.seccomp {
                "seccomp"
            } else {
                "no seccomp"
            }
            .into(),
        );
        parts.push(
            if self.netns {
                "network namespace"
            } else {
                "no network namespace"
            }
            .into(),
        );
        parts.push(
            if self.pids_cgroup.is_some() {
                "pids cgroup"
            } else {
                "no pids cgroup"
            }
            .into(),
        );
        parts.join(", ")
    }
}

/// The probed status (cached).
pub fn status() -> &'static Status {
    static S: OnceLock<Status> = OnceLock::new();
    S.get_or_init(probe)
}

/// The kernel's Landlock ABI version, 0 without Landlock.
pub fn landlock_abi() -> i32 {
    static ABI: OnceLock<i32> = OnceLock::new();
    *ABI.get_or_init(|| {
        #[cfg(target_os = "linux")]
        {
            // LANDLOCK_CREATE_RULESET_VERSION = 1: returns the ABI.
            // SAFETY: a query with a null attribute pointer and size 0.
            let v = unsafe {
                libc::syscall(
                    libc::SYS_landlock_create_ruleset,
                    std::ptr::null::<u8>(),
                    0usize,
                    1u32,
                )
            };
            i32::try_from(v).unwrap_or(0).max(0)
        }
        #[cfg(not(target_os = "linux"))]
        {
            0
        }
    })
}

fn probe() -> Status {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_GET_SECCOMP only reads this thread's mode.
        let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) } >= 0;
        let status = Status {
            landlock_abi: landlock_abi(),
            seccomp,
            netns: crate::linux::netns::probe(),
            pids_cgroup: crate::linux::cgroup::base(),
            linux: true,
        };
        if !status.enforced() {
            tracing::warn!("sandbox: {}", status.line());
        }
        status
    }
    #[cfg(not(target_os = "linux"))]
    {
        Status {
            landlock_abi: 0,
            seccomp: false,
            netns: false,
            pids_cgroup: None,
            linux: false,
        }
    }
}
