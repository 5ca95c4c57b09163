//! Reruns and what-ifs from the explorer: `r` regrades the selected rollout on a worker
//! thread and shows the new verdict beside the stored one; `e` grades an edited copy of
//! the code. Results go to the rerun sidecar (written by `labelling::service`, the I/O
//! step), never into the rollout file. Also the offer to install a missing Python runtime.

pub use crate::grade::reruns::{case_changes, edit_summary};
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use crate::grade::report::GradeReport;
use crate::grade::reruns::RerunRecord;
use crate::grade::runtime::install_runtime;
use crate::model::{ApiMap, Rollout};

use super::app::{App, Grading, Popup};
use super::entry::Score;
use super::jobs::JobEvent;
use crate::grade::backend::GradeBackend;
pub use crate::grade::reruns::with_code;

/// Builds a grading backend once the runtime exists (after an install from the explorer).
pub type BackendFactory = Arc<dyn Fn(&ApiMap) -> Arc<dyn GradeBackend> + Send + Sync>;

/// Work for the rerun worker.
#[derive(Debug, Clone)]
pub enum RerunRequest {
    /// Grade `rollout` (with `code` in place of its own code for a what-if).
    Grade {
        id: u64,
        row: usize,
        rollout: Box<Rollout>,
        code: Option<String>,
    },
    /// Install the Python runtime, reporting each step.
    Install { api: Arc<ApiMap> },
}

/// What the rerun worker reports.
#[derive(Debug, Clone)]
pub enum RerunEvent {
    /// A rerun (`code: None`) or what-if finished.
    Graded {
        id: u64,
        row: usize,
        code: Option<String>,
        result: Result<Box<GradeReport>, String>,
    },
    /// One install step, as a line to show.
    InstallStep(String),
    /// The install finished: the interpreter's path, or why it failed.
    InstallDone(Result<String, String>),
}

/// The runtime install offer and its progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallView {
    pub running: bool,
    pub lines: Vec<String>,
    pub outcome: Option<Result<String, String>>,
}

/// One rerun or what-if result of this session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRerun {
    pub record: RerunRecord,
    /// Whether the sidecar append succeeded (`None`: not written yet).
    pub saved: Option<Result<(), String>>,
}

/// Rerun state: what is in flight, what came back, what waits to be written.
#[derive(Default)]
pub struct Reruns {
    next_id: u64,
    /// (row, what-if) → id of the request in flight.
    pub running: HashMap<(usize, bool), u64>,
    /// Results of this session per row, oldest first.
    pub session: HashMap<usize, Vec<SessionRerun>>,
    /// Requests for the rerun worker.
    pub outbox: Vec<RerunRequest>,
    /// A what-if waiting for the editor: (row, code to edit). Taken by the event loop.
    pub edit: Option<(usize, String)>,
    pub install: InstallView,
    /// How `r` grades after the runtime was installed from here.
    pub backend_factory: Option<BackendFactory>,
    /// Advances while something runs, for the spinner.
    pub spinner: usize,
}

impl Reruns {
    /// Whether a rerun, what-if or install is in flight (the spinner turns).
    pub fn busy(&self) -> bool {
        !self.running.is_empty() || self.install.running
    }

    /// Takes the requests queued for the rerun worker.
    pub fn take_requests(&mut self) -> Vec<RerunRequest> {
        std::mem::take(&mut self.outbox)
    }

    /// The spinner's current frame.
    pub fn spinner_frame(&self) -> &'static str {
        const FRAMES: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];
        FRAMES[(self.spinner / 3) % FRAMES.len()]
    }
}

/// Whether the explorer cannot grade because the Python runtime is missing (not, say,
/// because there is no API doc).
pub fn runtime_missing(app: &App) -> bool {
    matches!(&app.corpus.ctx.grading, Grading::Unavailable(why) if why.fixed_by_install())
}

/// Whether reruns can be graded; if not, says why (and offers the install when the
/// runtime is what is missing).
pub fn ready_to_grade(app: &mut App) -> bool {
    let installed_here = app
        .reruns
        .install
        .outcome
        .as_ref()
        .is_some_and(Result::is_ok);
    let has_backend = matches!(app.corpus.ctx.grading, Grading::Available) || installed_here;
    if !has_backend {
        if runtime_missing(app) {
            app.popup = Some(Popup::Runtime);
            app.popup_scroll = 0;
        } else if let Grading::Unavailable(why) = &app.corpus.ctx.grading {
            app.message = Some(format!("cannot rerun: {why}"));
        }
    }
    has_backend
}

