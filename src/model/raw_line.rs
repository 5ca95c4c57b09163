//! A rollout's line as it is stored, read again from its file when asked for (the
//! explorer's raw view): every key of the line in the order written, with what sebx does
//! not read itself (a verl dump's `acc`, `pred`, `request_id`, the whole prompt). Lines are
//! not kept after loading, so a dump of a gigabyte costs nothing until one is looked at;
//! the file is read again up to that line (a rollout records its file and line number).

use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::rollout::{json_kind, line_text};

/// The keys of one stored line, in the order written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawLine {
    pub fields: Vec<(String, Value)>,
    /// The line's length in bytes.
    pub bytes: usize,
}

/// Line `line` (1-based, blank lines counted, as [`super::Rollout::line`]) of `text`.
pub fn line_in(text: &str, line: usize) -> Option<&str> {
    let raw = text.split('\n').nth(line.checked_sub(1)?)?;
    Some(raw.strip_suffix('\r').unwrap_or(raw))
}

/// Line `line` of the file at `path`, read through to it without keeping the lines before
/// (`Ok(None)`: the file is shorter).
pub fn read_line(path: &Path, line: usize) -> std::io::Result<Option<Vec<u8>>> {
    let Some(before) = line.checked_sub(1) else {
        return Ok(None);
    };
    let mut reader = BufReader::with_capacity(1 << 20, std::fs::File::open(path)?);
    for _ in 0..before {
        if reader.skip_until(b'\n')? == 0 {
            return Ok(None);
        }
    }
    let mut out = Vec::new();
    if reader.read_until(b'\n', &mut out)? == 0 {
        return Ok(None);
    }
    if out.ends_with(b"\n") {
        out.pop();
    }
    if out.ends_with(b"\r") {
        out.pop();
    }
    Ok(Some(out))
}

/// The keys of a stored line in the order written (a JSON object), or why not.
pub fn parse_raw_line(raw: &[u8]) -> Result<RawLine, String> {
    let text = line_text(raw)?;
    // `json.dumps`'s bare `NaN` and `±Infinity` are shown as written (as strings).
    let text = &*super::python_json::finite_json(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = match de.deserialize_any(Ordered) {
        Ok(fields) => fields,
        Err(e) => {
            // Say what the line is when it is JSON but not an object.
            return Err(match serde_json::from_str::<Value>(text) {
                Ok(v) => format!("expected a JSON object, found {}", json_kind(&v)),
                Err(_) => format!("not valid JSON: {e}"),
            });
        }
    };
    Ok(RawLine {
        fields,
        bytes: raw.len(),
    })
}

/// Reads a JSON object's entries in order (`serde_json`'s map sorts its keys).
struct Ordered;

impl<'de> Visitor<'de> for Ordered {
    type Value = Vec<(String, Value)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            out.push((k, v));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_with_bare_nan_shows_its_values_as_written() {
        let raw = parse_raw_line(br#"{"score": NaN, "acc": -Infinity, "s": "NaN"}"#)
            .expect("read, not `not valid JSON`");
        let values: Vec<&str> = raw.fields.iter().filter_map(|(_, v)| v.as_str()).collect();
        assert_eq!(values, ["NaN", "-Infinity", "NaN"]);
    }

    #[test]
    fn reads_the_nth_line_and_keeps_key_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("1.jsonl");
        std::fs::write(&path, "{\"b\": 1}\n\n{\"z\": \"x\\ny\", \"a\": [1]}\r\n").expect("write");
        let third = read_line(&path, 3).expect("read").expect("line 3");
        let raw = parse_raw_line(&third).expect("object");
        let keys: Vec<&str> = raw.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a"]);
        assert_eq!(raw.fields[0].1, Value::String("x\ny".into()));
        assert_eq!(read_line(&path, 2).expect("read"), Some(Vec::new()));
        assert_eq!(read_line(&path, 4).expect("read"), None);
        assert_eq!(read_line(&path, 0).expect("read"), None);
        assert_eq!(line_in("a\nb\r\nc", 2), Some("b"));
        assert_eq!(
            parse_raw_line(b"[1]"),
            Err("expected a JSON object, found a list".to_string())
        );
    }
}
