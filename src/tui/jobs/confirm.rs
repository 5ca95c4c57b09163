//! The confirm job: the selected rollout run once under the runtime oracle's tracer
//! (`grade::trace`), each finding that claims a crash or a loophole settled confirmed,
//! refuted or not reached. Traces are remembered in the trace cache, so asking again is instant.

use std::sync::Arc;

use crate::analysis::loopholes::wrapping_constructors;
use crate::analysis::{analyze_rollout, extract_last_python_block, selected_functions};
use crate::grade::backend::GradeBackend;
use crate::grade::trace::{Confirmation, cache};
use crate::model::{ApiMap, Dataset, Rollout, RolloutId};

/// Settle the findings of `rollout` (row `row`) by running it.
#[derive(Debug, Clone)]
pub struct ConfirmRequest {
    pub id: u64,
    pub row: usize,
    pub rollout: Box<Rollout>,
    pub api: Arc<ApiMap>,
    pub dataset: Arc<Dataset>,
    /// The trace cache's folder (`None`: nothing remembered).
    pub trace_dir: Option<std::path::PathBuf>,
}

/// What the run said.
#[derive(Debug, Clone)]
pub struct ConfirmEvent {
    pub id: u64,
    pub row: usize,
    pub rollout: RolloutId,
    pub result: Result<Confirmation, String>,
}

/// Runs one request on this thread (a worker thread, or tests).
pub fn run(req: ConfirmRequest, backend: Option<&dyn GradeBackend>) -> ConfirmEvent {
    let rollout = &req.rollout;
    let result = match backend {
        None => Err("no grader: the Python runtime is missing".to_string()),
        Some(b) => {
            let item = req.dataset.get(&rollout.query);
            let analysis = analyze_rollout(rollout, &req.api, item);
            let code = extract_last_python_block(&rollout.response)
                .map(|b| b.code)
                .unwrap_or_default();
            // The cases the analysis used: the dataset's when the rollout has none.
            let cases = item
                .filter(|_| rollout.test_cases.is_empty())
                .map(|i| i.test_cases.as_slice())
                .unwrap_or(&rollout.test_cases);
            let trace_cache = req
                .trace_dir
                .as_deref()
                .and_then(|dir| cache::shared(dir, &req.api));
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                b.confirm(
                    trace_cache.as_deref(),
                    &code,
                    &analysis.code.entry,
                    cases,
                    &analysis.code.findings,
                    &wrapping_constructors(&req.api, selected_functions(rollout, item)),
                )
            }));
            let failed = analysis
                .code
                .static_check
                .as_ref()
                .and_then(|s| s.official_error());
            match ran {
                Ok(Ok(mut c)) => {
                    // Nothing is paid when the official check fails the code.
                    if let Some(error) = &failed {
                        c.check_failed(error);
                    }
                    Ok(c)
                }
                Ok(Err(e)) => Err(format!("{e:#}")),
                Err(_) => Err("the tracer panicked on this rollout".to_string()),
            }
        }
    };
    ConfirmEvent {
        id: req.id,
        row: req.row,
        rollout: rollout.id.clone(),
        result,
    }
}
