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

/// Draws `page` and writes it to `path`.
pub(super) fn export(path: &std::path::Path, shown: PathBuf, page: &PageMaker) -> JobEvent {
    let text = (page.0)();
    let result = std::fs::write(path, text).map_err(|e| e.to_string());
    JobEvent::Exported { shown, result }
}
