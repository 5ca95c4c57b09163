//! The generated zwc package, run through the real worker pool, against the
//! behaviour table of ZWC_RUNTIME.md. Uses its own small mapping.
//!
//! Needs Python 3.11 with NumPy 2.3.0 (`sebx runtime install`); fails, not skips, without it.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use sebx::grade::pool::{ExecOutcome, Pool};
use sebx::grade::runtime::find_runtime;
use sebx::grade::zwc_runtime::ensure_zwc_package;
use sebx::model::ApiMap;

/// Our own mapping: a handful of real zwc/NumPy pairs plus invented names.
const MAPPING: &str = r#"{"main": {"mean": "kocito", "array": "yitaf", "split": "pevor", "histogram": "hilam", "shape": "pizek", "unique": "zuvaq", "vectorize": "qados", "argmax": "dimox", "sqrt": "sarup"}, "linalg": {"inv": "quvohe", "eigh": "notaq"}}"#;

struct Fixture {
    pool: Pool,
    _root: PathBuf,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = find_runtime()
            .unwrap_or_else(|err| panic!("these tests need the grading runtime: {err}"));
        let value: serde_json::Value = serde_json::from_str(MAPPING).expect("mapping is JSON");
        let api = ApiMap::from_mappings_json(&value).expect("mapping loads");
        // Content-addressed: reused by later runs, never half-written.
        let cache = std::env::temp_dir().join("sebx-test-zwc-cache");
        let root = ensure_zwc_package(&api, &cache).expect("package written");
        let pool = Pool::start(&runtime, &root, 2).expect("pool starts");
        Fixture { pool, _root: root }
    })
}

fn run(program: &str) -> ExecOutcome {
    fixture()
        .pool
        .run(program, Duration::from_secs(10))
        .expect("the pool runs the program")
}

/// Runs `program` and asserts its exact stdout.
fn assert_prints(program: &str, expected: &str) {
    let outcome = run(program);
    assert_eq!(
        outcome.stdout, expected,
        "program:\n{program}\nstderr:\n{}",
        outcome.stderr
    );
}

#[test]
fn str_is_numpy_str_and_repr_is_tolist() {
    assert_prints(
        "import zwc\na = zwc.yitaf([[1, 2], [3, 4]])\nprint(a)\nprint(repr(a))\nprint([a])\n",
        "[[1 2]\n [3 4]]\nZWCArray([[1, 2], [3, 4]])\n[ZWCArray([[1, 2], [3, 4]])]\n",
    );
    assert_prints(
        "import zwc\nprint(zwc.yitaf([15, 160, 17]))\n",
        "[ 15 160  17]\n",
    );
}

#[test]
fn indexing_gives_zwcarray_or_python_scalar() {
    assert_prints(
        "import zwc\na = zwc.yitaf([[1, 2], [3, 4]])\n\
         print(repr(a[0]), a[0][1], type(a[0][1]).__name__, type(a[1, 1]).__name__)\n\
         print(repr(a[:, 1]), type(zwc.yitaf([1.5])[0]).__name__, type(zwc.yitaf([True])[0]).__name__)\n\
         print(repr(a[a > 2]))\n",
        "ZWCArray([1, 2]) 2 int int\nZWCArray([2, 4]) float bool\nZWCArray([3, 4])\n",
    );
}

#[test]
fn setitem_unwraps_zwcarray_values() {
    assert_prints(
        "import zwc\na = zwc.yitaf([[1, 2], [3, 4]])\na[0, 0] = 9\na[1] = zwc.yitaf([7, 8])\nprint(repr(a))\n",
        "ZWCArray([[9, 2], [7, 8]])\n",
    );
}

#[test]
fn len_iteration_and_builtins_over_iteration() {
    assert_prints(
        "import zwc\na = zwc.yitaf([[1, 2], [3, 4]])\nc = zwc.yitaf([3, 1, 2])\n\
         print(len(a), [repr(r) for r in a])\n\
         print(sorted(c), max(c), sum(c), list(c), [type(x).__name__ for x in c])\n\
         print(bool(zwc.yitaf([0])), bool(zwc.yitaf([])))\n",
        "2 ['ZWCArray([1, 2])', 'ZWCArray([3, 4])']\n[1, 2, 3] 3 6 [3, 1, 2] ['int', 'int', 'int']\nTrue False\n",
    );
}

