//! `read`: numbered text, images as image blocks, binary files refused.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;

use crate::limits::*;
use crate::{blocking, io_error_text, parse_args, ToolContent, ToolContext, ToolOutput};

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    offset: Option<u64>,
    limit: Option<u64>,
}

pub(crate) async fn run(args: &Value, ctx: &ToolContext) -> ToolOutput {
    let a: ReadArgs = match parse_args("read", args) {
        Ok(a) => a,
        Err(out) => return out,
    };
    let path = ctx.resolve(&a.path);
    if let Err(out) = crate::jail::check_read(ctx, &path) {
        return out;
    }
    if let Some(files) = ctx.files.clone() {
        let probe = path.clone();
        if blocking_bool(move || is_text_or_missing(&probe)).await {
            if let Ok(text) = files.read_text(&path).await {
                return read_text(&a, text);
            }
        }
    }
    blocking("read", move || read_file(&a, &path)).await
}

/// Runs a probe off the async threads.
async fn blocking_bool(f: impl FnOnce() -> bool + Send + 'static) -> bool {
    tokio::task::spawn_blocking(f).await.unwrap_or(false)
}

/// Whether the disk has nothing at `path`, or a regular file whose first
/// bytes are text (not an image, not binary): the files a front end's
/// [`crate::FileAccess`] may serve.
fn is_text_or_missing(path: &Path) -> bool {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => return e.kind() == std::io::ErrorKind::NotFound,
    };
    if !meta.is_file() {
        return false;
    }
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    match read_head(&mut file, READ_SNIFF_BYTES) {
        Ok(head) => sniff_image(&head).is_none() && binary_reason(&head, meta.len()).is_none(),
        Err(_) => false,
    }
}

/// `read` of text served by the front end.
fn read_text(a: &ReadArgs, text: String) -> ToolOutput {
    let shown = a.path.as_str();
    if text.is_empty() {
        return ToolOutput::text(format!("{shown} is empty (0 bytes)."));
    }
    let len = text.len() as u64;
    match number_lines(std::io::Cursor::new(text.into_bytes()), a, shown, len) {
        Ok(out) => out,
        Err(e) => ToolOutput::error(io_error_text("read", shown, &e)),
    }
}

fn read_file(a: &ReadArgs, path: &Path) -> ToolOutput {
    let shown = a.path.as_str();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut text = format!("File not found: {shown}");
            if path.to_string_lossy() != shown {
                text.push_str(&format!(" (resolved to {})", path.display()));
            }
            text.push('.');
            if let Some(hint) = similar_names(path) {
                text.push_str(&format!(" Similar names in that directory: {hint}."));
            }
            return ToolOutput::error(text);
        }
        Err(e) => return ToolOutput::error(io_error_text("read", shown, &e)),
    };
    if meta.is_dir() {
        return ToolOutput::error(format!(
            "{shown} is a directory, not a file. Use `bash` (e.g. `ls {shown}`) or `grep` to explore it."
        ));
    }
    if !meta.is_file() {
        return ToolOutput::error(format!(
            "{shown} is not a regular file (device, socket or FIFO); read refuses it."
        ));
    }
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) => return ToolOutput::error(io_error_text("read", shown, &e)),
    };
    let head = match read_head(&mut file, READ_SNIFF_BYTES) {
        Ok(h) => h,
        Err(e) => return ToolOutput::error(io_error_text("read", shown, &e)),
    };
    if head.is_empty() {
        return ToolOutput::text(format!("{shown} is empty (0 bytes)."));
    }
    if let Some(mime) = sniff_image(&head) {
        return read_image(shown, file, head, meta.len(), mime);
    }
    if let Some(why) = binary_reason(&head, meta.len()) {
        return ToolOutput::error(format!(
            "{shown} looks like a binary file ({why}); read only returns text and \
             PNG/JPEG/GIF/WebP images. Inspect it with `bash`, e.g. `file {shown}` or `xxd {shown} | head`."
        ));
    }
    let reader = BufReader::new(std::io::Cursor::new(head).chain(file));
    match number_lines(reader, a, shown, meta.len()) {
        Ok(out) => out,
        Err(e) => ToolOutput::error(io_error_text("read", shown, &e)),
    }
}

fn read_head(file: &mut File, max: usize) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(max);
    file.by_ref().take(max as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// MIME type of a PNG, JPEG, GIF or WebP by magic bytes.
fn sniff_image(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Why `head` (the first bytes of a file of `len` bytes) looks binary.
fn binary_reason(head: &[u8], len: u64) -> Option<&'static str> {
    if head.contains(&0) {
        return Some("it contains NUL bytes");
    }
    match std::str::from_utf8(head) {
        Ok(_) => None,
        // A multi-byte character cut by the sniff window is fine.
        Err(e) if e.error_len().is_none() && (head.len() as u64) < len => None,
        Err(_) => Some("it is not valid UTF-8 text"),
    }
}

fn read_image(shown: &str, mut file: File, mut data: Vec<u8>, len: u64, mime: &str) -> ToolOutput {
    if len > READ_MAX_IMAGE_BYTES {
        return ToolOutput::error(format!(
            "{shown} is a {mime} image of {len} bytes, larger than the {READ_MAX_IMAGE_BYTES}-byte \
             limit for inline images. Shrink it first (e.g. with ImageMagick via `bash`) and read the smaller copy."
        ));
    }
    if let Err(e) = file
        .by_ref()
        .take(READ_MAX_IMAGE_BYTES + 1 - data.len() as u64)
        .read_to_end(&mut data)
    {
        return ToolOutput::error(io_error_text("read", shown, &e));
    }
    if data.len() as u64 > READ_MAX_IMAGE_BYTES {
        return ToolOutput::error(format!(
            "{shown} grew past the {READ_MAX_IMAGE_BYTES}-byte image limit while being read."
        ));
    }
    let encoded = base64::engine::general_purpose::STANDARD.encode(&data);
    ToolOutput {
        content: vec![
            ToolContent::Text(format!("{shown}: {mime} image, {} bytes.", data.len())),
            ToolContent::Image {
                mime_type: mime.to_string(),
                data: encoded,
            },
        ],
        is_error: false,
    }
}

/// Reads one line (up to and excluding `\n`), keeping at most `keep` bytes
/// of it in `buf`. Returns the line's full length in bytes, or `None` at
/// end of file.
fn read_line_capped<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    keep: usize,
) -> std::io::Result<Option<usize>> {
    buf.clear();
    let mut total = 0usize;
    let mut any = false;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(if any { Some(total) } else { None });
        }
        any = true;
        let (part, found) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i)),
            None => (chunk, None),
        };
        let room = keep.saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        total += part.len();
        match found {
            Some(i) => {
                r.consume(i + 1);
                return Ok(Some(total));
            }
            None => {
                let n = chunk.len();
                r.consume(n);
            }
        }
    }
}

