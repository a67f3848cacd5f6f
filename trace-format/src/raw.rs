//! Raw region records: a fixed-size form of enter and exit for a writer
//! that must append them in a few instructions (the runtime's probes) and
//! encodes them into a block's compact records later
//! ([`Block::encode_raw`]), before anything else is written to the block
//! or the block is written out. Never written to a file: the bytes on disk
//! are those the compact encoder writes directly.
//!
//! A raw record is [`RAW_REGION_RECORD_LEN`] bytes, little-endian: the
//! clock reading (u64), the region id (u32), then [`raw_code_word`] of its
//! event code (u32). A compact region record is never longer (code, at most
//! ten bytes of delta, at most five of region field: 16), so raw records
//! encode in place, left to right: the output never overtakes the input.

use crate::encode::Block;
use crate::varint::region_delta;

/// Bytes of a raw region record.
pub const RAW_REGION_RECORD_LEN: usize = 16;

/// The last four bytes of a raw record of `code`
/// ([`crate::schema::code::ENTER`] or [`crate::schema::code::EXIT`]): the code with the short form's continuation bit of
/// the first delta byte, so the encoder ORs it into the short word as it
/// stands.
pub const fn raw_code_word(code: u8) -> u32 {
    code as u32 | 0x8000
}

/// The raw record of `code` at `ticks` for `region`.
pub fn raw_region_record(code: u8, ticks: u64, region: u32) -> [u8; RAW_REGION_RECORD_LEN] {
    let mut r = [0u8; RAW_REGION_RECORD_LEN];
    r[..8].copy_from_slice(&ticks.to_le_bytes());
    r[8..12].copy_from_slice(&region.to_le_bytes());
    r[12..].copy_from_slice(&raw_code_word(code).to_le_bytes());
    r
}

/// `buf[from..to]` is not a run of whole raw records after the block's
/// end ([`Block::encode_raw`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not whole raw records after the block's end")]
pub struct NotRaw;

impl Block {
    /// Encodes the raw region records in `buf[from..to]`, in order, as
    /// this block's next records, starting at its end (`self.len()`, at
    /// most `from`): the bytes the probes' direct writing gives (the short
    /// form, four bytes, when the delta is below 2^14 ticks and the region
    /// field below 128; else the long form, which records a clock going
    /// back as no time). In place: the bytes after the block's new end up
    /// to `to` are left undefined. No allocation, lock or system call, so
    /// a signal handler may call it. `NotRaw`, nothing changed, when the
    /// range is not whole raw records after the block's end inside `buf`.
    pub fn encode_raw(&mut self, buf: &mut [u8], from: usize, to: usize) -> Result<(), NotRaw> {
        if self.pos > from
            || from > to
            || to > buf.len()
            || !(to - from).is_multiple_of(RAW_REGION_RECORD_LEN)
        {
            return Err(NotRaw);
        }
        let mut i = from;
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            while to - i >= 4 * RAW_REGION_RECORD_LEN {
                // SAFETY: AVX2 is there; `i..to` lies in `buf` and the
                // block's end is at most `i` (checked above, kept below).
                let (next, out) = unsafe { avx2::encode_short_groups(buf, i, to, self) };
                if next > i {
                    let n = (next - i) / RAW_REGION_RECORD_LEN;
                    let (ticks, region, _) = raw_at(buf, next - RAW_REGION_RECORD_LEN);
                    self.pos = out;
                    self.last = ticks;
                    self.region = region;
                    self.count += n as u32;
                    i = next;
                } else {
                    // A group with a long record: these four one by one.
                    self.encode_raw_one_by_one(buf, i, i + 4 * RAW_REGION_RECORD_LEN);
                    i += 4 * RAW_REGION_RECORD_LEN;
                }
            }
        }
        self.encode_raw_one_by_one(buf, i, to);
        Ok(())
    }

    /// The raw records of `buf[from..to]` (`self.pos <= from`, whole
    /// records inside `buf`: `encode_raw` checked it) as the block's next
    /// records, one at a time, the block's state kept in registers for the
    /// short ones.
    pub(crate) fn encode_raw_one_by_one(&mut self, buf: &mut [u8], from: usize, to: usize) {
        debug_assert!(self.pos <= from && to <= buf.len());
        let (mut pos, mut last, mut previous, mut count) =
            (self.pos, self.last, self.region, self.count);
        let base = buf.as_mut_ptr();
        let mut i = from;
        while i + RAW_REGION_RECORD_LEN <= to {
            // SAFETY: `i + 16 <= to <= buf.len()`: the record is inside
            // `buf` (no bounds check per record: about ten instructions).
            let (ticks, region, word) = unsafe {
                let r = base.add(i);
                (
                    u64::from_le(std::ptr::read_unaligned(r.cast::<u64>())),
                    u32::from_le(std::ptr::read_unaligned(r.add(8).cast::<u32>())),
                    u32::from_le(std::ptr::read_unaligned(r.add(12).cast::<u32>())),
                )
            };
            let field = region_delta(region, previous);
            let d = ticks.wrapping_sub(last);
            if d < 1 << 14 && field < 1 << 7 {
                // `Block::short_record_word`'s word.
                let d = d as u32;
                let w = word | (d + (d & !0x7f)) << 8 | field << 24;
                // SAFETY: `pos <= i` (no record grows), so the four bytes
                // are inside `buf`, at or before the record just read.
                unsafe { std::ptr::write_unaligned(base.add(pos).cast::<u32>(), w.to_le()) };
                pos += 4;
                last = ticks;
                count += 1;
            } else {
                (self.pos, self.last, self.count) = (pos, last, count);
                // Room: the record is at most 16 bytes from `pos <= i`.
                self.put_region_record(buf, word as u8, ticks, field, region);
                (pos, last, count) = (self.pos, self.last, self.count);
            }
            previous = region;
            i += RAW_REGION_RECORD_LEN;
        }
        (self.pos, self.last, self.region, self.count) = (pos, last, previous, count);
    }
}

