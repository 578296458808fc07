//! How an extension runs: unconfined (as the Go original runs every
//! extension), inside its declared permissions, or inside the minimal
//! policy (`extension_sandbox: "strict"`). For `zut ext list` and doctor.

use crate::manifest::Manifest;

/// An extension's confinement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// No `permissions` and the host is not strict: full user privileges.
    Unconfined,
    /// Its declared `permissions`.
    Declared(zut_sandbox::Declared),
    /// No `permissions`, strict host: its own directory only, no network.
    Minimal,
    /// `permissions` is malformed: the extension is not started.
    Invalid(String),
}

impl Confinement {
    /// The confinement of `manifest` under a host that is `strict` or not.
    pub fn of(manifest: &Manifest, strict: bool) -> Confinement {
        match manifest.permissions() {
            Err(e) => Confinement::Invalid(e.to_string()),
            Ok(Some(d)) => Confinement::Declared(d),
            Ok(None) if strict => Confinement::Minimal,
            Ok(None) => Confinement::Unconfined,
        }
    }

    /// One word for listings: `unconfined`, `confined`, `minimal`,
    /// `invalid`.
    pub fn label(&self) -> &'static str {
        match self {
            Confinement::Unconfined => "unconfined",
            Confinement::Declared(_) => "confined",
            Confinement::Minimal => "minimal",
            Confinement::Invalid(_) => "invalid",
        }
    }

    /// One line for doctor: the label and what it means.
    pub fn describe(&self) -> String {
        match self {
            Confinement::Unconfined => {
                "unconfined (no permissions declared: full user privileges)".into()
            }
            Confinement::Declared(d) => format!("confined: {}", d.describe().join("; ")),
            Confinement::Minimal => {
                "confined to the minimal policy (extension_sandbox: strict): its own directory, \
                 no network"
                    .into()
            }
            Confinement::Invalid(e) => format!("not started: {e}"),
        }
    }
}
