//! TRL's completion logs: `GRPOTrainer.log` (`trl/trainer/grpo_trainer.py`, TRL 0.28 and
//! later, with `log_completions=True`) writes, at each logging step, a pandas DataFrame of
//! the last generation batch with `to_parquet` (pyarrow, snappy) to
//! `<output_dir>/completions/completions_{global_step:05d}.parquet`: columns `step` (int),
//! `prompt` and `completion` (text decoded with `skip_special_tokens=True`, the prompt
//! through the chat template), one float column per reward function (named after the
//! function; NaN where it returned `None`, which pyarrow's pandas conversion stores as a
//! null), the columns reward functions logged with
//! `log_extra`, and `advantage`. A file is one table, not lines: it is read whole, each row a
//! sample whose "line" is its row number, and it is complete only once its footer is
//! written (`PAR1` at both ends).

use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;

use super::line::Sample;

/// The 4 bytes a parquet file starts and ends with.
const MAGIC: &[u8; 4] = b"PAR1";

/// The reason given for a parquet file whose footer is not written yet.
pub const HALF_WRITTEN_TABLE: &str = "half-written parquet file (no footer yet): being written, or the writer stopped while writing it; it is read once it is complete";

/// Whether a step file is a table (parquet) rather than lines: by its name, or its first bytes.
pub fn is_table(path: &Path, bytes: &[u8]) -> bool {
    path.extension().is_some_and(|e| e == "parquet") || bytes.starts_with(MAGIC)
}

/// Whether a parquet file's writer has finished it: the footer (its length and the magic)
/// closes it. pyarrow writes the header, then the row groups, then the footer on close.
pub fn is_complete(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 12 || !bytes.starts_with(MAGIC) || !bytes.ends_with(MAGIC) {
        return false;
    }
    let mut len = [0u8; 4];
    len.copy_from_slice(&bytes[n - 8..n - 4]);
    (u32::from_le_bytes(len) as usize) <= n - 12
}

/// Why a table gave no samples.
#[derive(Debug, Clone, PartialEq)]
pub enum TableError {
    /// No footer yet: being written.
    HalfWritten,
    /// Not a parquet file sebx can read (corrupt, or another codec than snappy).
    Unreadable(String),
}

/// The columns read into a sample's fields; every other column is an extra (the rewards
/// too: each function's value shows).
const READ: [&str; 3] = ["step", "prompt", "completion"];
/// Not a reward function's column although it is a float.
const ADVANTAGE: &str = "advantage";

/// The samples of a TRL completions file, one per row, or why the file gave none. A row's
/// score is the sum of its reward columns (the float columns but `advantage`) that are
/// neither null nor NaN, as TRL sums them (`nansum`, default weights of 1); unknown when
/// none is.
pub fn read_table(bytes: &[u8]) -> Result<Vec<Result<Sample, String>>, TableError> {
    if !is_complete(bytes) {
        return Err(TableError::HalfWritten);
    }
    let unreadable = |e: parquet::errors::ParquetError| TableError::Unreadable(e.to_string());
    let reader =
        SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes)).map_err(unreadable)?;
    let rewards = reward_columns(&reader);
    let rows = reader.get_row_iter(None).map_err(unreadable)?;
    let mut out = Vec::new();
    for row in rows {
        out.push(match row {
            Ok(row) => sample_of_row(
                row.get_column_iter().map(|(k, v)| (k.as_str(), v)),
                &rewards,
            ),
            Err(e) => Err(format!("unreadable row: {e}")),
        });
    }
    Ok(out)
}

/// The reward functions' columns: the float columns but `advantage` (from the schema, so
/// that a row whose reward is null still has it). A float column a reward function logged
/// with `log_extra` cannot be told from them, and counts as one.
fn reward_columns(reader: &SerializedFileReader<bytes::Bytes>) -> Vec<String> {
    use parquet::basic::Type;
    let schema = reader.metadata().file_metadata().schema_descr();
    schema
        .root_schema()
        .get_fields()
        .iter()
        .filter(|t| {
            t.is_primitive()
                && matches!(t.get_physical_type(), Type::DOUBLE | Type::FLOAT)
                && !READ.contains(&t.name())
                && t.name() != ADVANTAGE
        })
        .map(|t| t.name().to_string())
        .collect()
}

/// One row (its columns in file order) as a sample; `reward_columns` name the rewards.
fn sample_of_row<'a>(
    columns: impl Iterator<Item = (&'a str, &'a Field)>,
    reward_columns: &[String],
) -> Result<Sample, String> {
    let mut prompt = None;
    let mut completion = None;
    let mut step = None;
    let mut rewards: Vec<f64> = Vec::new();
    let mut extras = Vec::new();
    for (name, field) in columns {
        match name {
            "prompt" => prompt = Some(value_of(field)),
            "completion" => completion = Some(value_of(field)),
            "step" => step = integer(field),
            _ if reward_columns.iter().any(|r| r == name) => {
                // pandas stores TRL's NaN (a function that returned None) as a null.
                let r = float(field).unwrap_or(f64::NAN);
                rewards.push(r);
                extras.push((name.to_string(), text_of(&value_of(&Field::Double(r)))));
            }
            _ => extras.push((name.to_string(), text_of(&value_of(field)))),
        }
    }
    let input = super::formats::chat_text(prompt, "prompt")?;
    let output = super::formats::chat_text(completion, "completion")?;
    let known: Vec<f64> = rewards.into_iter().filter(|r| !r.is_nan()).collect();
    let score = (!known.is_empty()).then(|| known.iter().sum());
    // Sorted, as a JSON line's extras are.
    extras.sort();
    Ok(Sample {
        input: input.into(),
        output,
        gts: None,
        score,
        step,
        uid: None,
        extras,
    })
}

