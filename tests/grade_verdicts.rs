//! Each verdict and each GRADER.md quirk, through the real engine (Python runtime required:
//! `sebx runtime install`). Rollouts here are written for these tests.

use crate::grading;

use std::sync::OnceLock;
use std::time::Duration;

use grading::{block, rollout};
use sebx::grade::engine::Engine;
use sebx::grade::grader::grade_rollout;
use sebx::grade::report::GradeReport;
use sebx::model::Verdict;

const API: &str = r#"{"original_name": "mean", "curr_name": "kocito", "rewritten_doc": "", "func_mapping": "{\"np.mean\": \"zwc.kocito\", \"np.array\": \"zwc.yitaf\", \"np.sum\": \"zwc.bapuxe\", \"np.cumsum\": \"zwc.tidore\", \"np.linalg.inv\": \"zwc.rfx.quvohe\"}"}"#;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    grading::engine(&ENGINE, API)
}

/// Grades one rollout made of a response and (input, expected) cases.
fn grade(response: &str, cases: &[(&str, &str)]) -> GradeReport {
    grade_rollout(&rollout(response, cases), engine(), Duration::from_secs(3))
}

#[test]
fn right() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.kocito(a)\n"),
        &[("a=[1, 2, 3]", "2.0"), ("a=np.array([2, 4])", "3.0")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(
        r.cases[1].input, "a=zwc.yitaf([2, 4])",
        "np.array is rewritten"
    );
}

#[test]
fn result_error_names_the_difference() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.kocito(a) * 1.02\n"),
        &[("a=[1, 2, 3]", "2.0")],
    );
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
    let m = r.cases[0]
        .comparison
        .as_ref()
        .and_then(|c| c.mismatch.as_ref())
        .expect("mismatch");
    let d = m.difference.expect("numeric difference");
    assert!((d - 0.04).abs() < 1e-9, "{d}");
}

#[test]
fn within_tolerance_is_right() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.kocito(a) * 1.004\n"),
        &[("a=[1, 2, 3]", "2.0")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
}

#[test]
fn exe_error_tolist_on_zwcarray_and_one_failure_empties_all() {
    let r = grade(
        &block(
            "import zwc\ndef f(a):\n    if len(a) > 2:\n        return zwc.tidore(a).tolist()\n    return zwc.tidore(a)\n",
        ),
        &[("a=[1, 2]", "[1 3]"), ("a=[1, 2, 3]", "[1 3 6]")],
    );
    assert_eq!(r.verdict, Some(Verdict::ExeError));
    assert!(
        r.decided_by.contains("ZWCArray has no attribute 'tolist'"),
        "{}",
        r.decided_by
    );
    assert!(r.cases.iter().all(|c| c.actual.is_none()));
}

#[test]
fn exe_error_numpy_name_on_zwc() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.mean(a)\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::ExeError));
    let stderr = &r.execution.as_ref().expect("ran").stderr;
    assert!(
        stderr.contains("module 'zwc' has no attribute 'mean'"),
        "{stderr}"
    );
}

#[test]
fn timeout_is_exe_error() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    while True:\n        pass\n    return zwc.kocito(a)\n"),
        &[("a=[1]", "1.0")],
    );
    assert_eq!(r.verdict, Some(Verdict::ExeError));
    let e = r.execution.as_ref().expect("ran");
    assert!(e.timed_out);
    assert!(r.decided_by.contains("timeout"), "{}", r.decided_by);
}

#[test]
fn use_numpy_even_in_dead_code() {
    let r = grade(
        &block(
            "import zwc\ndef f(a):\n    if False:\n        import numpy as np\n    return zwc.kocito(a)\n",
        ),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::UseNumpy));
    assert!(r.execution.is_none(), "use_numpy is decided before running");
}

