//! The embedded grader: program assembly, the zwc runtime, the sandboxed worker
//! pool, the tolerant comparison and the batch runner.

/// Program assembly lives in `analysis` (the static checks need the program too).
pub use crate::analysis::assemble;
pub mod backend;
pub mod batch;
pub mod compare;
pub mod engine;
pub mod eta;
pub mod facts;
pub mod grader;
pub mod interrupt;
pub mod judge_eval;
pub mod pool;
pub mod pyvalue;
pub mod render;
pub mod report;
pub mod report_split;
pub mod reruns;
pub mod reward;
pub mod run_cache;
pub mod runs;
pub mod runtime;
pub mod score_cache;
pub mod scoring;
pub mod settings;
pub mod source_hash;
pub mod store;
pub mod trace;
pub mod zwc_runtime;
