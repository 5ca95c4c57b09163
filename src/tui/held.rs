//! What the detail pane holds of the workers' answers for the rows looked at: full
//! analyses, highlighted texts, graph drawings (the most recently looked at are kept) and
//! the Response pane's raw line. Apart from the pane (`panes::detail`) so the plain state
//! types can hold it without depending on the panes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::Analysis;
use crate::model::bounded::Bounded;
use crate::model::raw_line::RawLine;

use super::entry::Entry;
use super::graph_view::GraphCache;
use super::highlight::Highlighted;
use super::jobs::{HighlightKey, JobRequest};

/// Most highlighted texts (and full analyses) kept; the least recently looked at go first.
const DETAIL_CACHE: usize = 256;

/// What the workers computed for the rows the user looked at (the most recently looked at
/// are kept), and what was asked for.
pub struct Held {
    pub highlights: Bounded<HighlightKey, Arc<Highlighted>>,
    /// Asked for and not dropped since (in flight, or held in `highlights`).
    pub highlight_requested: HashSet<HighlightKey>,
    /// Full static analyses (`crate::analysis`) of rows that were selected.
    pub analyses: Bounded<usize, Arc<Analysis>>,
    pub analysis_requested: HashSet<usize>,
    /// The Graph pane's drawings of rows looked at, laid out once each.
    pub graphs: GraphCache,
    /// The Response pane's raw view: where lines are read again, and the one held.
    pub raw: RawLines,
}

impl Default for Held {
    fn default() -> Held {
        Held {
            highlights: Bounded::new(DETAIL_CACHE),
            highlight_requested: HashSet::new(),
            analyses: Bounded::new(DETAIL_CACHE),
            analysis_requested: HashSet::new(),
            graphs: GraphCache::default(),
            raw: RawLines::default(),
        }
    }
}

impl Held {
    /// Drops what is held of `rows` (their lines were read again: a rewritten file).
    pub fn forget(&mut self, rows: &HashSet<usize>) {
        self.analyses.retain(|r| !rows.contains(r));
        self.analysis_requested.retain(|r| !rows.contains(r));
        self.highlights.retain(|k| !rows.contains(&k.0));
        self.highlight_requested.retain(|k| !rows.contains(&k.0));
        self.raw.forget(rows);
    }
}

/// The raw view's lines: the texts built into the binary, by the path that labels them,
/// and the one line held. Lines are not kept after loading; the shown row's line is read
/// again from its file on a worker (the demo's from the text built into the binary), and
/// only that one is held.
#[derive(Debug, Default)]
pub struct RawLines {
    embedded: HashMap<PathBuf, &'static str>,
    /// The row whose line was asked for last, and its line once read.
    requested: Option<usize>,
    held: Option<(usize, Result<Arc<RawLine>, String>)>,
}

impl RawLines {
    /// Notes a text built into the binary, read under `label`.
    pub fn embed(&mut self, label: PathBuf, text: &'static str) {
        self.embedded.insert(label, text);
    }

    /// The request for `row`'s stored line (`entry`'s), unless it was asked for already.
    pub fn request(&mut self, row: usize, entry: &Entry) -> Option<JobRequest> {
        if self.requested == Some(row) {
            return None;
        }
        let source: Arc<Path> = entry.rollout.source.clone();
        let embedded = self.embedded.get(source.as_ref()).copied();
        self.requested = Some(row);
        Some(JobRequest::RawLine {
            row,
            source,
            line: entry.rollout.line,
            embedded,
        })
    }

    /// A stored line read again: held when it is the one asked for last (returns whether
    /// it was).
    pub fn on_line(&mut self, row: usize, result: Result<Arc<RawLine>, String>) -> bool {
        if self.requested != Some(row) {
            return false;
        }
        self.held = Some((row, result));
        true
    }

    /// Drops the stored lines read of `rows` (their lines were read again: a rewritten file).
    pub fn forget(&mut self, rows: &HashSet<usize>) {
        if self.requested.is_some_and(|r| rows.contains(&r)) {
            self.requested = None;
        }
        if self.held.as_ref().is_some_and(|(r, _)| rows.contains(r)) {
            self.held = None;
        }
    }

    /// `row`'s stored line, once read (`Err`: why it could not be).
    pub fn held(&self, row: usize) -> Option<&Result<Arc<RawLine>, String>> {
        match &self.held {
            Some((r, result)) if *r == row => Some(result),
            _ => None,
        }
    }
}
