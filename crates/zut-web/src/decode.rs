//! From response bytes to text: `Content-Encoding` (gzip, deflate, br)
//! decoded with a cap on the output (a compression bomb stops at the cap),
//! the kind of content, and its character set (header, BOM, `<meta>`).

use std::io::Read;

use encoding_rs::Encoding;

/// What a body holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// HTML or XHTML.
    Html,
    /// Plain text (also Markdown, JSON, XML, CSV, source code).
    Text,
    /// PDF.
    Pdf,
}

/// Decodes `Content-Encoding` into at most `cap` bytes. Returns the bytes
/// and whether output was cut at the cap. A stream that breaks off keeps
/// what decoded before the break.
pub fn content_encoding(
    encoding: &str,
    body: Vec<u8>,
    cap: usize,
) -> Result<(Vec<u8>, bool), String> {
    let reader: Box<dyn Read + '_> = match encoding {
        "" => return Ok((body, false)),
        "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(body.as_slice())),
        "deflate" => {
            // RFC 9110 "deflate" is zlib; some servers send raw deflate.
            if body.first().is_some_and(|b| b & 0x0f == 8) {
                Box::new(flate2::read::ZlibDecoder::new(body.as_slice()))
            } else {
                Box::new(flate2::read::DeflateDecoder::new(body.as_slice()))
            }
        }
        "br" => Box::new(brotli_decompressor::Decompressor::new(
            body.as_slice(),
            64 * 1024,
        )),
        other => return Err(format!("unsupported Content-Encoding {other:?}")),
    };
    let mut out = Vec::new();
    let mut limited = reader.take(cap as u64 + 1);
    let mut buf = [0u8; 64 * 1024];
    loop {
        match limited.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if out.is_empty() => {
                return Err(format!("the {encoding} body does not decode: {e}"));
            }
            Err(_) => break,
        }
    }
    let cut = out.len() > cap;
    out.truncate(cap);
    Ok((out, cut))
}

/// The kind of a body from its MIME type, sniffing when the type is
/// missing or generic. `Err` names a type the tools do not read.
pub fn kind(mime: &str, body: &[u8]) -> Result<Kind, String> {
    match mime {
        "text/html" | "application/xhtml+xml" => return Ok(Kind::Html),
        "application/pdf" | "application/x-pdf" => return Ok(Kind::Pdf),
        "application/json"
        | "application/xml"
        | "text/xml"
        | "application/javascript"
        | "application/x-yaml"
        | "application/yaml"
        | "application/toml" => return Ok(Kind::Text),
        m if m.starts_with("text/") => return Ok(Kind::Text),
        m if m.ends_with("+json") || m.ends_with("+xml") => return Ok(Kind::Text),
        "" | "application/octet-stream" | "binary/octet-stream" => {}
        other => {
            return Err(format!(
                "content type {other} is not read by web_open (HTML, text and PDF are)"
            ))
        }
    }
    let head = &body[..body.len().min(1024)];
    if head.starts_with(b"%PDF-") {
        return Ok(Kind::Pdf);
    }
    let trimmed = head.trim_ascii_start();
    let lower: Vec<u8> = trimmed
        .iter()
        .take(64)
        .map(u8::to_ascii_lowercase)
        .collect();
    if lower.starts_with(b"<!doctype html")
        || lower.starts_with(b"<html")
        || lower.starts_with(b"<head")
    {
        return Ok(Kind::Html);
    }
    if head.contains(&0) {
        return Err("the body is binary data (HTML, text and PDF are read)".into());
    }
    Ok(Kind::Text)
}

/// Decodes text bytes: a BOM wins, then the header's charset, then (for
/// HTML) a `<meta>` charset in the first 4 KiB, else UTF-8. Invalid
/// sequences become U+FFFD.
pub fn text(body: &[u8], header_charset: Option<&str>, html: bool) -> String {
    let encoding = Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or_else(|| header_charset.and_then(|c| Encoding::for_label(c.as_bytes())))
        .or_else(|| if html { meta_charset(body) } else { None })
        .unwrap_or(encoding_rs::UTF_8);
    // A page labelled UTF-16 without a BOM is almost always ASCII-compatible.
    let encoding = encoding.output_encoding();
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

/// The encoding of an HTML body: BOM, then `header_charset`, then
/// `<meta>`, else UTF-8.
pub fn html_encoding(body: &[u8], header_charset: Option<&str>) -> &'static Encoding {
    Encoding::for_bom(body)
        .map(|(e, _)| e)
        .or_else(|| header_charset.and_then(|c| Encoding::for_label(c.as_bytes())))
        .or_else(|| meta_charset(body))
        .unwrap_or(encoding_rs::UTF_8)
        .output_encoding()
}

/// The charset of `<meta charset=…>` or `<meta http-equiv … content="…;
/// charset=…">` in the first 4 KiB.
fn meta_charset(body: &[u8]) -> Option<&'static Encoding> {
    let head = &body[..body.len().min(4096)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(i) = find(&lower[from..], b"charset") {
        let mut j = from + i + b"charset".len();
        while j < lower.len() && matches!(lower[j], b' ' | b'=' | b'"' | b'\'') {
            j += 1;
        }
        let start = j;
        while j < lower.len()
            && (lower[j].is_ascii_alphanumeric() || matches!(lower[j], b'-' | b'_' | b':' | b'.'))
        {
            j += 1;
        }
        if let Some(e) = Encoding::for_label(&lower[start..j]) {
            return Some(e);
        }
        from = j.max(from + i + 1);
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_bomb_stops_at_the_cap() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1024 * 1024];
        for _ in 0..64 {
            enc.write_all(&zeros).unwrap();
        }
        let bomb = enc.finish().unwrap();
        assert!(bomb.len() < 200 * 1024);
        let (out, cut) = content_encoding("gzip", bomb, 1024 * 1024).unwrap();
        assert!(cut);
        assert_eq!(out.len(), 1024 * 1024);
    }

    #[test]
    fn charsets_come_from_bom_header_or_meta() {
        let latin1 = b"caf\xe9";
        assert_eq!(text(latin1, Some("iso-8859-1"), false), "café");
        let html = b"<html><head><meta charset=\"windows-1251\"></head><body>\xcf\xf0\xe8\xe2\xe5\xf2</body></html>";
        assert!(text(html, None, true).contains("Привет"));
        let meta = b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">\x93\xfa\x96\x7b";
        assert!(text(meta, None, true).contains("日本"));
        assert_eq!(text(b"\xef\xbb\xbfok", Some("latin1"), false), "ok");
        assert_eq!(text(b"bad \xff", None, false), "bad \u{fffd}");
    }

    #[test]
    fn kinds_are_sniffed_when_untyped() {
        assert_eq!(kind("", b"%PDF-1.4 ...").unwrap(), Kind::Pdf);
        assert_eq!(kind("", b"  <!DOCTYPE html><p>x").unwrap(), Kind::Html);
        assert_eq!(kind("text/markdown", b"# x").unwrap(), Kind::Text);
        assert!(kind("image/png", b"\x89PNG")
            .unwrap_err()
            .contains("image/png"));
        assert!(kind("application/octet-stream", b"\0\x01\x02").is_err());
    }
}
