//! LEB128 varints, zigzag for signed values, and the folding of region ids.
//!
//! Writers here never check capacity: callers reserve the worst case
//! ([`MAX_VARINT`] per number) first, so a record is written whole or not at
//! all.

/// Longest LEB128 encoding of a `u64`.
pub const MAX_VARINT: usize = 10;

/// Writes `v` at `buf[pos..]` and returns the position after it.
#[inline]
pub(crate) fn put_u64(buf: &mut [u8], mut pos: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        buf[pos] = (v as u8) | 0x80;
        v >>= 7;
        pos += 1;
    }
    buf[pos] = v as u8;
    pos + 1
}

/// Bytes `v` takes as a LEB128 varint.
#[inline]
pub const fn len_u64(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

#[inline]
pub const fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub const fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Region ids of instrumented code are below 2^31, ids of Rust descriptors
/// 2^31 and up (both small counts from their base). Folding the range bit
/// into bit 0 keeps both one or two bytes long instead of five for every
/// descriptor id.
#[inline]
pub const fn fold_region(id: u32) -> u64 {
    if id & 0x8000_0000 == 0 {
        (id as u64) << 1
    } else {
        (((id & 0x7fff_ffff) as u64) << 1) | 1
    }
}

/// Inverse of [`fold_region`]; `None` for values no region id folds to.
#[inline]
pub const fn unfold_region(v: u64) -> Option<u32> {
    if v >> 32 != 0 {
        return None;
    }
    let id = (v >> 1) as u32;
    if v & 1 == 0 {
        Some(id)
    } else {
        Some(id | 0x8000_0000)
    }
}

/// A region field of version 2: `id` as its difference from `previous`
/// (the block's previous region field), wrapping, zigzag-encoded. Ids of
/// one object differ by less than 64 from their neighbours in a call
/// stream, so the field is one byte whatever the object's base.
#[inline(always)]
pub const fn region_delta(id: u32, previous: u32) -> u32 {
    let d = id.wrapping_sub(previous) as i32;
    ((d << 1) ^ (d >> 31)) as u32
}

/// Inverse of [`region_delta`]: the id a field value `v` stands for after
/// `previous`; `None` for values no difference encodes to.
#[inline]
pub const fn region_from_delta(v: u64, previous: u32) -> Option<u32> {
    if v >> 32 != 0 {
        return None;
    }
    let v = v as u32;
    let d = ((v >> 1) as i32) ^ -((v & 1) as i32);
    Some(previous.wrapping_add(d as u32))
}

/// Reads a varint at `data[*pos..]`, advancing `pos`; `None` when the data
/// ends inside it or it is longer than a `u64`.
pub(crate) fn get_u64(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let b = *data.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_every_length() {
        let mut buf = [0u8; MAX_VARINT];
        for v in [
            0,
            1,
            127,
            128,
            16383,
            16384,
            u32::MAX as u64,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let end = put_u64(&mut buf, 0, v);
            assert_eq!(end, len_u64(v), "{v}");
            let mut pos = 0;
            assert_eq!(get_u64(&buf[..end], &mut pos), Some(v));
            assert_eq!(pos, end);
        }
    }

    #[test]
    fn overlong_and_cut_varints_are_refused() {
        let mut pos = 0;
        assert_eq!(get_u64(&[0x80, 0x80], &mut pos), None);
        let eleven = [0xffu8; 11];
        let mut pos = 0;
        assert_eq!(get_u64(&eleven, &mut pos), None);
    }

    #[test]
    fn zigzag_and_region_folding_are_inverse() {
        for v in [0i64, -1, 1, -64, 63, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        for id in [0u32, 5, 0x7fff_ffff, 0x8000_0000, 0x8000_0007, u32::MAX] {
            assert_eq!(unfold_region(fold_region(id)), Some(id));
        }
        assert_eq!(len_u64(fold_region(0x8000_0003)), 1);
        assert_eq!(unfold_region(1 << 40), None);
    }

    #[test]
    fn region_deltas_are_inverse_and_small_between_neighbours() {
        let based = (3u32 << 22) + 17;
        for (id, prev) in [
            (0u32, 0u32),
            (based, 0),
            (based, based),
            (based + 1, based),
            (based, based + 40),
            (0x8000_0005, based),
            (based, 0x8000_0005),
            (u32::MAX, 0),
            (0, u32::MAX),
        ] {
            let v = region_delta(id, prev);
            assert_eq!(region_from_delta(u64::from(v), prev), Some(id));
        }
        assert_eq!(region_delta(based, based), 0);
        assert_eq!(len_u64(u64::from(region_delta(based + 30, based))), 1);
        assert_eq!(len_u64(u64::from(region_delta(based - 30, based))), 1);
        assert_eq!(region_from_delta(1 << 32, 0), None);
    }
}
