//! A JSON text writer over a caller-provided buffer, flushed to a file
//! descriptor with write(2): no heap, so it runs in signal handlers.
//!
//! Numbers are right-aligned in fixed widths (JSON allows the padding
//! whitespace), which makes the size of a profile a function of its DRG and
//! never of the values measured.

use libc::c_int;

/// Width of u64 fields: u64::MAX has 20 digits.
pub const W64: usize = 20;
/// Width of u32 fields: u32::MAX has 10 digits.
pub const W32: usize = 10;
/// Width of i32 fields (and of a `null` in their place): "-2147483648".
pub const WI32: usize = 11;

pub struct Out<'a> {
    fd: c_int,
    buf: &'a mut [u8],
    len: usize,
    /// First write error (errno); later writes are dropped.
    pub error: Option<i32>,
}

impl<'a> Out<'a> {
    pub fn new(fd: c_int, buf: &'a mut [u8]) -> Out<'a> {
        debug_assert!(buf.len() >= 64);
        Out {
            fd,
            buf,
            len: 0,
            error: None,
        }
    }

    pub fn flush(&mut self) {
        if self.error.is_none() {
            if let Err(e) = crate::sys::write_all(self.fd, &self.buf[..self.len]) {
                self.error = Some(e);
            }
        }
        self.len = 0;
    }

    #[inline]
    fn byte(&mut self, b: u8) {
        if self.len == self.buf.len() {
            self.flush();
        }
        self.buf[self.len] = b;
        self.len += 1;
    }

    /// Raw bytes (JSON syntax, keys).
    pub fn raw(&mut self, s: &[u8]) {
        for &b in s {
            self.byte(b);
        }
    }

    /// `n` spaces.
    pub fn pad(&mut self, n: usize) {
        for _ in 0..n {
            self.byte(b' ');
        }
    }

    /// `v` right-aligned in `width` characters.
    pub fn uint(&mut self, v: u64, width: usize) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut v = v;
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        let n = digits.len() - i;
        self.pad(width.saturating_sub(n));
        self.raw(&digits[i..]);
    }

    /// `v` right-aligned in `width` characters.
    pub fn int(&mut self, v: i64, width: usize) {
        if v >= 0 {
            return self.uint(v as u64, width);
        }
        let m = v.unsigned_abs();
        let n = 1 + count_digits(m);
        self.pad(width.saturating_sub(n));
        self.byte(b'-');
        self.uint(m, 0);
    }

    /// `null` padded to `width`, for an absent fixed-width number.
    pub fn null(&mut self, width: usize) {
        self.pad(width.saturating_sub(4));
        self.raw(b"null");
    }

    /// A non-negative float as `integer.ffffff`, integer part in `W64`.
    pub fn fixed6(&mut self, v: f64) {
        let v = if v.is_finite() && v > 0.0 { v } else { 0.0 };
        let micro = (v * 1e6).round();
        let micro = if micro >= 1.8e25 { 1.8e25 } else { micro } as u128;
        let int = (micro / 1_000_000).min(u64::MAX as u128) as u64;
        let frac = (micro % 1_000_000) as u64;
        self.uint(int, W64);
        self.byte(b'.');
        let mut digits = [b'0'; 6];
        let mut f = frac;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (f % 10) as u8;
            f /= 10;
        }
        self.raw(&digits);
    }

    /// `true`/`false` padded to the width of `false`.
    pub fn boolean(&mut self, v: bool) {
        if v {
            self.raw(b" true");
        } else {
            self.raw(b"false");
        }
    }

    /// A JSON string from arbitrary bytes: escapes quotes, backslashes and
    /// control characters, and replaces invalid UTF-8 with U+FFFD so the
    /// file always parses.
    pub fn string(&mut self, s: &[u8]) {
        self.byte(b'"');
        let mut rest = s;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    self.escaped(valid);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // SAFETY: from_utf8 vouched for this prefix.
                    self.escaped(unsafe { std::str::from_utf8_unchecked(valid) });
                    self.raw(b"\\ufffd");
                    let skip = e.error_len().unwrap_or(after.len()).max(1);
                    rest = &after[skip.min(after.len())..];
                }
            }
        }
        self.byte(b'"');
    }

    fn escaped(&mut self, s: &str) {
        for &b in s.as_bytes() {
            match b {
                b'"' => self.raw(b"\\\""),
                b'\\' => self.raw(b"\\\\"),
                b'\n' => self.raw(b"\\n"),
                b'\r' => self.raw(b"\\r"),
                b'\t' => self.raw(b"\\t"),
                0..=0x1f | 0x7f => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.raw(b"\\u00");
                    self.byte(HEX[(b >> 4) as usize]);
                    self.byte(HEX[(b & 15) as usize]);
                }
                _ => self.byte(b),
            }
        }
    }
}

fn count_digits(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

/// Builds a NUL-terminated path (or message) in a fixed buffer; reports
/// overflow instead of truncating silently.
pub struct Cat<'a> {
    buf: &'a mut [u8],
    len: usize,
    overflow: bool,
}

