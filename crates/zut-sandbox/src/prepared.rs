//! A policy made ready to apply: kernel objects built once in the parent,
//! applied in every forked child.

use std::sync::Arc;

use crate::policy::{Network, Policy};
use crate::proxy::{AllowList, Proxy};

/// A [`Policy`] with its kernel objects (Landlock ruleset, seccomp
/// programs), its proxy for a domain allow-list, and what could not be
/// enforced here ([`Prepared::notes`]). Build one per policy and reuse it
/// for every child: a running child keeps the rules it started with.
pub struct Prepared {
    policy: Arc<Policy>,
    #[cfg(target_os = "linux")]
    enforcement: crate::linux::Enforcement,
    proxy: Option<Proxy>,
    notes: Vec<String>,
    notes_said: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("policy", &self.policy)
            .field("proxy", &self.proxy.as_ref().map(Proxy::addr))
            .field("notes", &self.notes)
            .finish()
    }
}

/// Per-child resources (a pids cgroup), removed when dropped after the
/// child's processes are gone.
#[derive(Default)]
pub struct SpawnScope {
    #[cfg(target_os = "linux")]
    cgroup: Option<crate::linux::cgroup::Cgroup>,
}

impl SpawnScope {
    /// SIGKILLs whatever is left of the child's tree in its cgroup, also
    /// processes that left its process group (`setsid`). No-op without a
    /// cgroup.
    pub fn kill_remaining(&self) {
        #[cfg(target_os = "linux")]
        if let Some(c) = &self.cgroup {
            c.kill_remaining();
        }
    }

    /// Whether processes of the child are still alive in its cgroup
    /// (`false` without one).
    pub fn populated(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            self.cgroup.as_ref().is_some_and(|c| c.populated())
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}

impl Prepared {
    /// Builds the kernel objects for `policy`. A domain allow-list starts
    /// its proxy on the current tokio runtime. Errors are texts for the
    /// user (a rule the kernel refused, no runtime for the proxy).
    pub fn new(policy: Policy) -> Result<Prepared, String> {
        let mut notes = Vec::new();
        let proxy = match &policy.network {
            Network::Domains(d) if !d.is_empty() => Some(
                Proxy::start(AllowList {
                    domains: d.clone(),
                    policy: policy.name.clone(),
                })
                .map_err(|e| format!("sandbox proxy: {e}"))?,
            ),
            _ => None,
        };
        #[cfg(target_os = "linux")]
        let enforcement = {
            let e =
                crate::linux::Enforcement::new(&policy, proxy.as_ref().map(|p| p.addr().port()))?;
            notes.extend(e.notes.iter().cloned());
            e
        };
        #[cfg(not(target_os = "linux"))]
        notes.push(crate::status::status().line());
        Ok(Prepared {
            policy: Arc::new(policy),
            #[cfg(target_os = "linux")]
            enforcement,
            proxy,
            notes,
            notes_said: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// What this machine could not enforce of the policy (empty when all of
    /// it is enforced). Say it once to the user.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// [`Prepared::notes`] joined, the first time only (`None` after, or
    /// when everything is enforced): to say a degradation once.
    pub fn take_notes_once(&self) -> Option<String> {
        if self.notes.is_empty()
            || self
                .notes_said
                .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            return None;
        }
        Some(self.notes.join("; "))
    }

    /// The allow-list proxy, for a `Domains` network.
    pub fn proxy(&self) -> Option<&Proxy> {
        self.proxy.as_ref()
    }

    /// Environment the child needs on top of its own (the proxy's).
    pub fn extra_env(&self) -> Vec<(String, String)> {
        self.proxy.as_ref().map(Proxy::env).unwrap_or_default()
    }

    /// Makes the per-child resources (call right before each spawn). A
    /// cgroup that cannot be made is skipped: the rlimits still apply.
    pub fn spawn_scope(&self) -> SpawnScope {
        #[cfg(target_os = "linux")]
        {
            let cgroup = match (
                self.policy.limits.max_processes,
                &crate::status::status().pids_cgroup,
            ) {
                (Some(max), Some(base)) => crate::linux::cgroup::Cgroup::new(base, max)
                    .map_err(|e| tracing::debug!(error = %e, "sandbox: no pids cgroup"))
                    .ok(),
                _ => None,
            };
            SpawnScope { cgroup }
        }
        #[cfg(not(target_os = "linux"))]
        SpawnScope::default()
    }

    /// Applies the policy to the calling process. Only for a freshly forked
    /// child before exec (the `pre_exec` hook): it makes system calls only
    /// and never allocates.
    pub fn apply_in_child(&self, scope: &SpawnScope) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            self.enforcement.apply_in_child(scope.cgroup.as_ref())
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = scope;
            Ok(())
        }
    }
}
