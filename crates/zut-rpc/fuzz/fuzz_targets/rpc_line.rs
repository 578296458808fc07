//! RPC mode's line reader and request parser on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../src/wire.rs"]
mod wire;

#[allow(dead_code)]
#[path = "../../src/lines.rs"]
mod lines;

#[allow(dead_code)]
#[path = "../../src/parse.rs"]
mod parse;

use lines::{Input, Lines};
use parse::{Context, Line};

thread_local! {
    static RT: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
}

fuzz_target!(|data: &[u8]| {
    // First byte: the line limit and the connection's context.
    let Some((&knobs, input)) = data.split_first() else {
        return;
    };
    let max = 1 + usize::from(knobs & 0x3f);
    let cx = Context {
        authed: knobs & 0x40 != 0,
        commands: knobs & 0x80 != 0,
        ext_ui: knobs & 0x01 != 0,
    };
    let got = RT.with(|rt| {
        rt.block_on(async {
            // A tiny buffer, so lines span many reads.
            let reader = tokio::io::BufReader::with_capacity(7, input);
            let mut lines = Lines::new(reader, max);
            let mut got = Vec::new();
            loop {
                match lines.next().await {
                    Input::Eof => return got,
                    other => got.push(other),
                }
            }
        })
    });
    // The oracle: the input split at LF, no empty last piece.
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    assert_eq!(got.len(), pieces.len());
    for (g, p) in got.iter().zip(&pieces) {
        match g {
            Input::Line(l) => {
                assert!(p.len() <= max);
                assert_eq!(l.as_slice(), *p);
                check_parse(l, cx);
            }
            Input::TooLong(n) => {
                assert!(p.len() > max);
                assert_eq!(*n, p.len());
            }
            Input::Eof => unreachable!(),
        }
    }
    // The parser on the whole input as one line, too.
    check_parse(input, cx);
});

fn check_parse(line: &[u8], cx: Context) {
    match parse::parse(line, cx) {
        Line::Blank => assert!(String::from_utf8_lossy(line).trim().is_empty()),
        Line::Refused(r) => {
            let out = r.to_line();
            assert!(!out.contains(&b'\n'));
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["type"], "response");
            assert_eq!(v["success"], false);
        }
        Line::Request(p) => {
            assert!(cx.authed || p.kind == "hello");
            assert!(p.id.as_deref() != Some(""));
        }
    }
}
