//! A protocol's input read on a thread of its own, a line at a time, so that a command can
//! arrive while a search runs (GTP analysis, the JSON analysis engine).

use std::io::{self, BufRead};
use std::sync::mpsc::{self, Receiver};

/// Starts reading `input`: each line with its newline, or the read error that ends it. The
/// channel closes at the end of the input.
pub fn read_lines(mut input: impl BufRead + Send + 'static) -> Receiver<io::Result<Vec<u8>>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || loop {
        let mut raw = Vec::new();
        let line = match input.read_until(b'\n', &mut raw) {
            Ok(0) => return,
            Ok(_) => Ok(raw),
            Err(e) => Err(e),
        };
        let failed = line.is_err();
        if tx.send(line).is_err() || failed {
            return;
        }
    });
    rx
}
