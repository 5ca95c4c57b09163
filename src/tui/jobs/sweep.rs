//! The background analysis of rows ([`JobRequest::AnalyzeAll`]): every row from a point on
//! (the loaded rows, then each batch a followed run adds), or the rows a rewritten file's
//! lines took the places of.

use std::sync::mpsc::Sender;

use crate::model::rollout::Interner;

use super::{JobEvent, JobRequest, analyze_rows, digest_row};

/// The background sweep: [`analyze_rows`] sending each batch as an event.
pub(super) fn sweep(req: JobRequest, events: &Sender<JobEvent>) {
    let JobRequest::AnalyzeAll {
        from,
        only,
        entries,
        dataset,
        api,
    } = req
    else {
        return;
    };
    let sink = |rows| events.send(JobEvent::Digested { rows }).is_ok();
    let Some(only) = only else {
        return analyze_rows(&entries, from, &dataset, &api, &sink);
    };
    let mut names = Interner::default();
    sink(
        only.into_iter()
            .filter_map(|r| Some((r, digest_row(entries.get(r)?, &dataset, &api, &mut names)?)))
            .collect(),
    );
}