/// Queues a rerun (`code: None`) or a what-if of `row`. Without a grader it says why, and
/// offers the install when the runtime is what is missing.
pub fn request(app: &mut App, row: usize, code: Option<String>) {
    if !ready_to_grade(app) {
        return;
    }
    let Some(entry) = app.corpus.entries.get(row).cloned() else {
        return;
    };
    app.reruns.next_id += 1;
    let id = app.reruns.next_id;
    let what_if = code.is_some();
    app.reruns.running.insert((row, what_if), id);
    app.reruns.outbox.push(RerunRequest::Grade {
        id,
        row,
        rollout: Box::new(entry.rollout.clone()),
        code,
    });
    app.message = Some(if what_if {
        "grading the edited code (what-if)…".to_string()
    } else {
        "rerunning the grader…".to_string()
    });
}

/// Queues the runtime install (from the offer popup).
pub fn request_install(app: &mut App) {
    if app.reruns.install.running {
        return;
    }
    app.reruns.install = InstallView {
        running: true,
        lines: Vec::new(),
        outcome: None,
    };
    app.popup = Some(Popup::Runtime);
    app.reruns.outbox.push(RerunRequest::Install {
        api: app.corpus.ctx.api.clone(),
    });
}

/// Applies a rerun worker's report; returns whether to redraw.
pub fn on_event(app: &mut App, event: RerunEvent) -> bool {
    match event {
        RerunEvent::Graded {
            id,
            row,
            code,
            result,
        } => {
            let key = (row, code.is_some());
            if app.reruns.running.get(&key) != Some(&id) {
                return false;
            }
            app.reruns.running.remove(&key);
            match result {
                Ok(mut report) => {
                    // The sidecar keys reruns by the row's id (a what-if's edited response
                    // would otherwise hash to another one).
                    if let Some(entry) = app.corpus.entries.get(row) {
                        report.id = Some(entry.rollout.id.clone());
                    }
                    let record = RerunRecord::now(*report, code);
                    let verdict = record.report.verdict.map_or("not graded", |v| v.as_str());
                    app.message = Some(format!(
                        "{} {verdict}; saving to the rerun sidecar…",
                        if record.what_if { "what-if:" } else { "rerun:" }
                    ));
                    app.reruns
                        .session
                        .entry(row)
                        .or_default()
                        .push(SessionRerun {
                            record,
                            saved: None,
                        });
                }
                Err(e) => app.message = Some(format!("rerun failed: {e}")),
            }
            true
        }
        RerunEvent::InstallStep(line) => {
            app.reruns.install.lines.push(line);
            true
        }
        RerunEvent::InstallDone(outcome) => {
            app.reruns.install.running = false;
            app.message = Some(match &outcome {
                Ok(_) => {
                    "Python runtime installed: r reruns now; restart sebx to grade the whole list"
                        .to_string()
                }
                Err(e) => format!("install failed: {e}"),
            });
            app.reruns.install.outcome = Some(outcome);
            true
        }
    }
}

/// Runs one request on this thread (the worker, and tests); `send` gets each event.
pub fn run_request(
    req: RerunRequest,
    backend: &Mutex<Option<Arc<dyn GradeBackend>>>,
    factory: Option<&BackendFactory>,
    send: &mut dyn FnMut(RerunEvent),
) {
    match req {
        RerunRequest::Grade {
            id,
            row,
            rollout,
            code,
        } => {
            let current = backend.lock().ok().and_then(|b| b.clone());
            let result = match current {
                None => Err("no grader: the Python runtime is missing".to_string()),
                Some(b) => {
                    let graded =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &code {
                            Some(c) => b.grade_code(&rollout, c),
                            None => b.grade(&rollout),
                        }));
                    match graded {
                        Ok(Ok(r)) => Ok(Box::new(r)),
                        Ok(Err(e)) => Err(format!("{e:#}")),
                        Err(_) => Err("the grader panicked on this rollout".to_string()),
                    }
                }
            };
            send(RerunEvent::Graded {
                id,
                row,
                code,
                result,
            });
        }
        RerunRequest::Install { api } => {
            let outcome =
                install_runtime(&mut |step| send(RerunEvent::InstallStep(step.to_string())))
                    .map(|rt| rt.python.display().to_string())
                    .map_err(|e| format!("{e:#}"));
            if outcome.is_ok()
                && let Some(make) = factory
                && let Ok(mut slot) = backend.lock()
            {
                *slot = Some(make(&api));
            }
            send(RerunEvent::InstallDone(outcome));
        }
    }
}

/// The rerun thread of [`super::jobs::Workers`]: requests in order (a rerun is one
/// rollout; the install is long but rare).
pub struct RerunWorker {
    requests: Sender<RerunRequest>,
}