/// GRADER.md: a ZWCArray built with `dtype=object` fails when iterated, as the real zwc
/// does (its elements are plain Python objects, which have no `.item()`); indexing and
/// printing still work, and rows of a 2-D object array are arrays again.
#[test]
fn object_arrays_fail_when_iterated() {
    assert_prints(
        "import zwc\na = zwc.yitaf([1, [2, 3]], dtype=object)\n\
         print(a[0], a[1], len(a))\n\
         for attempt in [lambda: list(a), lambda: [x for x in a], lambda: sorted(zwc.yitaf([3, 1], dtype=object)), lambda: sum(a)]:\n\
         \x20   try:\n\
         \x20       attempt()\n\
         \x20       print('iterated')\n\
         \x20   except AttributeError as e:\n\
         \x20       print(type(e).__name__, e)\n\
         b = zwc.yitaf([[1, 2], [3, 4]], dtype=object)\n\
         print([repr(r) for r in b])\n\
         print(list(zwc.yitaf([1.5, 2.5])))\n",
        "1 [2, 3] 2\n\
         AttributeError 'int' object has no attribute 'item'\n\
         AttributeError 'int' object has no attribute 'item'\n\
         AttributeError 'int' object has no attribute 'item'\n\
         AttributeError 'int' object has no attribute 'item'\n\
         ['ZWCArray([1, 2])', 'ZWCArray([3, 4])']\n\
         [1.5, 2.5]\n",
    );
}

#[test]
fn arithmetic_and_reflected_forms_give_zwcarray() {
    assert_prints(
        "import zwc\nb = zwc.yitaf([1, 2])\n\
         for r in [b + 1, 1 + b, [1, 2] + b, b + b, b - 1, 10 - b, b * 2, 2 * b, b / 2, 2 / b, b ** 2, 2 ** b]:\n\
         \x20   print(repr(r))\n",
        "ZWCArray([2, 3])\nZWCArray([2, 3])\nZWCArray([2, 4])\nZWCArray([2, 4])\nZWCArray([0, 1])\n\
         ZWCArray([9, 8])\nZWCArray([2, 4])\nZWCArray([2, 4])\nZWCArray([0.5, 1.0])\nZWCArray([2.0, 1.0])\n\
         ZWCArray([1, 4])\nZWCArray([2, 4])\n",
    );
}

#[test]
fn comparisons_give_zwcarray_of_booleans() {
    assert_prints(
        "import zwc\nb = zwc.yitaf([1, 2])\n\
         for r in [b == 1, b != 1, b < 2, b <= 1, b > 1, b >= 2, b == zwc.yitaf([1, 3])]:\n\
         \x20   print(repr(r))\n",
        "ZWCArray([True, False])\nZWCArray([False, True])\nZWCArray([True, False])\n\
         ZWCArray([True, False])\nZWCArray([False, True])\nZWCArray([False, True])\nZWCArray([True, False])\n",
    );
}

#[test]
fn numpy_attributes_pass_through_and_transpose_is_plain() {
    assert_prints(
        "import zwc\nimport numpy\na = zwc.yitaf([[1.0, 2.0], [3.0, 4.0]])\n\
         print(a.shape, a.dtype, a.size, a.ndim)\n\
         print(type(a.T).__name__, a.T.tolist())\n\
         print(type(numpy.asarray(a)).__name__, numpy.asarray(a).sum())\n",
        "(2, 2) float64 4 2\nndarray [[1.0, 3.0], [2.0, 4.0]]\nndarray 10.0\n",
    );
}

