//! A small incremental Server-Sent Events parser (bytes in, events out).
//!
//! Follows the WHATWG event-stream rules that matter to LLM APIs: lines end
//! with `\n`, `\r\n` or `\r` (also when a `\r\n` pair is split across
//! chunks); `:` lines are comments; `data:` lines of one event are joined
//! with `\n`; a blank line dispatches the event; one leading space after the
//! colon is dropped; a leading byte-order mark is ignored. Chunks may split
//! anywhere, including inside a UTF-8 sequence: bytes are only decoded once a
//! whole line is present.

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, empty when the event had none (the SSE default "message").
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental SSE parser: [`SseParser::push`] bytes, then drain
/// [`SseParser::next_event`] until it returns `None`.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    pos: usize,
    /// Bytes before this index (and after `pos`) hold no line break.
    scanned: usize,
    skip_lf: bool,
    started: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// A fresh parser.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed more bytes.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            self.scanned = 0;
        } else if self.pos > 64 * 1024 {
            self.buf.drain(..self.pos);
            self.scanned -= self.pos.min(self.scanned);
            self.pos = 0;
        }
        self.buf.extend_from_slice(chunk);
    }

    /// The next complete event, if the buffered bytes hold one.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        loop {
            if self.skip_lf && self.pos < self.buf.len() {
                if self.buf[self.pos] == b'\n' {
                    self.pos += 1;
                }
                self.skip_lf = false;
            }
            let from = self.scanned.max(self.pos);
            let Some(end) = self.buf[from..]
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
            else {
                self.scanned = self.buf.len();
                return None;
            };
            let line_start = self.pos;
            let line_end = from + end;
            if self.buf[line_end] == b'\r' {
                self.skip_lf = true;
            }
            self.pos = line_end + 1;
            if let Some(event) = self.line(line_start, line_end) {
                return Some(event);
            }
        }
    }

    /// End of stream: treat a trailing unterminated line as complete and
    /// dispatch a pending event (lenient: some servers omit the final blank line).
    pub fn finish(&mut self) -> Option<SseEvent> {
        if self.pos < self.buf.len() {
            let (start, end) = (self.pos, self.buf.len());
            self.pos = end;
            if let Some(event) = self.line(start, end) {
                return Some(event);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, start: usize, end: usize) -> Option<SseEvent> {
        let mut line = &self.buf[start..end];
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix("\u{feff}".as_bytes()) {
                line = rest;
            }
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                self.data.push_str(&String::from_utf8_lossy(value));
            }
            b"event" => {
                self.event.clear();
                self.event.push_str(&String::from_utf8_lossy(value));
            }
            _ => {} // id, retry and unknown fields are irrelevant here
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if !self.has_data {
            self.event.clear();
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event: std::mem::take(&mut self.event),
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk);
            while let Some(event) = parser.next_event() {
                out.push(event);
            }
        }
        while let Some(event) = parser.finish() {
            out.push(event);
        }
        out
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn basic_events() {
        let events = parse_chunks(&[b"event: a\ndata: one\n\ndata: two\n\n"]);
        assert_eq!(events, vec![ev("a", "one"), ev("", "two")]);
    }

    #[test]
    fn crlf_and_cr_line_endings() {
        let events = parse_chunks(&[b"event: a\r\ndata: x\r\n\r\ndata: y\r\rdata: z\n\n"]);
        assert_eq!(events, vec![ev("a", "x"), ev("", "y"), ev("", "z")]);
    }

    #[test]
    fn crlf_split_across_chunks() {
        let events = parse_chunks(&[b"data: x\r", b"\n\r", b"\ndata: y\r\n\r\n"]);
        assert_eq!(events, vec![ev("", "x"), ev("", "y")]);
    }

    #[test]
    fn multi_line_data_and_comments() {
        let events = parse_chunks(&[b": keep-alive\ndata: a\n: mid\ndata: b\ndata\n\n"]);
        assert_eq!(events, vec![ev("", "a\nb\n")]);
    }

    #[test]
    fn only_one_leading_space_is_stripped() {
        let events = parse_chunks(&[b"data:no-space\n\ndata:  two\n\n"]);
        assert_eq!(events, vec![ev("", "no-space"), ev("", " two")]);
    }

    #[test]
    fn events_split_at_every_byte() {
        let text = "event: message_start\ndata: {\"k\":\"h\u{e9}llo \u{1f600}\"}\n\nevent: ping\ndata: {}\n\n";
        let bytes = text.as_bytes();
        let chunks: Vec<&[u8]> = bytes.chunks(1).collect();
        let events = parse_chunks(&chunks);
        assert_eq!(
            events,
            vec![
                ev("message_start", "{\"k\":\"h\u{e9}llo \u{1f600}\"}"),
                ev("ping", "{}")
            ]
        );
        for size in 2..12 {
            let chunks: Vec<&[u8]> = bytes.chunks(size).collect();
            assert_eq!(parse_chunks(&chunks).len(), 2, "chunk size {size}");
        }
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_name_resets() {
        let events = parse_chunks(&[b"event: lonely\n\ndata: x\n\n"]);
        assert_eq!(events, vec![ev("", "x")]);
    }

    #[test]
    fn bom_is_ignored_and_unterminated_tail_is_flushed() {
        let events = parse_chunks(&["\u{feff}data: a\n\ndata: [DONE]".as_bytes()]);
        assert_eq!(events, vec![ev("", "a"), ev("", "[DONE]")]);
    }

    #[test]
    fn field_without_colon_and_unknown_fields() {
        let events = parse_chunks(&[b"id: 7\nretry: 10\nfoo: bar\ndata: v\n\n"]);
        assert_eq!(events, vec![ev("", "v")]);
    }
}