impl RerunWorker {
    /// Starts the thread; `backend` grades (absent: no runtime yet), `factory` makes one
    /// after an install from the explorer.
    pub fn start(
        events: Sender<JobEvent>,
        backend: Option<Arc<dyn GradeBackend>>,
        factory: Option<BackendFactory>,
    ) -> RerunWorker {
        let (requests, rx): (Sender<RerunRequest>, Receiver<RerunRequest>) = channel();
        std::thread::spawn(move || {
            let slot = Mutex::new(backend);
            while let Ok(req) = rx.recv() {
                let mut gone = false;
                run_request(req, &slot, factory.as_ref(), &mut |e| {
                    gone |= events.send(JobEvent::Rerun(e)).is_err();
                });
                if gone {
                    return;
                }
            }
        });
        RerunWorker { requests }
    }

    /// Hands a request to the thread.
    pub fn dispatch(&self, req: RerunRequest) {
        let _ = self.requests.send(req);
    }
}

/// Runs the queued rerun requests on this thread until none is left (tests).
pub fn drain_inline(app: &mut App, backend: Option<Arc<dyn GradeBackend>>) {
    let slot = Mutex::new(backend);
    loop {
        let requests = app.reruns.take_requests();
        if requests.is_empty() {
            break;
        }
        let factory = app.reruns.backend_factory.clone();
        for req in requests {
            let mut events = Vec::new();
            run_request(req, &slot, factory.as_ref(), &mut |e| events.push(e));
            for e in events {
                on_event(app, e);
            }
        }
    }
}

/// What the Rerun panel compares for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The verdict the row had before (stored or graded), as shown in the list.
    pub original: String,
    pub original_report: Option<Arc<GradeReport>>,
    /// The latest rerun of the rollout's own code: record, and whether it is from this session.
    pub rerun: Option<(RerunRecord, Option<Result<(), String>>)>,
    pub what_if: Option<(RerunRecord, Option<Result<(), String>>)>,
    pub rerun_running: bool,
    pub what_if_running: bool,
    /// Earlier reruns of this rollout in the sidecar.
    pub earlier: usize,
}

/// The comparison shown for `row`, or `None` when it has no rerun of any kind.
pub fn comparison(app: &App, row: usize) -> Option<Comparison> {
    let entry = app.corpus.entries.get(row)?;
    let session = app.reruns.session.get(&row);
    let last_session = |what_if: bool| {
        session.and_then(|list| {
            list.iter()
                .rev()
                .find(|s| s.record.what_if == what_if)
                .map(|s| (s.record.clone(), s.saved.clone()))
        })
    };
    let stored = app.labelling.stored_reruns(entry.run, &entry.rollout.id);
    let from_sidecar = |what_if: bool| {
        stored
            .iter()
            .rev()
            .find(|r| r.what_if == what_if)
            .map(|r| ((*r).clone(), Some(Ok(()))))
    };
    let rerun = last_session(false).or_else(|| from_sidecar(false));
    let what_if = last_session(true).or_else(|| from_sidecar(true));
    let rerun_running = app.reruns.running.contains_key(&(row, false));
    let what_if_running = app.reruns.running.contains_key(&(row, true));
    if rerun.is_none() && what_if.is_none() && !rerun_running && !what_if_running {
        return None;
    }
    let score = app.corpus.scores.get(row);
    Some(Comparison {
        original: app.corpus.shown(row).label().to_string(),
        original_report: match score {
            Some(Score::Graded(r)) => Some(r.clone()),
            _ => None,
        },
        rerun,
        what_if,
        rerun_running,
        what_if_running,
        earlier: stored.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_summary_names_swapped_zwc_calls() {
        let a = "import zwc\ndef f(x):\n    return zwc.mean(zwc.yitaf(x))\n";
        let b = "import zwc\ndef f(x):\n    return zwc.kocito(zwc.yitaf(x))\n";
        assert_eq!(edit_summary(a, b), "`zwc.kocito` instead of `zwc.mean`");
        assert_eq!(
            edit_summary(a, &a.replace("(x))", "(x), axis=1)")),
            "2 changed lines"
        );
        assert_eq!(
            edit_summary("y = zwc.rfx.quvohee(m)", "y = zwc.rfx.quvohe(m)"),
            "`zwc.rfx.quvohe` instead of `zwc.rfx.quvohee`"
        );
    }

    #[test]
    fn with_code_replaces_the_last_block_or_appends_one() {
        let line = serde_json::json!({"query": "q", "response": "a\n```python\nold()\n```\nb",
            "test_cases": [], "right_exe_result": ""})
        .to_string();
        let loaded = crate::model::rollout::parse_rollout_bytes(
            std::path::Path::new("t.jsonl"),
            line.as_bytes(),
        );
        let mut r = loaded.rollouts[0].clone();
        let edited = with_code(&r, "new()");
        assert_eq!(edited.response, "a\n```python\nnew()\n```\nb");
        r.response = "no code".to_string();
        let edited = with_code(&r, "new()\n");
        assert!(edited.response.ends_with("```python\nnew()\n```\n"));
        assert_eq!(
            crate::analysis::extract_last_python_block(&edited.response).map(|b| b.code),
            Some("new()\n".to_string())
        );
    }
}
