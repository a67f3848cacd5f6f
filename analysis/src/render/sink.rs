//! Where a renderer's text goes: collected whole (`render`, tests), or
//! handed to a writer in pieces as it is made (`render_to`, the CLI). A DRG
//! of a million nodes is hundreds of megabytes of HTML or CSV and gigabytes
//! of JSON; holding it all before writing would double the report's peak
//! memory.

use std::fmt;
use std::io::{self, Write};

/// Text made so far is handed on once it passes this size.
const PIECE: usize = 1 << 16;

pub(super) struct Sink<'w> {
    buf: String,
    to: Option<&'w mut dyn Write>,
    /// The first write error; later output is dropped, and [`Sink::finish`]
    /// returns it.
    error: Option<io::Error>,
}

impl Sink<'static> {
    /// Keeps everything; [`Sink::finish`] returns it.
    pub(super) fn collect() -> Self {
        Sink {
            buf: String::new(),
            to: None,
            error: None,
        }
    }
}

impl<'w> Sink<'w> {
    /// Hands the text to `to` at every [`Sink::piece`] past [`PIECE`].
    pub(super) fn stream(to: &'w mut dyn Write) -> Self {
        Sink {
            buf: String::with_capacity(2 * PIECE),
            to: Some(to),
            error: None,
        }
    }

    pub(super) fn push_str(&mut self, s: &str) {
        self.buf.push_str(s);
    }

    pub(super) fn push(&mut self, c: char) {
        self.buf.push(c);
    }

    /// `n` blanks.
    pub(super) fn blanks(&mut self, n: usize) {
        self.buf.extend(std::iter::repeat_n(' ', n));
    }

    /// A point where the text may be handed on (renderers call it after
    /// each node). Collecting, it does nothing.
    pub(super) fn piece(&mut self) {
        if self.buf.len() < PIECE {
            return;
        }
        if let Some(to) = self.to.as_mut() {
            if self.error.is_none() {
                if let Err(e) = to.write_all(self.buf.as_bytes()) {
                    self.error = Some(e);
                }
            }
            self.buf.clear();
        }
    }

    /// A write failed (a closed pipe, a full disk): renderers may stop
    /// making text nobody will read.
    pub(super) fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Collecting: the whole text. Streaming: writes what is left and
    /// returns an empty string, or the first write error.
    pub(super) fn finish(mut self) -> io::Result<String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        match self.to.take() {
            Some(to) => {
                to.write_all(self.buf.as_bytes())?;
                Ok(String::new())
            }
            None => Ok(self.buf),
        }
    }
}

impl fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.buf.push_str(s);
        Ok(())
    }
}

/// Lets byte writers (the `csv` crate) write into a sink; every write is a
/// point where the text may be handed on. They write UTF-8 text only;
/// anything else is an error rather than mangled output.
impl Write for Sink<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(e) = &self.error {
            return Err(io::Error::new(e.kind(), "an earlier write failed"));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        self.buf.push_str(text);
        self.piece();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streaming_hands_on_pieces_and_keeps_all_text_in_order() {
        let mut to = Vec::new();
        let mut sink = Sink::stream(&mut to);
        for i in 0..20_000 {
            sink.push_str(&format!("line {i}\n"));
            sink.piece();
        }
        assert_eq!(sink.finish().ok(), Some(String::new()));
        let expected: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        assert_eq!(String::from_utf8(to).ok(), Some(expected));
    }

    #[test]
    fn a_write_error_is_returned_once_at_the_end() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut broken = Broken;
        let mut sink = Sink::stream(&mut broken);
        sink.push_str(&"x".repeat(PIECE + 1));
        sink.piece();
        sink.push_str("more");
        let err = sink.finish().err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("disk full"));
    }
}
