//! Step 5 of GRADER.md: does the program import numpy? (Stub.)

use serde::{Deserialize, Serialize};

/// One numpy import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumpyImport {
    /// The statement or call as written, e.g. `import numpy as np`.
    pub text: String,
    pub line: usize,
    pub col: usize,
    /// `__import__("numpy")` / `importlib.import_module("numpy")`: not caught officially.
    pub dynamic: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumpyCheck {
    pub imports: Vec<NumpyImport>,
}

impl NumpyCheck {
    /// The official verdict-deciding flag: a static import of numpy anywhere.
    pub fn uses_numpy(&self) -> bool {
        self.imports.iter().any(|i| !i.dynamic)
    }
}

pub fn check_numpy(_program: &str) -> NumpyCheck {
    todo!("numpy check")
}
