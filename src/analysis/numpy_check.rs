//! Step 5 of GRADER.md: does the program import numpy?

use serde::{Deserialize, Serialize};

use super::pyast::{self, LineIndex, Node, ast};
use super::static_check::{PerTextCache, RecursionLimit, remembered, text_hash};
use crate::model::bounded::Bounded;

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
#[serde(default)]
pub struct NumpyCheck {
    pub imports: Vec<NumpyImport>,
    /// Set when the official check's recursive walk over the whole program meets (or
    /// nearly meets) Python's recursion limit; when exceeded, the official grader gives
    /// `exe_error` without running the program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recursion: Option<RecursionLimit>,
}

impl NumpyCheck {
    /// The official verdict-deciding flag: a static import of numpy anywhere.
    pub fn uses_numpy(&self) -> bool {
        self.imports.iter().any(|i| !i.dynamic)
    }

    /// The official check raises RecursionError before it can tell.
    pub fn hits_recursion_limit(&self) -> bool {
        self.recursion.as_ref().is_some_and(|r| r.exceeded)
    }
}

/// Finds every numpy import in `program`, anywhere (dead code and function bodies included).
/// A program that does not parse has no imports here (the static check fails it first).
pub fn check_numpy(program: &str) -> NumpyCheck {
    let Ok(suite) = pyast::parse_suite(program) else {
        return NumpyCheck::default();
    };
    numpy_imports_in(program, &suite)
}

/// [`check_numpy`] on an already parsed module; positions are in `source`.
pub fn numpy_imports_in(source: &str, suite: &pyast::Suite) -> NumpyCheck {
    let index = LineIndex::new(source);
    let mut imports = Vec::new();
    for node in pyast::walk_suite(suite) {
        let (start, end, dynamic) = match node {
            Node::Stmt(s @ ast::Stmt::Import(i))
                if i.names.iter().any(|a| is_numpy_module(a.name.as_str())) =>
            {
                (pyast::start_of(s), pyast::end_of(s), false)
            }
            Node::Stmt(s @ ast::Stmt::ImportFrom(i))
                if i.module
                    .as_ref()
                    .is_some_and(|m| is_numpy_module(m.as_str())) =>
            {
                (pyast::start_of(s), pyast::end_of(s), false)
            }
            Node::Expr(e @ ast::Expr::Call(c)) if is_dynamic_numpy_import(c) => {
                (pyast::start_of(e), pyast::end_of(e), true)
            }
            _ => continue,
        };
        let (line, col) = index.position(source, start);
        imports.push(NumpyImport {
            text: source.get(start..end).unwrap_or("").to_string(),
            line,
            col,
            dynamic,
        });
    }
    imports.sort_by_key(|i| (i.line, i.col));
    // The official check walks the module (2 frames) with a recursive visitor.
    let frames = pyast::visitor_frames(
        suite.iter().map(Node::Stmt),
        2,
        pyast::official_visitor_cost,
    );
    NumpyCheck {
        imports,
        recursion: RecursionLimit::walk("NumPy-import walk", frames),
    }
}

/// Whether `harness` (the text the grader appends to the code) parses on its own and
/// imports no numpy, statically or dynamically; remembered per distinct text, since every
/// sample of a task shares it. When it holds and the code parses on its own and ends with
/// a newline, the program's numpy imports are the code's.
pub fn harness_numpy_free(harness: &str) -> bool {
    static CACHE: PerTextCache<u64, bool> =
        std::sync::LazyLock::new(|| std::sync::Mutex::new(Bounded::new(50_000)));
    remembered(&CACHE, text_hash(harness), || {
        pyast::parse_suite(harness)
            .is_ok_and(|suite| numpy_imports_in(harness, &suite).imports.is_empty())
    })
}

/// `numpy` or `numpy.<sub>`.
pub fn is_numpy_module(name: &str) -> bool {
    name == "numpy" || name.starts_with("numpy.")
}

/// `__import__("numpy…")` or `importlib.import_module("numpy…")` / `import_module("numpy…")`.
fn is_dynamic_numpy_import(call: &ast::ExprCall) -> bool {
    let callee = pyast::dotted_name(&call.func);
    let is_importer = matches!(
        callee.as_deref(),
        Some("__import__" | "importlib.import_module" | "import_module")
    );
    is_importer
        && matches!(
            call.args.first(),
            Some(ast::Expr::Constant(ast::ExprConstant { value: ast::Constant::Str(s), .. }))
                if is_numpy_module(s)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_static_import_form_is_flagged() {
        for code in [
            "import numpy\n",
            "import numpy as np\n",
            "import os, numpy.linalg\n",
            "from numpy import mean\n",
            "from numpy.linalg import inv as i\n",
            "def f():\n    import numpy as np\n    return 1\n",
            "if False:\n    import numpy\n",
            "try:\n    pass\nexcept ImportError:\n    from numpy import *\n",
        ] {
            let c = check_numpy(code);
            assert!(c.uses_numpy(), "{code}");
            assert_eq!(c.imports.len(), 1, "{code}");
            assert!(!c.imports[0].dynamic);
        }
        let c = check_numpy("x = 1\ndef f():\n    import numpy as np\n");
        assert_eq!(c.imports[0].text, "import numpy as np");
        assert_eq!((c.imports[0].line, c.imports[0].col), (3, 5));
    }

    #[test]
    fn lookalikes_are_not_numpy() {
        for code in [
            "import numpyx\n",
            "from numpy_helpers import f\n",
            "import zwc\n",
            "x = 'import numpy'\n",
            "# import numpy\n",
        ] {
            assert!(check_numpy(code).imports.is_empty(), "{code}");
        }
    }

    #[test]
    fn dynamic_imports_are_warnings_only() {
        for code in [
            "np = __import__('numpy')\n",
            "import importlib\nnp = importlib.import_module('numpy')\n",
            "from importlib import import_module\nla = import_module(\"numpy.linalg\")\n",
        ] {
            let c = check_numpy(code);
            assert_eq!(c.imports.len(), 1, "{code}");
            assert!(c.imports[0].dynamic, "{code}");
            assert!(!c.uses_numpy(), "{code}");
        }
        assert!(check_numpy("m = __import__('math')\n").imports.is_empty());
    }

    #[test]
    fn unparsable_program_reports_nothing() {
        assert!(check_numpy("import numpy\ndef f(\n").imports.is_empty());
    }
}
