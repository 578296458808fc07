//! zut's side of the protocol: honest capabilities (roots: the project
//! directory; elicitation in the modes a front end can show, only while
//! one can answer, [`crate::elicit`]; no sampling: a server's
//! `sampling/createMessage` gets a `Method not found` error at once),
//! progress routing, `list_changed` refreshes, server
//! log messages to the server's log file, and
//! `notifications/elicitation/complete` for URL-mode requests
//! ([`crate::url_flows`]).
//!
//! Roots and logging are deprecated by SEP-2577 but still what deployed
//! servers (server-filesystem) use, hence the `allow(deprecated)`.
#![allow(deprecated)]

use std::path::PathBuf;
use std::sync::Weak;

use rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, Implementation,
    ListRootsResult, LoggingMessageNotificationParam, ProgressNotificationParam, Root,
    RootsCapabilities, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};

use crate::slot::Slot;
use crate::url_flows::Completed;

/// The client handler of one connection.
pub(crate) struct Handler {
    pub slot: Weak<Slot>,
    pub project: PathBuf,
    pub home: PathBuf,
    pub elicitation: crate::elicit::Elicitation,
    /// This connection's URL-mode requests, for their completion.
    pub urls: crate::url_flows::UrlFlows,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        let mut roots = RootsCapabilities::default();
        roots.list_changed = Some(false);
        caps.roots = Some(roots);
        let modes = self.elicitation.modes();
        if modes.any() {
            let mut cap = ElicitationCapability::default();
            if modes.form {
                // Answers are checked against the schema.
                let mut form = FormElicitationCapability::default();
                form.schema_validation = Some(true);
                cap = cap.with_form(form);
            }
            if modes.url {
                cap = cap.with_url(UrlElicitationCapability::default());
            }
            caps.elicitation = Some(cap);
        }
        if let Some(slot) = self.slot.upgrade() {
            slot.elicitation_declared
                .store(modes.bits(), std::sync::atomic::Ordering::Release);
        }
        ClientConfig::new(caps, Implementation::new("zut", env!("CARGO_PKG_VERSION")))
    }

    async fn list_roots(
        &self,
        _: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let uri = format!("file://{}", self.project.display());
        let mut root = Root::new(uri);
        root.name = self
            .project
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        Ok(ListRootsResult::new(vec![root]))
    }

    /// Sampling is not offered (nor declared): a clear error at once.
    async fn create_message(
        &self,
        _: rmcp::model::CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CreateMessageResult, ErrorData> {
        if let Some(slot) = self.slot.upgrade() {
            crate::fsutil::log_marker(
                &self.home,
                &slot.config.name,
                "sampling/createMessage refused: zut offers no sampling",
            );
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            "zut does not offer sampling (sampling/createMessage); the sampling capability was not declared",
            None,
        ))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let name = self
            .slot
            .upgrade()
            .map(|s| s.config.name.clone())
            .unwrap_or_default();
        let (message, schema, order, url, eid) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => {
                let order = requested_schema
                    .property_order
                    .clone()
                    .unwrap_or_else(|| requested_schema.properties.keys().cloned().collect());
                let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
                (message, schema, order, None, None)
            }
            ElicitRequestParams::UrlElicitationParams {
                message,
                url,
                elicitation_id,
                ..
            } => (
                message,
                serde_json::Value::Null,
                Vec::new(),
                Some(url),
                Some(elicitation_id).filter(|e| !e.is_empty()),
            ),
            _ => {
                crate::fsutil::log_marker(
                    &self.home,
                    &name,
                    "elicitation declined: a mode zut does not know",
                );
                return Ok(ElicitResult::new(ElicitationAction::Decline));
            }
        };
        let asked = match &url {
            Some(url) => format!("elicitation asked (URL {url}): {message}"),
            None => format!("elicitation asked: {message}"),
        };
        crate::fsutil::log_marker(&self.home, &name, &asked);
        let id = self.elicitation.next_id();
        let done = eid
            .as_deref()
            .map(|e| self.urls.waiting(e, id))
            .unwrap_or_default();
        let (answer, line) = tokio::select! {
            r = self.elicitation.ask(id, &name, message, schema, order, url) => r,
            () = ctx.ct.cancelled() => (
                zut_types::ElicitationAnswer::cancel(),
                "elicitation withdrawn by the server".to_string(),
            ),
            () = done.cancelled() => (
                zut_types::ElicitationAnswer::cancel(),
                "elicitation closed: the server says its flow is complete \
                 (notifications/elicitation/complete); answered cancel"
                    .to_string(),
            ),
        };
        if let Some(e) = &eid {
            let accepted = answer.action == zut_types::ElicitationAction::Accept;
            self.urls.settled(e, id, accepted);
        }
        crate::fsutil::log_marker(&self.home, &name, &line);
        let action = match answer.action {
            zut_types::ElicitationAction::Accept => ElicitationAction::Accept,
            zut_types::ElicitationAction::Decline => ElicitationAction::Decline,
            zut_types::ElicitationAction::Cancel => ElicitationAction::Cancel,
        };
        let mut result = ElicitResult::new(action);
        if let Some(content) = answer.content {
            result = result.with_content(serde_json::Value::Object(content));
        }
        Ok(result)
    }

    /// `notifications/elicitation/complete` (rmcp 3.11 has no type for it;
    /// see [`crate::url_flows`]); other custom notifications are logged
    /// and ignored.
    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _: NotificationContext<RoleClient>,
    ) {
        let Some(slot) = self.slot.upgrade() else {
            return;
        };
        let name = &slot.config.name;
        if notification.method != crate::url_flows::COMPLETE {
            crate::fsutil::log_marker(
                &self.home,
                name,
                &format!("notification {} ignored", notification.method),
            );
            return;
        }
        let Some(eid) = crate::url_flows::elicitation_id(notification.params.as_ref()) else {
            crate::fsutil::log_marker(
                &self.home,
                name,
                "elicitation complete without an elicitationId: ignored",
            );
            return;
        };
        let line = match self.urls.complete(eid) {
            Some(Completed::Waiting(id)) => {
                // The front end hears of it before the dialog closes.
                self.elicitation.completed(id, name);
                format!("elicitation {eid:?} complete before the user answered: the dialog closes")
            }
            Some(Completed::Answered(id)) => {
                self.elicitation.completed(id, name);
                format!("elicitation {eid:?} complete")
            }
            None => format!("elicitation complete for an unknown or finished id {eid:?}: ignored"),
        };
        crate::fsutil::log_marker(&self.home, name, &line);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let Some(slot) = self.slot.upgrade() else {
            return;
        };
        let key = crate::call::token_key(&params.progress_token);
        if let Some(route) = slot.progress_route(&key) {
            let total = params.total.map(|t| format!("/{t}")).unwrap_or_default();
            let msg = params.message.map(|m| format!(" {m}")).unwrap_or_default();
            route(format!("[{}{}]{}", params.progress, total, msg));
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        if let Some(slot) = self.slot.upgrade() {
            crate::fsutil::log_marker(
                &self.home,
                &slot.config.name,
                &format!("log {:?}: {}", params.level, params.data),
            );
        }
    }

    async fn on_tool_list_changed(&self, ctx: NotificationContext<RoleClient>) {
        self.refresh(ctx);
    }

    async fn on_prompt_list_changed(&self, ctx: NotificationContext<RoleClient>) {
        self.refresh(ctx);
    }

    async fn on_resource_list_changed(&self, ctx: NotificationContext<RoleClient>) {
        self.refresh(ctx);
    }
}

impl Handler {
    /// Re-lists everything on a task (the notification handler must not
    /// wait for a request of the same connection).
    fn refresh(&self, ctx: NotificationContext<RoleClient>) {
        let Some(slot) = self.slot.upgrade() else {
            return;
        };
        if slot
            .refresh_pending
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return;
        }
        let peer = ctx.peer;
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            slot.refresh_pending
                .store(false, std::sync::atomic::Ordering::Release);
            let catalog = crate::supervisor::list_catalog(&slot, &peer).await;
            slot.set_catalog(catalog);
        });
    }
}
