//! The rerun thread: reruns, what-ifs and the runtime install, in order, one at a time
//! (a rerun is one rollout; the install is long but rare). After an install from the
//! explorer it makes the grading backend the explorer started without.

use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use crate::grade::backend::GradeBackend;
use crate::grade::report::GradeReport;
use crate::grade::runtime::install_runtime;
use crate::model::{ApiMap, Rollout};

use super::JobEvent;

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

/// The rerun thread of [`super::Workers`]: requests in order (a rerun is one
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
