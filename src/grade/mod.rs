//! The embedded grader: program assembly, the zwc runtime, the sandboxed worker
//! pool, the tolerant comparison and the batch runner.

pub mod compare;
pub mod pool;
pub mod pyvalue;
pub mod runtime;
pub mod zwc_runtime;
