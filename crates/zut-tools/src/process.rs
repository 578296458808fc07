//! What `bash` and `python` share on top of `zut_process` (which starts
//! them in their own process group, inside the sandbox): the poll interval
//! while a group dies, and lossy streaming UTF-8 decoding of the output.

/// How often a group is polled while waiting for it to die.
#[cfg(unix)]
pub(crate) const POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Incremental lossy UTF-8 decoding for progress chunks: a character split
/// across reads is held back until it is complete.
#[derive(Default)]
pub(crate) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub(crate) fn decode(&mut self, input: &[u8]) -> String {
        self.pending.extend_from_slice(input);
        let mut out = String::new();
        let mut pos = 0;
        while pos < self.pending.len() {
            match std::str::from_utf8(&self.pending[pos..]) {
                Ok(s) => {
                    out.push_str(s);
                    pos = self.pending.len();
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.pending[pos..pos + valid]));
                    match e.error_len() {
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            pos += valid + bad;
                        }
                        None => {
                            pos += valid;
                            break;
                        }
                    }
                }
            }
        }
        self.pending.drain(..pos);
        out
    }

    pub(crate) fn finish(&mut self) -> String {
        let rest = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_stream_holds_split_characters() {
        let mut s = Utf8Stream::default();
        let bytes = "aé€😀".as_bytes();
        let mut out = String::new();
        for b in bytes {
            out.push_str(&s.decode(std::slice::from_ref(b)));
        }
        out.push_str(&s.finish());
        assert_eq!(out, "aé€😀");
        assert_eq!(s.decode(b"a\xffb"), "a\u{FFFD}b");
    }
}
