//! Recording a model switch in the session file, as the Go original does
//! (`Session.UpdateModel`): a repeated `meta` row with the new provider and
//! model (the last `meta` row wins when the file is read), so resuming the
//! session picks up the model it last used.

use crate::agent::Agent;

impl Agent {
    /// Appends a `meta` row when the provider or model in use differs from
    /// the session file's. A failed write is logged and left: the
    /// conversation goes on.
    pub(crate) fn record_model(&mut self) {
        let (provider, model) = (
            self.provider.name().to_string(),
            self.provider.model().to_string(),
        );
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let current = s.writer().meta();
        if current.provider == provider && current.model == model {
            return;
        }
        let mut meta = current.clone();
        meta.provider = provider;
        meta.model = model;
        if let Err(e) = s.writer_mut().append(&zut_session::Row::Meta(meta)) {
            tracing::warn!(%e, "could not record the model switch in the session");
        }
    }
}
