//! The jail's network rule, applied to page fetches when the session is
//! jailed (`--jail`, `jail_by_default`): `sandbox.network` `"none"` refuses
//! every page, a list of domains (exact, or `*.example.com`) admits only
//! those, checked for the first URL and every redirect target; `"any"`
//! leaves the usual public-address rules alone. The public-address rules
//! and `web.allow_hosts` still apply inside what the jail admits.
//! Search requests go to the configured backend (or the model API) and are
//! not page fetches.

use zut_sandbox::proxy::AllowList;
use zut_sandbox::Network;
use zut_tools::ToolContext;

/// What a jailed session's page fetches may reach.
#[derive(Debug, Clone)]
pub enum JailNet {
    /// `sandbox.network: "none"`: nothing.
    Closed,
    /// Only these domains.
    Domains(AllowList),
}

impl JailNet {
    /// The rule of the call's jail; `None` when not jailed or the jail's
    /// network is `"any"`.
    pub fn of(ctx: &ToolContext) -> Option<Self> {
        Self::from_network(&ctx.jail.as_ref()?.policy().network)
    }

    /// The rule of a jail network setting.
    pub fn from_network(network: &Network) -> Option<Self> {
        match network {
            Network::Any => None,
            Network::None => Some(Self::Closed),
            Network::Domains(d) => Some(Self::Domains(AllowList {
                domains: d.clone(),
                policy: "the jail".into(),
            })),
        }
    }

    /// `Ok` when `host` may be fetched; else why not and what to do.
    pub fn check(&self, host: &str) -> Result<(), String> {
        match self {
            Self::Closed => Err(format!(
                "{host} is outside the jail's network (sandbox.network is \"none\"); list the domain in config.json \"sandbox\": {{\"network\": [\"{host}\"]}}, or leave the jail (/jail off)"
            )),
            Self::Domains(list) if list.allows(host) => Ok(()),
            Self::Domains(list) => Err(format!(
                "{host} is outside the jail's network (sandbox.network allows only {}); add it to config.json \"sandbox\": {{\"network\": [...]}}",
                list.domains.join(", ")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert!(JailNet::from_network(&Network::Any).is_none());
        let closed = JailNet::from_network(&Network::None);
        let closed = closed.unwrap_or(JailNet::Domains(AllowList {
            domains: vec![],
            policy: String::new(),
        }));
        let e = closed.check("docs.rs").unwrap_err();
        assert!(e.contains("sandbox.network is \"none\""), "{e}");
        let d = JailNet::from_network(&Network::Domains(vec![
            "docs.rs".into(),
            "*.python.org".into(),
        ]));
        let Some(d) = d else { unreachable!() };
        assert!(d.check("docs.rs").is_ok());
        assert!(d.check("docs.python.org").is_ok());
        let e = d.check("evil.example").unwrap_err();
        assert!(e.contains("allows only docs.rs, *.python.org"), "{e}");
    }
}
