//! Switching provider mid-conversation (`/model <provider>/<id>`): the
//! front end resolves the other provider's configuration (flags, files,
//! keys) and hands it over; the conversation is kept.

use std::sync::Arc;

use zut_providers::{Provider, ProviderConfig};

use super::Controller;

/// Given the configuration in use and the argument of `/model` (or RPC
/// `set_model`), the configuration to switch to: `None` when the argument
/// is a model of the provider in use (the controller's own check applies).
pub type ModelResolver =
    Arc<dyn Fn(&ProviderConfig, &str) -> Option<Result<ProviderConfig, String>> + Send + Sync>;

impl Controller {
    /// Lets `/model <provider>/<id>` (every front end, RPC `set_model`
    /// too) switch provider: `resolver` finds the other provider's
    /// configuration. Set once; later calls are ignored.
    pub fn set_model_resolver(&self, resolver: ModelResolver) {
        let _ = self.shared.resolver.set(resolver);
    }

    /// The switch the resolver asks for `arg`, if any.
    pub(crate) fn resolve_model(&self, arg: &str) -> Option<Result<String, String>> {
        let resolver = self.shared.resolver.get()?;
        let current = self.current_config();
        let target = resolver(&current, arg)?;
        Some(target.and_then(|c| self.switch_provider(c)))
    }

    /// Switches to `config`'s provider and model from the next job on,
    /// keeping the conversation. Returns `provider/model`.
    pub fn switch_provider(&self, config: ProviderConfig) -> Result<String, String> {
        let provider = Provider::new(config.clone()).map_err(|e| e.to_string())?;
        let mut st = self.shared.lock();
        st.provider_name = config.provider.clone();
        st.model = config.model.clone();
        st.pending.provider = Some(provider);
        let label = format!("{}/{}", config.provider, config.model);
        st.switched = Some(config);
        drop(st);
        self.shared.wake.notify_one();
        Ok(label)
    }

    /// The provider configuration the conversation started with.
    pub fn start_config(&self) -> ProviderConfig {
        self.shared.base.clone()
    }

    /// The provider configuration in use from the next job on.
    pub fn current_config(&self) -> ProviderConfig {
        let st = self.shared.lock();
        let mut config = match (&st.pending.provider, &st.switched) {
            (Some(p), _) => p.config().clone(),
            (None, Some(c)) => c.clone(),
            (None, None) => self.shared.base.clone(),
        };
        // `/model <id>` within the provider changes only the model.
        config.model = st.model.clone();
        config
    }
}
