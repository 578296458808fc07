//! The client's `fs/read_text_file` / `fs/write_text_file` as the tools'
//! [`FileAccess`]: `read`, `write` and `edit` see the editor's buffers,
//! unsaved changes included.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use agent_client_protocol::v1::schema::{ReadTextFileRequest, SessionId, WriteTextFileRequest};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::Client;
use zut_tools::{FileAccess, FileFuture};

/// File access through the ACP client, for the capabilities it offered.
pub(crate) struct ClientFiles {
    pub conn: ConnectionTo<Client>,
    /// The ACP session, set once `session/new` or `session/load` named it.
    pub session: Arc<OnceLock<SessionId>>,
    /// `fs.readTextFile`: without it every read goes to the disk.
    pub read: bool,
    /// `fs.writeTextFile`: without it writes go to the disk.
    pub write: bool,
}

impl ClientFiles {
    fn session(&self) -> Result<SessionId, String> {
        self.session
            .get()
            .cloned()
            .ok_or_else(|| "the ACP session is not open yet".to_string())
    }
}

impl FileAccess for ClientFiles {
    fn read_text<'a>(&'a self, path: &'a Path) -> FileFuture<'a, String> {
        Box::pin(async move {
            if !self.read {
                return Err("the client does not offer fs/read_text_file".to_string());
            }
            let session = self.session()?;
            self.conn
                .send_request(ReadTextFileRequest::new(session, path))
                .block_task()
                .await
                .map(|r| r.content)
                .map_err(|e| format!("fs/read_text_file: {e}"))
        })
    }

    fn write_text<'a>(&'a self, path: &'a Path, content: &'a str) -> FileFuture<'a, ()> {
        Box::pin(async move {
            if !self.write {
                return tokio::fs::write(path, content.as_bytes())
                    .await
                    .map_err(|e| e.to_string());
            }
            let session = self.session()?;
            self.conn
                .send_request(WriteTextFileRequest::new(session, path, content))
                .block_task()
                .await
                .map(|_| ())
                .map_err(|e| format!("fs/write_text_file: {e}"))
        })
    }
}
