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

/// A dispatched SSE event borrowed from the parser (valid until the next call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEventRef<'a> {
    /// The `event:` field, empty when the event had none.
    pub event: &'a str,
    /// The `data:` lines joined with `\n`.
    pub data: &'a str,
}

impl SseEventRef<'_> {
    /// An owned copy.
    pub fn to_owned(&self) -> SseEvent {
        SseEvent {
            event: self.event.to_string(),
            data: self.data.to_string(),
        }
    }
}

/// Incremental SSE parser: [`SseParser::push`] bytes, then drain
/// [`SseParser::next_event`] (or the allocation-free
/// [`SseParser::next_event_ref`]) until it returns `None`; at end of input
/// drain [`SseParser::finish`].
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
    /// `event`/`data` hold a dispatched event, to be cleared on the next call.
    dispatched: bool,
}

/// The index of the first `\n` or `\r` in `hay` (SIMD where the CPU has it).
#[inline]
fn find_eol(hay: &[u8]) -> Option<usize> {
    memchr::memchr2(b'\n', b'\r', hay)
}

fn push_utf8(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
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

    /// Bytes held for the event being assembled: the unparsed rest of the
    /// input plus the `data` of an undispatched event. A caller bounds
    /// memory by failing the stream when this grows past its limit (a
    /// line or an event that never ends).
    pub fn pending_bytes(&self) -> usize {
        let data = if self.dispatched { 0 } else { self.data.len() };
        self.buf.len() - self.pos + data
    }

    /// The next complete event, if the buffered bytes hold one.
    pub fn next_event(&mut self) -> Option<SseEvent> {
        self.next_event_ref().map(|e| e.to_owned())
    }

    /// The next complete event, borrowed from the parser's buffers.
    pub fn next_event_ref(&mut self) -> Option<SseEventRef<'_>> {
        if self.advance() {
            Some(self.current())
        } else {
            None
        }
    }

    /// At end of input: the next event, buffered or flushed by
    /// [`SseParser::finish_ref`]; `None` once everything was delivered.
    pub fn drain_ref(&mut self) -> Option<SseEventRef<'_>> {
        if self.advance() || self.advance_finish() {
            Some(self.current())
        } else {
            None
        }
    }

    /// Scan for the next event; true when one was dispatched.
    fn advance(&mut self) -> bool {
        self.reset_dispatched();
        loop {
            if self.skip_lf && self.pos < self.buf.len() {
                if self.buf[self.pos] == b'\n' {
                    self.pos += 1;
                }
                self.skip_lf = false;
            }
            let from = self.scanned.max(self.pos);
            let Some(end) = find_eol(&self.buf[from..]) else {
                self.scanned = self.buf.len();
                return false;
            };
            let line_start = self.pos;
            let line_end = from + end;
            if self.buf[line_end] == b'\r' {
                self.skip_lf = true;
            }
            self.pos = line_end + 1;
            if self.line(line_start, line_end) {
                return true;
            }
        }
    }

    /// End of stream: treat a trailing unterminated line as complete and
    /// dispatch a pending event (lenient: some servers omit the final blank line).
    pub fn finish(&mut self) -> Option<SseEvent> {
        self.finish_ref().map(|e| e.to_owned())
    }

    /// [`SseParser::finish`], borrowed.
    pub fn finish_ref(&mut self) -> Option<SseEventRef<'_>> {
        if self.advance_finish() {
            Some(self.current())
        } else {
            None
        }
    }

    fn advance_finish(&mut self) -> bool {
        self.reset_dispatched();
        if self.skip_lf && self.buf.get(self.pos) == Some(&b'\n') {
            self.pos += 1;
        }
        self.skip_lf = false;
        if self.pos < self.buf.len() {
            let (start, end) = (self.pos, self.buf.len());
            self.pos = end;
            if self.line(start, end) {
                return true;
            }
        }
        self.dispatch()
    }

    fn reset_dispatched(&mut self) {
        if self.dispatched {
            self.dispatched = false;
            self.event.clear();
            self.data.clear();
        }
    }

    fn current(&self) -> SseEventRef<'_> {
        SseEventRef {
            event: &self.event,
            data: &self.data,
        }
    }

    /// Handle one line; true when it dispatched an event.
    fn line(&mut self, start: usize, end: usize) -> bool {
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
            return false;
        }
        let (field, value) = match memchr::memchr(b':', line) {
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
                push_utf8(&mut self.data, value);
            }
            b"event" => {
                self.event.clear();
                push_utf8(&mut self.event, value);
            }
            _ => {} // id, retry and unknown fields are irrelevant here
        }
        false
    }

    fn dispatch(&mut self) -> bool {
        if !self.has_data {
            self.event.clear();
            return false;
        }
        self.has_data = false;
        self.dispatched = true;
        true
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
    fn pending_bytes_counts_an_unfinished_line_and_event() {
        let mut p = SseParser::new();
        p.push(b"data: abc\n");
        assert!(p.next_event_ref().is_none());
        assert_eq!(p.pending_bytes(), 3, "the event's data so far");
        p.push(b"data: never ends");
        assert!(p.next_event_ref().is_none());
        assert!(p.pending_bytes() >= 3 + "data: never ends".len());
        p.push(b"\n\n");
        assert!(p.next_event_ref().is_some());
        assert!(p.next_event_ref().is_none());
        assert_eq!(p.pending_bytes(), 0);
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
    fn eol_scan_matches_naive_search() {
        let naive = |h: &[u8]| h.iter().position(|&b| b == b'\n' || b == b'\r');
        let mut hay = vec![b'a'; 40];
        assert_eq!(find_eol(&hay), None);
        for i in 0..40 {
            for byte in [b'\n', b'\r'] {
                hay[i] = byte;
                for start in 0..=i {
                    assert_eq!(find_eol(&hay[start..]), naive(&hay[start..]));
                }
                hay[i] = b'a';
            }
        }
        // Bytes just above and below the targets (and high bytes) never match.
        let tricky: Vec<u8> = (0u8..=255).filter(|b| *b != b'\n' && *b != b'\r').collect();
        assert_eq!(find_eol(&tricky), None);
        let mut both = tricky.clone();
        both.push(b'\r');
        assert_eq!(find_eol(&both), Some(tricky.len()));
    }

    #[test]
    fn borrowed_events_and_invalid_utf8() {
        let mut parser = SseParser::new();
        parser.push(b"event: e\ndata: a\n\ndata: \xff\xfe ok\n\n");
        let first = parser.next_event_ref().map(|e| e.to_owned());
        assert_eq!(first, Some(ev("e", "a")));
        let second = parser.next_event_ref().map(|e| e.to_owned());
        assert_eq!(second, Some(ev("", "\u{fffd}\u{fffd} ok")));
        assert!(parser.next_event_ref().is_none());
        assert!(parser.finish_ref().is_none());
    }

    #[test]
    fn field_without_colon_and_unknown_fields() {
        let events = parse_chunks(&[b"id: 7\nretry: 10\nfoo: bar\ndata: v\n\n"]);
        assert_eq!(events, vec![ev("", "v")]);
    }
}