/// A float column's value (a reward function's, NaN included); `None` for any other type.
fn float(f: &Field) -> Option<f64> {
    match f {
        Field::Double(x) => Some(*x),
        Field::Float(x) => Some(f64::from(*x)),
        Field::Float16(x) => Some(f64::from(*x)),
        _ => None,
    }
}

fn integer(f: &Field) -> Option<u32> {
    let n = match f {
        Field::Long(n) => *n,
        Field::Int(n) => i64::from(*n),
        Field::Short(n) => i64::from(*n),
        Field::Str(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    u32::try_from(n).ok()
}

/// A cell as JSON: a float that is not finite as the text `json.dumps` writes for it
/// (`NaN`, `Infinity`), as a JSON line's bare `NaN` is read; a list or struct (a chat
/// prompt) as an array or object.
pub fn value_of(f: &Field) -> Value {
    let number = |x: f64| match serde_json::Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x.is_nan() => Value::String("NaN".to_string()),
        None if x > 0.0 => Value::String("Infinity".to_string()),
        None => Value::String("-Infinity".to_string()),
    };
    match f {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Byte(n) => Value::from(*n),
        Field::Short(n) => Value::from(*n),
        Field::Int(n) => Value::from(*n),
        Field::Long(n) => Value::from(*n),
        Field::UByte(n) => Value::from(*n),
        Field::UShort(n) => Value::from(*n),
        Field::UInt(n) => Value::from(*n),
        Field::ULong(n) => Value::from(*n),
        Field::Float16(x) => number(f64::from(*x)),
        Field::Float(x) => number(f64::from(*x)),
        Field::Double(x) => number(*x),
        Field::Str(s) => Value::String(s.clone()),
        Field::Bytes(b) => Value::String(String::from_utf8_lossy(b.data()).into_owned()),
        Field::Group(row) => Value::Object(
            row.get_column_iter()
                .map(|(k, v)| (k.clone(), value_of(v)))
                .collect(),
        ),
        Field::ListInternal(list) => Value::Array(list.elements().iter().map(value_of).collect()),
        Field::MapInternal(map) => Value::Object(
            map.entries()
                .iter()
                .map(|(k, v)| (text_of(&value_of(k)), value_of(v)))
                .collect(),
        ),
        other => Value::String(other.to_string()),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Row `row` (1-based) of a parquet file, its columns in file order (the raw view).
pub fn read_row(bytes: &[u8], row: usize) -> Result<Option<Vec<(String, Value)>>, TableError> {
    if !is_complete(bytes) {
        return Err(TableError::HalfWritten);
    }
    let unreadable = |e: parquet::errors::ParquetError| TableError::Unreadable(e.to_string());
    let reader =
        SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes)).map_err(unreadable)?;
    let Some(skip) = row.checked_sub(1) else {
        return Ok(None);
    };
    match reader.get_row_iter(None).map_err(unreadable)?.nth(skip) {
        None => Ok(None),
        Some(Err(e)) => Err(unreadable(e)),
        Some(Ok(r)) => Ok(Some(
            r.get_column_iter()
                .map(|(k, v)| (k.clone(), value_of(v)))
                .collect(),
        )),
    }
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            TableError::HalfWritten => f.write_str(HALF_WRITTEN_TABLE),
            TableError::Unreadable(e) => write!(f, "not a parquet file sebx can read: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[(&str, Field)]) -> Sample {
        let rewards = ["accuracy".to_string(), "format".to_string()];
        sample_of_row(cells.iter().map(|(k, v)| (*k, v)), &rewards).expect("a sample")
    }

    #[test]
    fn a_rows_score_sums_its_known_rewards_and_is_unknown_when_none_is() {
        let text = |s: &str| Field::Str(s.to_string());
        let base = |acc: Field, fmt: Field| {
            row(&[
                ("step", Field::Long(7)),
                ("prompt", text("user\nP\nassistant\n")),
                ("completion", text("c")),
                ("accuracy", acc),
                ("format", fmt),
                ("advantage", Field::Double(0.5)),
            ])
        };
        let s = base(Field::Double(1.0), Field::Double(0.25));
        assert_eq!((s.score, s.step), (Some(1.25), Some(7)));
        assert_eq!(&*s.input, "user\nP\nassistant\n");
        // A null (pandas' NaN) and a NaN are both unknown, never 0, and cost no row.
        assert_eq!(base(Field::Double(1.0), Field::Null).score, Some(1.0));
        assert_eq!(
            base(Field::Double(f64::NAN), Field::Double(0.0)).score,
            Some(0.0)
        );
        let none = base(Field::Null, Field::Double(f64::NAN));
        assert_eq!(none.score, None);
        let extras: Vec<(&str, &str)> = none
            .extras
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            extras,
            [("accuracy", "NaN"), ("advantage", "0.5"), ("format", "NaN")]
        );
    }

    #[test]
    fn a_file_without_its_footer_is_half_written() {
        let whole: &[u8] =
            include_bytes!("../../../tests/fixtures/trl/run/completions/completions_00001.parquet");
        assert_eq!(read_table(whole).map(|r| r.len()), Ok(5));
        for n in [0, 4, 12, whole.len() / 2, whole.len() - 1] {
            assert_eq!(read_table(&whole[..n]), Err(TableError::HalfWritten), "{n}");
        }
    }
}