#[test]
fn dynamic_numpy_import_is_only_a_warning() {
    let r = grade(
        &block(
            "import zwc\ndef f(a):\n    np = __import__('numpy')\n    return zwc.kocito(np.asarray(a))\n",
        ),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert!(
        r.warnings.iter().any(|w| w.contains("not catch")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn without_zwc_conditions() {
    // No zwc call at all.
    let r = grade(
        &block("def f(a):\n    return sum(a) / len(a)\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    assert!(r.static_error.is_some());
    // Only zwc.yitaf: not meaningful.
    let r = grade(
        &block("import zwc\ndef f(a):\n    return sum(zwc.yitaf(a)) / len(a)\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    assert!(!r.static_check.as_ref().expect("checked").meaningful);
    // Bare return only.
    let r = grade(
        &block("import zwc\ndef f(a):\n    print(zwc.kocito(a))\n    return\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    assert!(!r.static_check.as_ref().expect("checked").returns_value);
    // An alias counts.
    let r = grade(
        &block("import zwc as z\ndef f(a):\n    return z.kocito(a)\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
}

#[test]
fn quirk_last_block_is_graded() {
    let response = format!(
        "{}Wait, simpler:\n{}",
        block("import zwc\ndef f(a):\n    return zwc.kocito(a)\n"),
        block("def f(a):\n    return 0\n")
    );
    let r = grade(&response, &[("a=[1, 2]", "1.5")]);
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    assert_eq!(r.extraction.blocks_found, 2);
}

#[test]
fn quirk_other_fence_tags_give_no_code() {
    let r = grade(
        "```python3\nimport zwc\ndef f(a):\n    return zwc.kocito(a)\n```",
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    assert!(!r.extraction.found);
}

#[test]
fn quirk_first_def_is_the_entry() {
    let r = grade(
        &block(
            "import zwc\ndef helper(x):\n    return x\ndef f(a):\n    return zwc.kocito(helper(a))\n",
        ),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.entry, "helper");
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    // A `def x(` inside a docstring names a function that does not exist.
    let r = grade(
        &block(
            "import zwc\n\"\"\"Call def go(a) to run.\"\"\"\ndef f(a):\n    return zwc.kocito(a)\n",
        ),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.entry, "go");
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
}

#[test]
fn quirk_code_without_final_newline_is_glued() {
    let r = grade(
        "```python\nimport zwc\ndef f(a):\n    return zwc.kocito(a)```",
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::WithoutZwc));
    assert!(
        r.static_check
            .as_ref()
            .expect("checked")
            .syntax_error
            .is_some()
    );
    assert!(r.warnings.iter().any(|w| w.contains("glued")));
}

#[test]
fn quirk_debug_print_before_crash_takes_the_breakpoint_path() {
    // stdout is the debug line alone: no result pieces, so the official judge indexes past
    // them (IndexError, breakpoint()): exe_error in a batch run, result_error when run on a
    // terminal and continued. The parity corpus's stored verdicts for such rollouts say
    // result_error (recorded with the debugger continuing).
    let r = grade(
        &block("import zwc\ndef f(a):\n    print('debug', a)\n    return zwc.tidore(a).mean()\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::ExeError), "{}", r.decided_by);
    assert!(r.fragile, "{}", r.decided_by);
}

#[test]
fn quirk_hash_in_printed_value_shifts_pieces_and_labels_are_dropped() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return 'Mean: ' + str(zwc.kocito(a))\n"),
        &[("a=[1, 2]", "1.5"), ("a=[2, 4]", "3.0")],
    );
    assert_eq!(
        r.verdict,
        Some(Verdict::Right),
        "label before ':' is dropped: {}",
        r.decided_by
    );
    let r = grade(
        &block("import zwc\ndef f(a):\n    return '#' + str(zwc.kocito(a))\n"),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
}

#[test]
fn stderr_warning_does_not_fail() {
    let r = grade(
        &block(
            "import zwc, sys\ndef f(a):\n    print('careful', file=sys.stderr)\n    return zwc.kocito(a)\n",
        ),
        &[("a=[1, 2]", "1.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
}

#[test]
fn zwc_array_prints_numpy_spacing_and_matches_list() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.tidore(a)\n"),
        &[("a=[15, 145, 17]", "[15, 160, 177]")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert_eq!(r.cases[0].actual.as_deref(), Some("[ 15 160 177]"));
}

/// GRADER.md step 7: fewer printed results than expected, all matching, make the official
/// judge raise IndexError and call breakpoint(): exe_error as a batch run gives it, and the
/// verdict is fragile (an interactive run continues to result_error).
#[test]
fn fewer_printed_results_is_exe_error_and_fragile() {
    let code = "import zwc\ndef f(a):\n    return R(zwc.kocito(a))\nclass R:\n    def __init__(self, v):\n        self.v = v\n    def __str__(self):\n        if self.v > 2:\n            raise SystemExit(0)\n        return str(self.v)\n";
    let r = grade(&block(code), &[("a=[1, 2]", "1.5"), ("a=[4, 6]", "5.0")]);
    assert_eq!(r.verdict, Some(Verdict::ExeError), "{}", r.decided_by);
    assert!(r.decided_by.contains("breakpoint()"), "{}", r.decided_by);
    assert!(r.fragile);
    assert!(
        r.fragile_reason
            .as_deref()
            .is_some_and(|why| why.contains("interactive") && why.contains("result_error")),
        "{:?}",
        r.fragile_reason
    );
    assert!(r.cases[0].matched && r.cases[1].actual.is_none());
    // A mismatch before the missing piece decides first: result_error, not fragile.
    let r = grade(&block(code), &[("a=[1, 2]", "9.5"), ("a=[4, 6]", "5.0")]);
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
    assert!(!r.fragile, "{:?}", r.fragile_reason);
}

/// Float digits compared as text (a dict's values after the first `:` is dropped): digits
/// that differ only where a BLAS differs make the verdict fragile; a real wrong answer
/// compared the same way does not.
#[test]
fn digits_compared_as_text_are_fragile_only_when_they_differ_slightly() {
    let code = |value: &str| {
        format!(
            "import zwc\ndef f(a):\n    zwc.kocito(a)\n    return {{'U': [1.0], 'S': [{value}, 0.25]}}\n"
        )
    };
    let expected = "{'U': [1.0], 'S': [0.5773502691896258, 0.25]}";
    // Same digits: right, but only because they printed identically.
    let r = grade(&block(&code("0.5773502691896258")), &[("a=[1]", expected)]);
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert!(r.fragile && r.cases[0].fragile, "{:?}", r.fragile_reason);
    // The last digit differs: result_error officially on this machine, right on another.
    let r = grade(&block(&code("0.5773502691896256")), &[("a=[1]", expected)]);
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
    assert!(r.fragile, "{}", r.decided_by);
    assert!(
        r.fragile_reason
            .as_deref()
            .is_some_and(|w| w.contains("last floating-point digits"))
    );
    // A real difference compared as text is not fragile.
    let r = grade(&block(&code("0.6773502691896258")), &[("a=[1]", expected)]);
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
    assert!(!r.fragile, "{:?}", r.fragile_reason);
    // Compared as numbers (a plain list), tiny digit differences do not matter at all.
    let r = grade(
        &block("import zwc\ndef f(a):\n    zwc.kocito(a)\n    return [0.5773502691896256, 0.25]\n"),
        &[("a=[1]", "[0.5773502691896258, 0.25]")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert!(!r.fragile, "{:?}", r.fragile_reason);
}

/// A difference within a hair of the 0.01 tolerance is fragile; a clear one is not.
#[test]
fn differences_at_the_tolerance_edge_are_fragile() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.kocito(a) * 1.02\n"),
        &[("a=[0.5]", "0.5")],
    );
    // 0.51 - 0.5 = 0.010000000000000009 > 0.01: result_error, by a hair.
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
    assert!(r.fragile, "{}", r.decided_by);
    let r = grade(
        &block("import zwc\ndef f(a):\n    return zwc.kocito(a) * 1.1\n"),
        &[("a=[0.5]", "0.5")],
    );
    assert_eq!(r.verdict, Some(Verdict::ResultError), "{}", r.decided_by);
    assert!(!r.fragile, "{:?}", r.fragile_reason);
}

/// GRADER.md: printed text is evaluated with `eval`, so arithmetic in it counts.
#[test]
fn arithmetic_in_printed_text_is_evaluated() {
    let r = grade(
        &block("import zwc\ndef f(a):\n    zwc.kocito(a)\n    return '[1.5, 2.0] * 1'\n"),
        &[("a=[1]", "[1.5, 2.0]")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    let r = grade(
        &block("import zwc\ndef f(a):\n    zwc.kocito(a)\n    return '1+1'\n"),
        &[("a=[1]", "2")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    // Code in printed text runs in the official checker (in the sandbox), as officially:
    // `len([1, 2])` is 2.
    let r = grade(
        &block("import zwc\ndef f(a):\n    zwc.kocito(a)\n    return 'len([1, 2])'\n"),
        &[("a=[1]", "2")],
    );
    assert_eq!(r.verdict, Some(Verdict::Right), "{}", r.decided_by);
    assert!(!r.fragile, "{:?}", r.fragile_reason);
    let notes = &r.cases[0].comparison.as_ref().expect("compared").notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("ran this as Python") && n.contains("computed 2")),
        "{notes:?}"
    );
}
