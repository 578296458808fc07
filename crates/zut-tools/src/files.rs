//! The file-access seam: a front end that owns the files' truth (an editor
//! over ACP, with unsaved buffers) can serve the text `read`, `write` and
//! `edit` see and change instead of the disk.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;

/// The future of a [`FileAccess`] call: the value, or an error text.
pub type FileFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// Text file access through a front end (see the module docs). Paths are
/// absolute (resolved against the tool's cwd).
///
/// - `read` asks [`FileAccess::read_text`] for files that are text on
///   disk or missing there (an unsaved new buffer); images, binaries and
///   directories, and any file the front end cannot read, go to the disk.
/// - `write` writes through [`FileAccess::write_text`] (its error is the
///   tool's error: the front end refused the write).
/// - `edit` reads and writes through it; when the front end cannot read
///   the file, the edit works on the disk.
pub trait FileAccess: Send + Sync {
    /// The file's current text.
    fn read_text<'a>(&'a self, path: &'a Path) -> FileFuture<'a, String>;
    /// Replaces (or creates) the file with `content`.
    fn write_text<'a>(&'a self, path: &'a Path, content: &'a str) -> FileFuture<'a, ()>;
}
