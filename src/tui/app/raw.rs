//! The Response pane's raw view (`D`): the selected rollout's line as stored, every key in
//! the order written (the whole prompt, `gts`, `score`, `step` and what sebx does not read:
//! `acc`, `pred`, `request_id`, …). Lines are not kept after loading; the shown row's line is
//! read again from its file on a worker (the demo's from the text built into the binary),
//! and only that one is held.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::model::raw_line::RawLine;

use super::super::action::Action;
use super::super::jobs::JobRequest;
use super::super::load::{Source, SourceData};
use super::super::state::Pane;
use super::App;

/// The raw view's state: the texts built into the binary, by the path that labels them,
/// and the one line held.
#[derive(Debug, Default)]
pub struct RawLines {
    embedded: HashMap<PathBuf, &'static str>,
    /// The row whose line was asked for last, and its line once read.
    requested: Option<usize>,
    held: Option<(usize, Result<Arc<RawLine>, String>)>,
}

impl App {
    /// Notes where the loaded sources' lines can be read again (the labelling's sidecars
    /// are placed by them too): call before loading them.
    pub fn register_sources(&mut self, sources: &[Source]) {
        self.labelling.register_sources(sources);
        self.caches.look_up_while_loading = !sources
            .iter()
            .any(|s| s.kind == crate::model::files::FileKind::Reports);
        for s in sources {
            match &s.data {
                SourceData::Embedded { label, text } => {
                    self.raw_lines.embedded.insert(label.clone(), text);
                }
                SourceData::EmbeddedDump { steps, .. } => {
                    for (_, label, text) in steps {
                        self.raw_lines.embedded.insert(label.clone(), text);
                    }
                }
                SourceData::File(_) | SourceData::Dump { .. } | SourceData::Folder { .. } => {}
            }
        }
    }

    /// `D`: the Response pane shows the line as stored, or the response again.
    pub(super) fn toggle_raw_line(&mut self) -> bool {
        self.detail.raw_line = !self.detail.raw_line;
        self.detail.pane = Pane::Response;
        self.detail.scroll = 0;
        self.detail.hscroll = 0;
        let key = self
            .keymap
            .keys_for(Action::RawLine)
            .first()
            .map_or_else(|| "raw_line".to_string(), |k| k.to_string());
        self.message = Some(if self.detail.raw_line {
            format!("Response: the line as stored ({key} again: the response)")
        } else {
            "Response: the response".to_string()
        });
        self.request_raw_line();
        true
    }

    /// Asks for the selected row's stored line when the raw view shows it and it is not
    /// held or asked for already.
    pub(super) fn request_raw_line(&mut self) {
        if !self.detail.raw_line {
            return;
        }
        let Some(row) = self.list.selected else {
            return;
        };
        let raw = &self.raw_lines;
        if raw.requested == Some(row) {
            return;
        }
        let Some(entry) = self.corpus.entries.get(row) else {
            return;
        };
        let source: Arc<Path> = entry.rollout.source.clone();
        let embedded = raw.embedded.get(source.as_ref()).copied();
        self.outbox.push(JobRequest::RawLine {
            row,
            source,
            line: entry.rollout.line,
            embedded,
        });
        self.raw_lines.requested = Some(row);
    }

    /// A stored line read again: held when it is the one asked for last.
    pub(super) fn on_raw_line(&mut self, row: usize, result: Result<Arc<RawLine>, String>) -> bool {
        if self.raw_lines.requested != Some(row) {
            return false;
        }
        self.raw_lines.held = Some((row, result));
        self.list.selected == Some(row)
    }

    /// Drops the stored lines read of `rows` (their lines were read again: a rewritten file).
    pub(super) fn forget_raw_lines(&mut self, rows: &std::collections::HashSet<usize>) {
        let raw = &mut self.raw_lines;
        if raw.requested.is_some_and(|r| rows.contains(&r)) {
            raw.requested = None;
        }
        if raw.held.as_ref().is_some_and(|(r, _)| rows.contains(r)) {
            raw.held = None;
        }
    }

    /// The selected row's stored line, once read (`Err`: why it could not be).
    pub fn raw_line(&self) -> Option<&Result<Arc<RawLine>, String>> {
        let row = self.list.selected?;
        match &self.raw_lines.held {
            Some((r, result)) if *r == row => Some(result),
            _ => None,
        }
    }
}