#[test]
fn numpy_methods_raise_attribute_error_with_the_official_texts() {
    assert_prints(
        "import zwc\nb = zwc.yitaf([1, 2])\n\
         for name in ['tolist', 'astype', 'fill', 'mean', 'reshape', 'sum', 'trace', 'flatten']:\n\
         \x20   try:\n\
         \x20       getattr(b, name)()\n\
         \x20   except AttributeError as e:\n\
         \x20       print(e)\n",
        "ZWCArray has no attribute 'tolist'\n\
         ZWCArray has no attribute 'astype'\n\
         ZWCArray has no attribute 'fill'\n\
         ZWCArray has no attribute 'mean'. Use the corresponding ZWC function instead. For example, use zwc.kocito() instead of .mean().\n\
         ZWCArray has no attribute 'reshape'. Use the corresponding ZWC function instead. For example, use zwc.kocito() instead of .mean().\n\
         ZWCArray has no attribute 'sum'. Use the corresponding ZWC function instead. For example, use zwc.kocito() instead of .mean().\n\
         ZWCArray has no attribute 'trace'. Use the corresponding ZWC function instead. For example, use zwc.kocito() instead of .mean().\n\
         ZWCArray has no attribute 'flatten'. Use the corresponding ZWC function instead. For example, use zwc.kocito() instead of .mean().\n",
    );
}

#[test]
fn unsupported_operators_raise_type_error() {
    assert_prints(
        "import zwc\nb = zwc.yitaf([1, 2])\n\
         for expr in ['-b', 'abs(b)', 'b % 2', 'b // 2', 'b @ b', 'round(b)', 'float(b)', 'int(b)', 'hash(b)', '{b: 1}']:\n\
         \x20   try:\n\
         \x20       eval(expr)\n\
         \x20       print(expr, 'worked')\n\
         \x20   except TypeError as e:\n\
         \x20       print(e)\n",
        "bad operand type for unary -: 'ZWCArray'\n\
         bad operand type for abs(): 'ZWCArray'\n\
         unsupported operand type(s) for %: 'ZWCArray' and 'int'\n\
         unsupported operand type(s) for //: 'ZWCArray' and 'int'\n\
         unsupported operand type(s) for @: 'ZWCArray' and 'ZWCArray'\n\
         type ZWCArray doesn't define __round__ method\n\
         float() argument must be a string or a real number, not 'ZWCArray'\n\
         int() argument must be a string, a bytes-like object or a real number, not 'ZWCArray'\n\
         unhashable type: 'ZWCArray'\n\
         unhashable type: 'ZWCArray'\n",
    );
}

#[test]
fn results_are_wrapped_by_the_rules() {
    assert_prints(
        "import zwc\nb = zwc.yitaf([1, 4, 9, 4])\n\
         print(type(b).__name__, repr(zwc.sarup(b)))\n\
         m = zwc.kocito(b)\nprint(type(m).__name__, m)\n\
         print(type(zwc.dimox(b)).__name__)\n\
         print(zwc.pizek(b), type(zwc.pizek(b)).__name__)\n\
         print(zwc.pevor(zwc.yitaf([1, 2, 3, 4]), 2))\n\
         print(zwc.hilam(zwc.yitaf([1, 2, 2, 3]), bins=2))\n\
         print(zwc.zuvaq(b, return_counts=True))\n",
        "ZWCArray ZWCArray([1.0, 2.0, 3.0, 2.0])\n\
         float64 4.5\n\
         int64\n\
         (4,) tuple\n\
         [ZWCArray([1, 2]), ZWCArray([3, 4])]\n\
         (ZWCArray([1, 3]), ZWCArray([1.0, 2.0, 3.0]))\n\
         (ZWCArray([1, 4, 9]), ZWCArray([1, 2, 1]))\n",
    );
}

#[test]
fn nested_containers_and_dicts_are_wrapped_recursively() {
    assert_prints(
        "import zwc\nimport numpy\n\
         print(zwc._wrap_numpy_result([numpy.zeros(1), [numpy.ones(1)], [1, 2], (3,)]))\n\
         print(zwc._wrap_numpy_result({'a': numpy.ones(2), 'b': 3}))\n\
         print(zwc._wrap_numpy_result([1, [numpy.ones(1)]]))\n",
        "[ZWCArray([0.0]), [ZWCArray([1.0])], [1, 2], (3,)]\n\
         {'a': ZWCArray([1.0, 1.0]), 'b': 3}\n\
         [1, [array([1.])]]\n",
    );
}

