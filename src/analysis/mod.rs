//! Static analysis of a rollout's code: extraction, the official zwc-usage and
//! NumPy checks, the dependency graph and hallucinated-name findings. No Python is run.

pub mod assemble;
pub mod digest;
pub mod extract;
pub mod graph;
pub mod graph_render;
pub mod loopholes;
pub mod names;
pub mod numpy_check;
pub mod pyast;
pub mod solution;
pub mod static_check;

pub use digest::{AnalysisDigest, GradeFacts, suggested_category};
pub use extract::{CodeBlock, entry_function_name, extract_last_python_block};
pub use graph::{DepGraph, ValueKind};
pub use names::{Finding, FindingKind, Severity};
pub use solution::{Analysis, CodeAnalysis, analyze_code, analyze_rollout, selected_functions};