impl<'a> Cat<'a> {
    pub fn new(buf: &'a mut [u8]) -> Cat<'a> {
        Cat {
            buf,
            len: 0,
            overflow: false,
        }
    }

    pub fn push(&mut self, s: &[u8]) -> &mut Self {
        for &b in s {
            // Keep one byte for the terminating NUL.
            if self.len + 1 >= self.buf.len() {
                self.overflow = true;
                break;
            }
            self.buf[self.len] = b;
            self.len += 1;
        }
        self
    }

    pub fn num(&mut self, v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut v = v;
        loop {
            i -= 1;
            digits[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.push(&digits[i..])
    }

    /// The text with its NUL, or None if it did not fit.
    pub fn finish(self) -> Option<&'a mut [u8]> {
        if self.overflow || self.len >= self.buf.len() {
            return None;
        }
        self.buf[self.len] = 0;
        Some(&mut self.buf[..=self.len])
    }
}

/// Writes one diagnostic line to stderr without allocating.
pub fn warn(parts: &[&[u8]], errno: Option<i32>) {
    let mut buf = [0u8; 512];
    let mut c = Cat::new(&mut buf);
    c.push(b"regio: ");
    for p in parts {
        c.push(p);
    }
    if let Some(e) = errno {
        c.push(b" (errno ").num(e as u64).push(b")");
    }
    c.push(b"\n");
    let len = c.len;
    let _ = crate::sys::write_all(2, &buf[..len]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders into a pipe-less buffer: a large buffer never flushes.
    fn render(f: impl FnOnce(&mut Out)) -> String {
        let mut buf = vec![0u8; 4096];
        let mut o = Out::new(-1, &mut buf);
        f(&mut o);
        let n = o.len;
        assert!(o.error.is_none());
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn numbers_have_fixed_widths() {
        assert_eq!(render(|o| o.uint(0, W64)).len(), W64);
        assert_eq!(render(|o| o.uint(u64::MAX, W64)), u64::MAX.to_string());
        assert_eq!(render(|o| o.uint(42, 5)), "   42");
        assert_eq!(render(|o| o.int(-7, WI32)), "         -7");
        assert_eq!(render(|o| o.int(i32::MIN as i64, WI32)), "-2147483648");
        assert_eq!(render(|o| o.null(WI32)), "       null");
        assert_eq!(render(|o| o.boolean(true)).len(), 5);
        let a = render(|o| o.fixed6(2.5e9));
        let b = render(|o| o.fixed6(1.0));
        assert_eq!(a.len(), b.len());
        assert_eq!(a.trim(), "2500000000.000000");
        assert_eq!(b.trim(), "1.000000");
        assert_eq!(render(|o| o.fixed6(0.1234567)).trim(), "0.123457");
    }

    #[test]
    fn strings_are_escaped_and_valid_json() {
        let s = render(|o| o.string(b"a \"q\" \\ \n\t\x01 \xff\xfe end \xe2\x82"));
        assert_eq!(
            s,
            "\"a \\\"q\\\" \\\\ \\n\\t\\u0001 \\ufffd\\ufffd end \\ufffd\""
        );
        let parsed: String = regio_idf_json_string(&s);
        assert_eq!(parsed, "a \"q\" \\ \n\t\u{1} \u{fffd}\u{fffd} end \u{fffd}");
        assert_eq!(render(|o| o.string("é€".as_bytes())), "\"é€\"");
    }

    /// Parses a JSON string literal through the profile reader's own JSON
    /// stack (a profile with this command line).
    fn regio_idf_json_string(lit: &str) -> String {
        let text = format!(
            r#"{{"format":"regio-profile","version":1,"mode":"profile","complete":true,
            "reason":"exit","signal":null,"pid":1,"rank":0,"size":1,"host":"h",
            "command":[{lit}],"start_unix_ns":0,"duration_ns":0,
            "clock":{{"source":"tsc","ticks_per_second":1.0}},"idf":null,"threads":[]}}"#
        );
        let p = regio_idf::rundir::Profile::from_json("t", &text).unwrap();
        p.command[0].clone()
    }

    #[test]
    fn small_buffers_flush_through_the_descriptor() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("o");
        let mut cpath = path.to_str().unwrap().as_bytes().to_vec();
        cpath.push(0);
        let fd = crate::sys::open_write(&cpath).unwrap();
        let mut buf = [0u8; 64];
        let mut o = Out::new(fd, &mut buf);
        for i in 0..100 {
            o.uint(i, W32);
        }
        o.flush();
        assert!(o.error.is_none());
        crate::sys::close(fd).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.len(), 100 * W32);
        assert_eq!(text[990..].trim(), "99");
    }

    #[test]
    fn cat_refuses_to_truncate() {
        let mut buf = [0u8; 8];
        let mut c = Cat::new(&mut buf);
        c.push(b"abc").num(42);
        assert_eq!(c.finish().map(|s| s.to_vec()), Some(b"abc42\0".to_vec()));
        let mut c = Cat::new(&mut buf);
        c.push(b"abcdefgh");
        assert!(c.finish().is_none());
    }
}
