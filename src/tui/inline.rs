//! Running the explorer's work on the calling thread instead of the workers: loading,
//! every queued request, reruns. For tests, benchmarks and the one-shot front ends
//! (`sebx present`, exports) that need a loaded, analysed `App` without an event loop.

use std::sync::{Arc, Mutex};

use crate::grade::backend::GradeBackend;

use super::app::App;
use super::jobs::{self, JobEvent, JobRequest, reruns};
use super::load::Source;

/// Runs every queued request on this thread until none is left (tests, benchmarks, small
/// inputs); reruns stay queued for [`drain_reruns`], which has a backend of its own.
pub fn drain_inline(app: &mut App, backend: Option<&dyn GradeBackend>) {
    let mut reruns = Vec::new();
    loop {
        let requests = app.take_requests();
        if requests.is_empty() {
            break;
        }
        for req in requests {
            if matches!(req, JobRequest::Rerun(_)) {
                reruns.push(req);
            } else if let Some(ev) = jobs::run_request(req, backend) {
                app.on_job(ev);
            }
        }
        app.settle();
    }
    // Nothing left to grade: what the backend gathered to remember is written, as the
    // grade workers do when their queue runs empty.
    if let Some(backend) = backend {
        backend.flush();
    }
    for req in reruns {
        app.queue(req);
    }
}

/// Runs the queued rerun requests on this thread until none is left, leaving the other
/// requests queued (tests).
pub fn drain_reruns(app: &mut App, backend: Option<Arc<dyn GradeBackend>>) {
    let slot = Mutex::new(backend);
    loop {
        let (reruns, others): (Vec<JobRequest>, Vec<JobRequest>) = app
            .take_requests()
            .into_iter()
            .partition(|r| matches!(r, JobRequest::Rerun(_)));
        for req in others {
            app.queue(req);
        }
        if reruns.is_empty() {
            break;
        }
        let factory = app.reruns.backend_factory.clone();
        for req in reruns {
            let JobRequest::Rerun(req) = req else {
                continue;
            };
            let mut events = Vec::new();
            reruns::run_request(req, &slot, factory.as_ref(), &mut |e| events.push(e));
            for e in events {
                app.on_job(JobEvent::Rerun(e));
            }
        }
    }
}

/// Answers the queued verdict lookups (reruns, the score cache) on this thread, leaving
/// every other request queued: the one-shot front ends (`sebx present`, `sebx export`)
/// show what the explorer would, without running the rest of its background work.
pub fn settle_verdicts(app: &mut App) {
    let (lookups, others): (Vec<JobRequest>, Vec<JobRequest>) = app
        .take_requests()
        .into_iter()
        .partition(|r| matches!(r, JobRequest::LookupScores { .. }));
    for req in others {
        app.queue(req);
    }
    for req in lookups {
        if let Some(ev) = jobs::run_request(req, None) {
            app.on_job(ev);
        }
    }
    app.settle();
}

/// Loads `sources` on this thread straight into `app` (tests, benchmarks).
pub fn load_inline(app: &mut App, sources: &[Source]) {
    load_into(app, sources, None);
}

/// [`load_inline`] of only the lines of `only` (a report's examples).
pub fn load_inline_lines(app: &mut App, sources: &[Source], only: &super::load::LineFilter) {
    load_into(app, sources, Some(only));
}

fn load_into(app: &mut App, sources: &[Source], only: Option<&super::load::LineFilter>) {
    app.register_sources(sources);
    let mut sink = |e| {
        app.on_job(JobEvent::Load(e));
    };
    match only {
        Some(only) => super::load::load_lines(sources, only, &mut sink),
        None => super::load::load_sources(sources, &mut sink),
    }
    app.settle();
}