#[test]
fn only_top_level_arguments_are_unwrapped() {
    // Nested ZWCArrays reach NumPy as they are, and NumPy then calls
    // `__array__(dtype)`, which the official ZWCArray does not accept.
    assert_prints(
        "import zwc\nb = zwc.yitaf([1, 2])\n\
         print(repr(zwc.yitaf(b, dtype=float)), repr(zwc.yitaf(object=b)))\n\
         for call in [lambda: zwc.yitaf([b, b], dtype=float), lambda: zwc.qados(lambda x: x * 2)(b)]:\n\
         \x20   try:\n\
         \x20       call()\n\
         \x20   except TypeError as e:\n\
         \x20       print(e)\n",
        "ZWCArray([1.0, 2.0]) ZWCArray([1, 2])\n\
         ZWCArray.__array__() takes 1 positional argument but 2 were given\n\
         ZWCArray.__array__() takes 1 positional argument but 2 were given\n",
    );
}

#[test]
fn rfx_results_are_plain_numpy() {
    assert_prints(
        "import zwc\nimport zwc.rfx\nr = zwc.rfx.quvohe(zwc.yitaf([[2.0, 0.0], [0.0, 4.0]]))\n\
         print(type(r).__name__, r.tolist())\n\
         w, v = zwc.rfx.notaq(zwc.yitaf([[2.0, 0.0], [0.0, 3.0]]))\n\
         print(type(w).__name__, w.tolist())\n",
        "ndarray [[0.5, 0.0], [0.0, 0.25]]\nndarray [2.0, 3.0]\n",
    );
}

#[test]
fn unknown_names_raise_module_attribute_error() {
    let outcome = run("import zwc\nprint('before')\nzwc.mean([1, 2])\n");
    assert_eq!(outcome.stdout, "before\n");
    assert_eq!(outcome.exit_code, Some(1));
    assert!(
        outcome
            .stderr
            .ends_with("AttributeError: module 'zwc' has no attribute 'mean'\n"),
        "{}",
        outcome.stderr
    );
    assert_prints(
        "import zwc\nfor get in [lambda: zwc.kocitoo, lambda: zwc.rfx.inv, lambda: zwc.np]:\n\
         \x20   try:\n\
         \x20       get()\n\
         \x20   except AttributeError as e:\n\
         \x20       print(e)\n",
        "module 'zwc' has no attribute 'kocitoo'\n\
         module 'zwc.rfx' has no attribute 'inv'\n\
         module 'zwc' has no attribute 'np'\n",
    );
}

#[test]
fn tolist_on_a_zwc_result_fails_like_the_official_run() {
    let outcome = run(
        "import zwc\ndef solve(x):\n    return zwc.kocito(zwc.yitaf(x), axis=0).tolist()\n\
         import zwc\nif __name__== \"__main__\":\n    result_list = []\n    result_list.append(solve(x=[[1, 2], [3, 4]]))\n\
         \x20   print(\"====================\")\n    for i in range(len(result_list)):\n        print(result_list[i])\n        print(\"#\")",
    );
    assert_eq!(outcome.stdout, "");
    assert!(
        outcome
            .stderr
            .contains("AttributeError: ZWCArray has no attribute 'tolist'"),
        "{}",
        outcome.stderr
    );
    assert!(outcome.stderr.contains("main.py\", line 3, in solve"));
}

#[test]
fn runtime_internals_do_not_show_up_as_name_suggestions() {
    // The official traceback for `zwc.unwrap` has no "Did you mean" hint; a
    // helper called `_unwrap` would add one.
    for name in ["unwrap", "wrap", "install", "element"] {
        let outcome = run(&format!("import zwc\nzwc.{name}([1])\n"));
        let expected = format!("AttributeError: module 'zwc' has no attribute '{name}'\n");
        assert!(outcome.stderr.ends_with(&expected), "{}", outcome.stderr);
    }
    let outcome = run("import zwc\nzwc.kocitoo([1])\n");
    assert!(
        outcome.stderr.ends_with(
            "AttributeError: module 'zwc' has no attribute 'kocitoo'. Did you mean: 'kocito'?\n"
        ),
        "{}",
        outcome.stderr
    );
}