fn number_lines<R: BufRead>(
    mut reader: R,
    a: &ReadArgs,
    shown: &str,
    file_len: u64,
) -> std::io::Result<ToolOutput> {
    let offset = a.offset.unwrap_or(1).max(1);
    let limit = a.limit.unwrap_or(READ_DEFAULT_LINES as u64).max(1);
    let keep = READ_MAX_LINE_CHARS * 4 + 4;
    let mut buf = Vec::new();
    let mut out = String::new();
    let mut line_no: u64 = 0;
    let mut last_shown: u64 = 0;
    let mut byte_capped = false;

    // Skip to `offset`, then collect up to `limit` lines within the byte cap.
    loop {
        if line_no + 1 >= offset && (line_no + 1 - offset) >= limit {
            break;
        }
        let Some(full_len) = read_line_capped(&mut reader, &mut buf, keep)? else {
            break;
        };
        line_no += 1;
        if line_no < offset {
            continue;
        }
        let rendered = render_line(line_no, &buf, full_len);
        if !out.is_empty() && out.len() + rendered.len() > READ_MAX_BYTES {
            byte_capped = true;
            // This line is not shown; count it toward the total below.
            break;
        }
        out.push_str(&rendered);
        last_shown = line_no;
    }

    if last_shown == 0 {
        // Nothing shown: offset is past the end.
        let mut total = line_no;
        while read_line_capped(&mut reader, &mut buf, 0)?.is_some() {
            total += 1;
        }
        return Ok(ToolOutput::error(format!(
            "offset {offset} is past the end of {shown}, which has {total} line{}.",
            if total == 1 { "" } else { "s" }
        )));
    }

    // Is there more after the window? Count it when cheap.
    let mut more = byte_capped;
    let mut total: Option<u64> = None;
    if byte_capped {
        // The line that did not fit was already consumed.
        if file_len <= READ_COUNT_LINES_MAX_FILE {
            let mut t = line_no;
            while read_line_capped(&mut reader, &mut buf, 0)?.is_some() {
                t += 1;
            }
            total = Some(t);
        }
    } else if read_line_capped(&mut reader, &mut buf, 0)?.is_some() {
        more = true;
        if file_len <= READ_COUNT_LINES_MAX_FILE {
            let mut t = line_no + 1;
            while read_line_capped(&mut reader, &mut buf, 0)?.is_some() {
                t += 1;
            }
            total = Some(t);
        }
    }

    if more {
        let of = match total {
            Some(t) => format!(" of {t}"),
            None => String::new(),
        };
        let why = if byte_capped {
            format!(" (output limit of {} KiB reached)", READ_MAX_BYTES / 1024)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "\n[Showing lines {offset}-{last_shown}{of}{why}. Use offset={} to continue.]\n",
            last_shown + 1
        ));
    }
    Ok(ToolOutput::text(out))
}

fn render_line(n: u64, raw: &[u8], full_len: usize) -> String {
    let mut bytes = raw;
    if full_len == raw.len() && bytes.last() == Some(&b'\r') {
        bytes = &bytes[..bytes.len() - 1];
    }
    let text = String::from_utf8_lossy(bytes);
    let mut line = String::new();
    let mut cut = full_len > raw.len();
    for (count, ch) in text.chars().enumerate() {
        if count >= READ_MAX_LINE_CHARS {
            cut = true;
            break;
        }
        line.push(ch);
    }
    if cut {
        format!("{n:>6}\t{line}… [line cut: {full_len} bytes in total]\n")
    } else {
        format!("{n:>6}\t{line}\n")
    }
}

/// Up to five entries of the missing file's directory whose names resemble
/// the requested one (case-insensitive containment either way).
fn similar_names(path: &Path) -> Option<String> {
    let want = path.file_name()?.to_string_lossy().to_lowercase();
    let stem = want.split('.').next().unwrap_or(&want).to_string();
    let dir = std::fs::read_dir(path.parent()?).ok()?;
    let mut found: Vec<String> = dir
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            let lower = name.to_lowercase();
            !stem.is_empty() && (lower.contains(&stem) || want.contains(&lower))
        })
        .collect();
    found.sort();
    found.truncate(5);
    if found.is_empty() {
        None
    } else {
        Some(found.join(", "))
    }
}