/// Ticks, region and code word of the raw record at `buf[at..at + 16]`.
#[inline(always)]
fn raw_at(buf: &[u8], at: usize) -> (u64, u32, u32) {
    let r: &[u8; RAW_REGION_RECORD_LEN] = buf[at..at + RAW_REGION_RECORD_LEN]
        .try_into()
        .unwrap_or(&[0; RAW_REGION_RECORD_LEN]);
    let word = |k: usize| u32::from_le_bytes([r[k], r[k + 1], r[k + 2], r[k + 3]]);
    (
        u64::from(word(0)) | u64::from(word(4)) << 32,
        word(8),
        word(12),
    )
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::RAW_REGION_RECORD_LEN;
    use crate::encode::Block;
    use std::arch::x86_64::*;

    /// Encodes groups of four raw records from `buf[i..]` while a whole
    /// group fits before `to` and all four take the short form (the
    /// common case: calls a few thousand ticks apart, neighbouring
    /// regions), into `buf` from `block.len()`. Returns where it stopped
    /// and the new end of the block; the block itself is not changed (the
    /// caller takes the last record's time and region from
    /// `buf[next - 16..next]`, which the output, 12 bytes shorter per
    /// record, has not reached).
    ///
    /// Four records at a time: their ticks and region words side by side
    /// (lanes in the order 0, 2, 1, 3), each minus its predecessor's, the
    /// differences of the regions zigzagged, all four checked at once, the
    /// words put together as `Block::short_record_word` does and stored in
    /// one 16-byte store.
    ///
    /// # Safety
    /// AVX2 must be available; `block.len() <= i`, `to <= buf.len()`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn encode_short_groups(
        buf: &mut [u8],
        mut i: usize,
        to: usize,
        block: &Block,
    ) -> (usize, usize) {
        let base = buf.as_mut_ptr();
        let mut out = block.pos;
        // The predecessor of the first record, in every lane.
        let mut prev_t = _mm256_set1_epi64x(block.last as i64);
        let mut prev_r = _mm256_set1_epi64x(i64::from(block.region));
        let long_delta = _mm256_set1_epi64x(!0x3fff);
        let long_field = _mm256_set1_epi64x(0xffff_ff80);
        let high_bits = _mm256_set1_epi64x(!0x7f);
        let pack = _mm256_setr_epi32(0, 4, 2, 6, 0, 0, 0, 0);
        while to - i >= 4 * RAW_REGION_RECORD_LEN {
            let p = base.add(i);
            let v0 = _mm256_loadu_si256(p.cast()); // t0 r0 | t1 r1
            let v1 = _mm256_loadu_si256(p.add(32).cast()); // t2 r2 | t3 r3
            let t = _mm256_unpacklo_epi64(v0, v1); // t0 t2 | t1 t3
            let r = _mm256_unpackhi_epi64(v0, v1); // r0 r2 | r1 r3
                                                   // Predecessors: t-1 t1 | t0 t2 (lane 0 from the previous group).
            let pt = _mm256_blend_epi32::<0b0000_0011>(
                _mm256_permute4x64_epi64::<0b01_00_10_00>(t),
                prev_t,
            );
            let pr = _mm256_blend_epi32::<0b0000_0011>(
                _mm256_permute4x64_epi64::<0b01_00_10_00>(r),
                prev_r,
            );
            let d = _mm256_sub_epi64(t, pt);
            // The low 32 bits of each region word's difference are the
            // regions' (wrapping); zigzagged as `region_delta` does.
            let g = _mm256_sub_epi64(r, pr);
            let z = _mm256_xor_si256(_mm256_slli_epi32::<1>(g), _mm256_srai_epi32::<31>(g));
            // Any delta of 2^14 or more (a clock going back wraps to a huge
            // one) or field of 128 or more: not a short group.
            // One test of both (two tests become a reduction of each).
            let long = _mm256_or_si256(
                _mm256_and_si256(d, long_delta),
                _mm256_and_si256(z, long_field),
            );
            if _mm256_testz_si256(long, long) == 0 {
                break;
            }
            // code | 0x8000 | (d + (d & !0x7f)) << 8 | field << 24, in the
            // low 32 bits of each lane.
            let dd = _mm256_slli_epi64::<8>(_mm256_add_epi64(d, _mm256_and_si256(d, high_bits)));
            let w = _mm256_or_si256(
                _mm256_or_si256(dd, _mm256_slli_epi32::<24>(z)),
                _mm256_srli_epi64::<32>(r),
            );
            let words = _mm256_permutevar8x32_epi32(w, pack);
            _mm_storeu_si128(base.add(out).cast(), _mm256_castsi256_si128(words));
            out += 16;
            i += 4 * RAW_REGION_RECORD_LEN;
            // t3 and r3 (lane 3) into lane 0 for the next group.
            prev_t = _mm256_permute4x64_epi64::<0b11_11_11_11>(t);
            prev_r = _mm256_permute4x64_epi64::<0b11_11_11_11>(r);
        }
        (i, out)
    }
}
