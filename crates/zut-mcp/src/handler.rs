//! zut's side of the protocol: honest capabilities (roots only: the project
//! directory), progress routing, `list_changed` refreshes, server log
//! messages to the server's log file.
//!
//! Roots and logging are deprecated by SEP-2577 but still what deployed
//! servers (server-filesystem) use, hence the `allow(deprecated)`.
#![allow(deprecated)]

use std::path::PathBuf;
use std::sync::Weak;

use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, Root, RootsCapabilities,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};

use crate::slot::Slot;

/// The client handler of one connection.
pub(crate) struct Handler {
    pub slot: Weak<Slot>,
    pub project: PathBuf,
    pub home: PathBuf,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        let mut roots = RootsCapabilities::default();
        roots.list_changed = Some(false);
        caps.roots = Some(roots);
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
