//! A rollout's record in a few bytes: where its code sits ([`Place`]) and the key of its
//! report's body, as numbers and the key's 16 bytes, where the JSON form
//! (`{"p":{"s":[1275,1452],"n":1,"l":[8,12],"m":1},"b":"<32 hex digits>"}`, ~80 bytes) was
//! most of a record (issue 42: with every program of a big run distinct, the cache is its
//! rollouts' records). Apart from the cache because it is a byte format with its own rules:
//! a tag byte that JSON never starts with, then LEB128 numbers. A value without the tag (the
//! JSON an earlier sebx wrote, a whole report) is read as JSON.

use crate::grade::report_split::Place;

/// The first byte of a packed reference: never the first byte of JSON text.
const PACKED: u8 = 0x02;

/// Which of the place's optional parts follow.
const SPAN: u8 = 1;
const LINES: u8 = 2;
const REASON: u8 = 4;

/// `place` and `body` packed; none when `body` is not 32 lower-case hexadecimal digits
/// (then the record is written as JSON).
pub(super) fn pack(place: &Place, body: &str) -> Option<Vec<u8>> {
    let key = key_bytes(body)?;
    let mut out = Vec::with_capacity(32);
    out.push(PACKED);
    let flags = if place.span.is_some() { SPAN } else { 0 }
        | if place.reward_block_lines.is_some() {
            LINES
        } else {
            0
        }
        | if place.reward_reason.is_some() {
            REASON
        } else {
            0
        };
    out.push(flags);
    if let Some((a, b)) = place.span {
        put(&mut out, a as u64);
        put(&mut out, b as u64);
    }
    put(&mut out, place.blocks_found as u64);
    if let Some((a, b)) = place.reward_block_lines {
        put(&mut out, a as u64);
        put(&mut out, b as u64);
    }
    put(&mut out, place.reward_blocks_found as u64);
    if let Some(reason) = &place.reward_reason {
        put(&mut out, reason.len() as u64);
        out.extend_from_slice(reason.as_bytes());
    }
    out.extend_from_slice(&key);
    Some(out)
}

/// Whether `stored` is a packed reference (else it is JSON).
pub(super) fn is_packed(stored: &[u8]) -> bool {
    stored.first() == Some(&PACKED)
}

/// The place and body key of a packed reference; none when it is not one, or torn.
pub(super) fn unpack(stored: &[u8]) -> Option<(Place, String)> {
    let (&tag, rest) = stored.split_first()?;
    if tag != PACKED {
        return None;
    }
    let mut r = Reader { bytes: rest };
    let flags = r.byte()?;
    let mut place = Place::default();
    if flags & SPAN != 0 {
        place.span = Some((r.usize()?, r.usize()?));
    }
    place.blocks_found = r.usize()?;
    if flags & LINES != 0 {
        place.reward_block_lines = Some((r.usize()?, r.usize()?));
    }
    place.reward_blocks_found = r.usize()?;
    if flags & REASON != 0 {
        let len = r.usize()?;
        place.reward_reason = Some(String::from_utf8(r.take(len)?.to_vec()).ok()?);
    }
    let key = r.take(16)?;
    if !r.bytes.is_empty() {
        return None;
    }
    Some((place, crate::grade::store::hex(key)))
}

/// The 16 bytes of a body key in lower-case hexadecimal (what `body_key` gives).
fn key_bytes(key: &str) -> Option<[u8; 16]> {
    let digit = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let b = key.as_bytes();
    if b.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (o, pair) in out.iter_mut().zip(b.chunks_exact(2)) {
        *o = (digit(pair[0])? << 4) | digit(pair[1])?;
    }
    Some(out)
}

/// Appends `n` as LEB128.
fn put(out: &mut Vec<u8>, mut n: u64) {
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(b)
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        if len > self.bytes.len() {
            return None;
        }
        let (part, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Some(part)
    }

    fn usize(&mut self) -> Option<usize> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return usize::try_from(n).ok();
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_reference_reads_back_as_written_and_is_small() {
        let key = "0123456789abcdef00ff10e0d0c0b0a0";
        let places = [
            Place::default(),
            Place {
                span: Some((1275, 1452)),
                blocks_found: 1,
                reward_block_lines: Some((8, 12)),
                reward_blocks_found: 1,
                reward_reason: None,
            },
            Place {
                span: Some((0, usize::MAX)),
                blocks_found: 300,
                reward_block_lines: None,
                reward_blocks_found: 0,
                reward_reason: Some("line 3 differs: é".into()),
            },
        ];
        for place in &places {
            let packed = pack(place, key).expect("a hexadecimal key packs");
            assert!(is_packed(&packed));
            assert_eq!(unpack(&packed), Some((place.clone(), key.to_string())));
            // Torn, or with bytes after it: not a reference.
            assert_eq!(unpack(&packed[..packed.len() - 1]), None);
            let mut longer = packed.clone();
            longer.push(0);
            assert_eq!(unpack(&longer), None);
        }
        let typical = pack(&places[1], key).expect("packs");
        assert!(typical.len() <= 26, "{} bytes", typical.len());
        // A key that is not 32 lower-case hexadecimal digits stays JSON.
        assert_eq!(pack(&places[1], "0123456789ABCDEF00FF10E0D0C0B0A0"), None);
        assert_eq!(pack(&places[1], "abc"), None);
        // JSON is never taken for a packed reference.
        assert!(!is_packed(b"{\"p\":{},\"b\":\"x\"}"));
        assert_eq!(unpack(b"{\"p\":{},\"b\":\"x\"}"), None);
    }
}
