//! Text of a PDF, by `pdf-extract` (on `lopdf`), on a blocking thread with
//! panics caught: a malformed file is an error, never a crash. Its streams
//! are inflated once first with a cap on the total, so a compression bomb
//! (4 MiB that inflate to gigabytes, which `lopdf` would hold in memory)
//! is refused before extraction; extraction has a time cap.

use std::io::Read;

use crate::limits::{MAX_PDF_INFLATED_BYTES, PDF_TIMEOUT};

/// The text of `bytes`, pages separated by a blank line, or why not.
pub async fn text(bytes: Vec<u8>) -> Result<String, String> {
    let job = tokio::task::spawn_blocking(move || {
        if inflates_past(&bytes, MAX_PDF_INFLATED_BYTES) {
            return Ok(Err(format!(
                "the PDF's compressed streams expand to more than {} MiB",
                MAX_PDF_INFLATED_BYTES >> 20
            )));
        }
        std::panic::catch_unwind(|| {
            pdf_extract::extract_text_from_mem(&bytes).map_err(|e| e.to_string())
        })
    });
    let Ok(done) = tokio::time::timeout(PDF_TIMEOUT, job).await else {
        return Err(format!(
            "the PDF's text was not extracted within {} s",
            PDF_TIMEOUT.as_secs()
        ));
    };
    match done {
        Ok(Ok(Ok(text))) => {
            let text = tidy(&text);
            if text.trim().is_empty() {
                Err("the PDF has no extractable text (it may be scanned images)".into())
            } else {
                Ok(text)
            }
        }
        Ok(Ok(Err(e))) if e.starts_with("the PDF") => Err(e),
        Ok(Ok(Err(e))) => Err(format!("the PDF could not be read: {e}")),
        Ok(Err(_)) | Err(_) => Err("the PDF could not be read (malformed file)".into()),
    }
}

/// Whether the zlib streams of `pdf` (every `stream` … `endstream`
/// section that inflates; others are skipped) hold more than `cap` bytes
/// in all.
fn inflates_past(pdf: &[u8], cap: usize) -> bool {
    let mut total = 0usize;
    let mut rest = pdf;
    while let Some(at) = find(rest, b"stream") {
        let mut data = &rest[at + 6..];
        // `endstream` also contains `stream`: only a keyword followed by
        // an end of line starts data.
        data = match data {
            [b'\r', b'\n', d @ ..] | [b'\n', d @ ..] | [b'\r', d @ ..] => d,
            _ => {
                rest = data;
                continue;
            }
        };
        let end = find(data, b"endstream").unwrap_or(data.len());
        let mut z = flate2::read::ZlibDecoder::new(&data[..end]).take((cap - total + 1) as u64);
        let mut sink = [0u8; 64 * 1024];
        loop {
            match z.read(&mut sink) {
                Ok(0) | Err(_) => break,
                Ok(n) => total += n,
            }
        }
        if total > cap {
            return true;
        }
        rest = data.get(end + b"endstream".len()..).unwrap_or_default();
    }
    false
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Trailing spaces dropped, runs of blank lines collapsed to one.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            continue;
        }
        if blank > 0 && !out.is_empty() {
            out.push('\n');
        }
        blank = 0;
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Write;

    use super::*;

    fn pdf_with_stream(inflated: usize) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&vec![b'A'; inflated]).unwrap();
        let data = z.finish().unwrap();
        let mut pdf = format!(
            "%PDF-1.4\n1 0 obj\n<< /Length {} /Filter /FlateDecode >>\nstream\n",
            data.len()
        )
        .into_bytes();
        pdf.extend_from_slice(&data);
        pdf.extend_from_slice(b"\nendstream\nendobj\n%%EOF\n");
        pdf
    }

    #[test]
    fn a_compression_bomb_is_seen_before_extraction() {
        assert!(!inflates_past(&pdf_with_stream(100_000), 1 << 20));
        assert!(inflates_past(&pdf_with_stream(3 << 20), 1 << 20));
        // Two streams under the cap each, over it together.
        let mut two = pdf_with_stream(700_000);
        two.extend(pdf_with_stream(700_000));
        assert!(inflates_past(&two, 1 << 20));
        assert!(!inflates_past(b"%PDF-1.4 no streams", 1));
        assert!(!inflates_past(b"stream\nnot zlib\nendstream", 1));
    }

    #[tokio::test]
    async fn a_bomb_is_an_error() {
        let e = text(pdf_with_stream(MAX_PDF_INFLATED_BYTES + 1024))
            .await
            .unwrap_err();
        assert!(e.contains("expand to more than"), "{e}");
    }
}
