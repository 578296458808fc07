//! One row of a session file: parsing never panics, and a parsed row
//! serialises to a line that parses again to the same line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zut_session::Row;

fuzz_target!(|data: &[u8]| {
    if let Ok(row) = Row::parse(data) {
        let line = row.to_line();
        let again = Row::parse(&line[..line.len() - 1]).expect("a written row parses");
        assert_eq!(again.to_line(), line);
    }
});
