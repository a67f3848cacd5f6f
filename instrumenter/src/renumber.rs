//! Instrumenting a tree's C files in parallel and still writing what the
//! sequential run writes, byte for byte.
//!
//! A file's region ids start where the previous file's end, so a file's
//! first id is known only once every earlier file is done. The C front
//! end's output depends on its first id only through the ids it writes:
//! the same regions in the same order, probes at the same places, ids as
//! decimal numbers in the text (C has no line layout that a number's width
//! could change; Fortran has, and stays sequential). So each C file is
//! instrumented ahead with a provisional first id and numbered afterwards,
//! in file order, by rewriting those numbers ([`Provisional::number`]).
//!
//! The provisional ids are ten-digit numbers whose first five digits (the
//! prefix) occur nowhere in what the front end copies into its output (the
//! source, its paths, the IDF path). Numbering replaces every run of
//! exactly ten digits that is a provisional id, then checks that the
//! prefix is gone from the text, the regions and the diagnostics; if it is
//! not (an id written next to another digit, a message naming an id), the
//! caller instruments the file again with its real first id, so the output
//! never depends on this shortcut being applicable.

use regio_idf::Region;

use crate::diag::Diagnostic;
use crate::driver::FileDone;

/// Candidate prefixes: ten-digit ids from `prefix * 10^5` stay below
/// 2^31 (so `--regions` ids keep their invariant while provisional).
const PREFIXES: [u32; 8] = [19073, 17351, 13597, 20483, 11939, 15263, 18749, 12611];

/// Local ids a provisional range holds (the five digits after the prefix).
const SPAN: u32 = 100_000;

/// A C file instrumented with provisional ids.
#[derive(Debug)]
pub(crate) struct Provisional {
    first: u32,
    prefix: String,
    result: Result<FileDone, Vec<Diagnostic>>,
}

/// A provisional first id for a file: none of `copied` (its bytes, the
/// paths its output names) holds the id's five-digit prefix. None when
/// every candidate occurs.
pub(crate) fn first_id_for(copied: &[&[u8]]) -> Option<u32> {
    PREFIXES
        .iter()
        .find(|p| {
            let digits = p.to_string();
            !copied.iter().any(|c| contains(c, digits.as_bytes()))
        })
        .map(|p| p * SPAN)
}

impl Provisional {
    /// `result` of instrumenting a file from provisional first id `first`
    /// (from [`first_id_for`]).
    pub(crate) fn new(first: u32, result: Result<FileDone, Vec<Diagnostic>>) -> Self {
        Provisional {
            first,
            prefix: (first / SPAN).to_string(),
            result,
        }
    }

    /// The result as instrumenting from `first_id` gives it; None when the
    /// ids cannot be told apart safely (the caller instruments the file
    /// again).
    pub(crate) fn number(self, first_id: u32) -> Option<Result<FileDone, Vec<Diagnostic>>> {
        let prefix = self.prefix.as_bytes();
        let in_diags =
            |ds: &[Diagnostic]| ds.iter().any(|d| contains(d.message.as_bytes(), prefix));
        let mut done = match self.result {
            Err(diags) if in_diags(&diags) => return None,
            Err(diags) => return Some(Err(diags)),
            Ok(done) => done,
        };
        let count = u32::try_from(done.regions.len())
            .ok()
            .filter(|&n| n < SPAN)?;
        let from = self.first;
        let local = |id: u32| id.checked_sub(from).filter(|&k| k < count);
        if in_diags(&done.warnings) {
            return None;
        }
        for r in &mut done.regions {
            if mentions(r, prefix) {
                return None;
            }
            r.id = first_id.checked_add(local(r.id)?)?;
            if let Some(p) = r.parent {
                r.parent = Some(first_id.checked_add(local(p)?)?);
            }
        }
        let bytes = renumber_text(&done.bytes, from, count, first_id);
        if contains(&bytes, prefix) {
            return None;
        }
        done.bytes = bytes;
        Some(Ok(done))
    }
}

/// Whether a region's texts (name, unit, aux) hold `prefix`.
fn mentions(r: &Region, prefix: &[u8]) -> bool {
    contains(r.name.as_bytes(), prefix)
        || contains(r.unit.as_bytes(), prefix)
        || r.aux
            .values()
            .any(|v| contains(v.to_string().as_bytes(), prefix))
}

/// `text` with every run of exactly ten ASCII digits whose value is in
/// `from..from + count` replaced by that value moved to start at `to`.
fn renumber_text(text: &[u8], from: u32, count: u32, to: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        if !text[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && text[i].is_ascii_digit() {
            i += 1;
        }
        if i - start != 10 {
            continue;
        }
        let value = text[start..i]
            .iter()
            .fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
        let Some(k) = value
            .checked_sub(u64::from(from))
            .filter(|&k| k < u64::from(count))
        else {
            continue;
        };
        out.extend_from_slice(&text[copied..start]);
        out.extend_from_slice((u64::from(to) + k).to_string().as_bytes());
        copied = i;
    }
    out.extend_from_slice(&text[copied..]);
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_ten_digit_runs_in_the_range_move() {
        let from = 19073 * SPAN;
        let text = format!(
            "a({from}u); b(regio__g{} ); c(1{from}); d({}); e(7);",
            from + 2,
            from + 5
        );
        let got = renumber_text(text.as_bytes(), from, 5, 40);
        assert_eq!(
            String::from_utf8(got).unwrap(),
            format!("a(40u); b(regio__g42 ); c(1{from}); d({}); e(7);", from + 5)
        );
    }

    #[test]
    fn a_prefix_the_file_holds_is_not_chosen() {
        let first = first_id_for(&[b"x = 19073;", b"out/regio.idf.json"]).unwrap();
        assert_eq!(first, 17351 * SPAN);
        let every: Vec<u8> = PREFIXES
            .iter()
            .flat_map(|p| format!("{p} ").into_bytes())
            .collect();
        assert_eq!(first_id_for(&[&every]), None);
    }
}
