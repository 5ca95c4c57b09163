//! Values kept compressed: report bodies and program runs are JSON of a few kilobytes
//! (stdout, every case's expected and actual value), which deflate shrinks several times.
//! A packed value is a tag byte and the raw deflate stream; a value without the tag is read
//! as it is (JSON never starts with the tag, and a value the encoder failed on is kept
//! raw). A store of the first layout is rebuilt on opening, not read. Pure Rust (`flate2` on `miniz_oxide`), the fastest level: a body is packed as
//! its grade is filed, on the grading path.

use std::borrow::Cow;
use std::io::{Read, Write};

/// The first byte of a packed value: never the first byte of JSON text.
const DEFLATE: u8 = 0x01;

/// `value` packed (tag byte, then raw deflate at the fastest level).
pub fn pack(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() / 3 + 16);
    out.push(DEFLATE);
    let mut encoder = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    // Writing into a Vec cannot fail; were it to, the value is kept as it is (read back
    // as an unpacked one).
    if encoder.write_all(value).is_err() {
        return value.to_vec();
    }
    encoder.finish().unwrap_or_else(|_| value.to_vec())
}

/// What [`pack`] packed, or `stored` itself when it is not packed (JSON, or a value kept raw);
/// none when a packed value does not inflate (a torn record: a miss).
pub fn unpack(stored: &[u8]) -> Option<Cow<'_, [u8]>> {
    match stored.split_first() {
        Some((&DEFLATE, rest)) => {
            let mut out = Vec::with_capacity(rest.len() * 4);
            flate2::read::DeflateDecoder::new(rest)
                .read_to_end(&mut out)
                .ok()?;
            Some(Cow::Owned(out))
        }
        _ => Some(Cow::Borrowed(stored)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_values_round_trip_and_plain_json_reads_as_it_is() {
        let json = serde_json::json!({
            "stdout": "[1, 2, 3]\n".repeat(200),
            "cases": (0..50).map(|i| serde_json::json!({"expected": i, "actual": i + 1}))
                .collect::<Vec<_>>(),
        })
        .to_string()
        .into_bytes();
        let packed = pack(&json);
        assert_eq!(packed[0], DEFLATE);
        assert!(
            packed.len() * 4 < json.len(),
            "{} of {}",
            packed.len(),
            json.len()
        );
        assert_eq!(unpack(&packed).as_deref(), Some(&json[..]));
        // A value not packed (JSON) is read unchanged, and so is nothing at all.
        assert!(matches!(unpack(&json), Some(Cow::Borrowed(b)) if b == &json[..]));
        assert_eq!(unpack(b"").as_deref(), Some(&b""[..]));
        // A torn packed value is a miss, not garbage.
        assert_eq!(unpack(&packed[..packed.len() / 2]), None);
        assert_eq!(unpack(&pack(b"")).as_deref(), Some(&b""[..]));
    }
}
