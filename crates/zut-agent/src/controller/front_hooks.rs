//! Hooks the front end installs, because it knows the files
//! (`config.json`, `models.json`, `auth.json`, the discovery cache):
//!
//! * the **model lister** behind RPC `get_models` — every model of every
//!   provider that has credentials, not only the current provider's;
//! * the **session model restorer** — after RPC `switch_session` (and any
//!   front end's resume), the provider and model the session last used,
//!   as the TUI restores them.
//!
//! Without them the controller answers from its own table
//! ([`super::models`]) and leaves the model alone on a resume.

use std::sync::{Arc, OnceLock};

use zut_providers::ProviderConfig;

use super::models::ModelInfo;
use super::Controller;

/// The models to offer, given the configuration in use.
pub type ModelLister = Arc<dyn Fn(&ProviderConfig) -> Vec<ModelInfo> + Send + Sync>;

/// Switches `controller` to a resumed session's `(provider, model)`:
/// `Ok(Some(label))` when it switched, `Ok(None)` when nothing changed,
/// `Err(why)` when the session's model is not available now.
pub type SessionModelRestorer =
    Arc<dyn Fn(&Controller, &str, &str) -> Result<Option<String>, String> + Send + Sync>;

/// The installed hooks (each set once).
#[derive(Default)]
pub(crate) struct FrontHooks {
    lister: OnceLock<ModelLister>,
    restorer: OnceLock<SessionModelRestorer>,
}

impl Controller {
    /// Installs the model lister of `get_models` (set once).
    pub fn set_model_lister(&self, lister: ModelLister) {
        let _ = self.shared.hooks.lister.set(lister);
    }

    /// Installs the session model restorer (set once).
    pub fn set_session_model_restorer(&self, restorer: SessionModelRestorer) {
        let _ = self.shared.hooks.restorer.set(restorer);
    }

    /// The lister's models, when one is installed.
    pub(crate) fn listed_models(&self) -> Option<Vec<ModelInfo>> {
        let lister = self.shared.hooks.lister.get()?;
        Some(lister(&self.current_config()))
    }

    /// After a resume: goes on with the session's `provider`/`model`
    /// through the installed restorer (`Ok(None)` without one, or when
    /// they are the ones in use).
    pub fn restore_session_model(
        &self,
        provider: &str,
        model: &str,
    ) -> Result<Option<String>, String> {
        match self.shared.hooks.restorer.get() {
            Some(restore) => restore(self, provider, model),
            None => Ok(None),
        }
    }
}
