//! Switching provider mid-conversation (`/model <provider>/<id>`): the
//! front end resolves the other provider's configuration (flags, files,
//! keys) and hands it over; the conversation is kept.

use zut_providers::{Provider, ProviderConfig};

use super::Controller;

impl Controller {
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
