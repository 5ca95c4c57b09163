//! The jobs that touch one file: a row's stored line read again (the Response pane's raw
//! view) and an export written.

use std::path::PathBuf;
use std::sync::Arc;

use crate::model::raw_line::{RawLine, line_in, parse_raw_line, read_line};

use super::JobEvent;

/// A page drawn by code above the jobs (an export draws with the explorer's widgets, which
/// `jobs` may not name): the worker only calls it, off the UI thread.
#[derive(Clone)]
pub struct PageMaker(pub Arc<dyn Fn() -> String + Send + Sync>);

impl std::fmt::Debug for PageMaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PageMaker")
    }
}

/// Line `line` of `source` (of `embedded` when the text is built in), parsed into its keys.
pub(super) fn read_raw_line(
    source: &std::path::Path,
    line: usize,
    embedded: Option<&'static str>,
) -> Result<RawLine, String> {
    if embedded.is_none() && crate::model::verl::trl::is_table(source, b"") {
        return read_raw_row(source, line);
    }
    let bytes = match embedded {
        Some(text) => line_in(text, line).map(|l| l.as_bytes().to_vec()),
        None => read_line(source, line).map_err(|e| format!("{}: {e}", source.display()))?,
    };
    let bytes = bytes.ok_or_else(|| {
        format!(
            "{} has no line {line} now (it changed since it was loaded)",
            source.display()
        )
    })?;
    parse_raw_line(&bytes)
}

/// Row `row` of a table step file (TRL's parquet: a rollout's line is its row), its columns
/// in file order; its size is that of the row written as one JSON line.
fn read_raw_row(source: &std::path::Path, row: usize) -> Result<RawLine, String> {
    let bytes = std::fs::read(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let fields = crate::model::verl::trl::read_row(&bytes, row)
        .map_err(|e| format!("{}: {e}", source.display()))?
        .ok_or_else(|| {
            format!(
                "{} has no row {row} now (it changed since it was loaded)",
                source.display()
            )
        })?;
    let size = serde_json::Value::Object(fields.iter().cloned().collect())
        .to_string()
        .len();
    Ok(RawLine {
        fields,
        bytes: size,
    })
}

/// Draws `page` and writes it to `path`.
pub(super) fn export(path: &std::path::Path, shown: PathBuf, page: &PageMaker) -> JobEvent {
    let text = (page.0)();
    let result = std::fs::write(path, text).map_err(|e| e.to_string());
    JobEvent::Exported { shown, result }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_rows_raw_view_is_its_columns_in_order_as_stored() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/trl/nan/completions/completions_00005.parquet");
        let raw = read_raw_line(&path, 2, None).expect("row 2");
        let keys: Vec<&str> = raw.fields.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "step",
                "prompt",
                "completion",
                "accuracy_reward",
                "format_reward",
                "advantage"
            ]
        );
        assert_eq!(raw.fields[0].1, serde_json::json!(5));
        // pandas writes a NaN reward as a parquet null.
        assert_eq!(raw.fields[3].1, serde_json::Value::Null);
        assert_eq!(raw.fields[5].1, serde_json::json!(0.0));
        assert!(read_raw_line(&path, 5, None).is_err(), "4 rows");
    }
}
