//! Text of a PDF, by `pdf-extract` (on `lopdf`), on a blocking thread with
//! panics caught: a malformed file is an error, never a crash.

/// The text of `bytes`, pages separated by a blank line, or why not.
pub async fn text(bytes: Vec<u8>) -> Result<String, String> {
    let job = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(&bytes))
    });
    match job.await {
        Ok(Ok(Ok(text))) => {
            let text = tidy(&text);
            if text.trim().is_empty() {
                Err("the PDF has no extractable text (it may be scanned images)".into())
            } else {
                Ok(text)
            }
        }
        Ok(Ok(Err(e))) => Err(format!("the PDF could not be read: {e}")),
        Ok(Err(_)) | Err(_) => Err("the PDF could not be read (malformed file)".into()),
    }
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
