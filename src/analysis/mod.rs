//! Static analysis of a rollout's code: extraction, the official zwc-usage and
//! NumPy checks, the dependency graph and hallucinated-name findings. No Python is run.

pub mod extract;
pub mod numpy_check;
pub mod pyast;
pub mod static_check;

pub use extract::{CodeBlock, entry_function_name, extract_last_python_block};
