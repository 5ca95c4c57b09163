//! The Response pane's raw view (`D`) as `App` feeds it: where the loaded sources' lines
//! can be read again, the request for the selected row's line and the line read (the view
//! and what it holds are the detail pane's, `panes::raw`).

use std::sync::Arc;

use crate::model::raw_line::RawLine;

use super::super::load::{Source, SourceData};
use super::App;

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
                    self.detail.held.raw.embed(label.clone(), text);
                }
                SourceData::EmbeddedDump { steps, .. } => {
                    for (_, label, text) in steps {
                        self.detail.held.raw.embed(label.clone(), text);
                    }
                }
                SourceData::File(_) | SourceData::Dump { .. } | SourceData::Folder { .. } => {}
            }
        }
    }

    /// Asks for the selected row's stored line when the raw view shows it and it is not
    /// held or asked for already.
    pub(super) fn request_raw_line(&mut self) {
        let (detail, reads) = self.detail_mut();
        if let Some(request) = detail.raw_request(reads) {
            self.outbox.push(request);
        }
    }

    /// A stored line read again: held when it is the one asked for last.
    pub(super) fn on_raw_line(&mut self, row: usize, result: Result<Arc<RawLine>, String>) -> bool {
        self.detail.held.raw.on_line(row, result) && self.list.selected == Some(row)
    }

    /// The selected row's stored line, once read (`Err`: why it could not be).
    pub fn raw_line(&self) -> Option<&Result<Arc<RawLine>, String>> {
        self.detail.raw_line_held(self.list.selected)
    }
}
