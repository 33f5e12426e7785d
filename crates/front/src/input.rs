//! A protocol's input read on a thread of its own, a line at a time, so that a command can
//! arrive while a search runs (GTP analysis, the JSON analysis engine). A line holds at most
//! [`MAX_LINE_BYTES`]: the rest of a longer one is read and dropped, so a line without an end
//! costs no more memory than that, and the protocol answers it with one error.

use std::io::{self, BufRead};
use std::sync::mpsc::{self, Receiver};

/// The longest line read whole: 1 MiB, far above any command or query (a 19x19 query with a
/// full game's moves is a few kilobytes).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line with its newline, or the first [`MAX_LINE_BYTES`] of a longer one.
    pub bytes: Vec<u8>,
    /// Whether the line was longer than [`MAX_LINE_BYTES`] (its rest dropped).
    pub too_long: bool,
}

impl Line {
    /// The error text a protocol answers a line that is too long with.
    pub fn too_long_message() -> String {
        format!("the line is longer than {MAX_LINE_BYTES} bytes")
    }
}

/// Reads one line of at most [`MAX_LINE_BYTES`] kept bytes; `None` at the end of the input.
fn read_line(input: &mut impl BufRead) -> io::Result<Option<Line>> {
    let mut line = Line { bytes: Vec::new(), too_long: false };
    let mut read_any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(read_any.then_some(line));
        }
        read_any = true;
        let (take, ends) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = MAX_LINE_BYTES - line.bytes.len();
        line.bytes.extend_from_slice(&buf[..take.min(room)]);
        line.too_long |= take > room;
        input.consume(take);
        if ends {
            return Ok(Some(line));
        }
    }
}

/// Starts reading `input`: each line ([`Line`]), or the read error that ends it. The channel
/// closes at the end of the input.
pub fn read_lines(mut input: impl BufRead + Send + 'static) -> Receiver<io::Result<Line>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || loop {
        let line = match read_line(&mut input) {
            Ok(None) => return,
            Ok(Some(line)) => Ok(line),
            Err(e) => Err(e),
        };
        let failed = line.is_err();
        if tx.send(line).is_err() || failed {
            return;
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_past_the_limit_are_cut_and_marked_and_the_next_line_is_whole() {
        let mut long = vec![b'x'; MAX_LINE_BYTES + 5];
        long.extend_from_slice(b"\nname\nlast");
        let lines: Vec<Line> = read_lines(Cursor::new(long)).iter().map(Result::unwrap).collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].too_long && lines[0].bytes.len() == MAX_LINE_BYTES);
        assert_eq!(lines[1], Line { bytes: b"name\n".to_vec(), too_long: false });
        assert_eq!(lines[2], Line { bytes: b"last".to_vec(), too_long: false });
        let exact = [vec![b'y'; MAX_LINE_BYTES - 1], b"\n".to_vec()].concat();
        let lines: Vec<Line> = read_lines(Cursor::new(exact)).iter().map(Result::unwrap).collect();
        assert!(lines.len() == 1 && !lines[0].too_long);
    }
}
