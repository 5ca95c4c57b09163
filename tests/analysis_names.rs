//! Every finding kind, with the alias forms, on snippets of our own and a small API map
//! (a few real zwc/NumPy pairs).

use sebx::analysis::{CodeAnalysis, Finding, FindingKind, Severity, analyze_code};
use sebx::model::ApiMap;
use sebx::model::TestCase;
use serde_json::json;

fn api() -> ApiMap {
    ApiMap::from_mappings_json(&json!({
        "main": {
            "mean": "kocito",
            "array": "yitaf",
            "sum": "bapu",
            "reshape": "lomefa",
            "astype": "nakejus",
            "negative": "sebori",
            "mod": "tawuke",
            "matmul": "pirote",
            "abs": "falekef",
            "round": "gonudi",
            "ravel": "himosa",
            "sqrt": "rijufi"
        },
        "linalg": { "inv": "quvohe", "det": "zigecit" }
    }))
    .expect("mapping")
}

fn analyze(code: &str) -> CodeAnalysis {
    analyze_code(code, &api(), None, None, 1)
}

fn of_kind(a: &CodeAnalysis, kind: FindingKind) -> Vec<&Finding> {
    a.findings.iter().filter(|f| f.kind == kind).collect()
}

fn names(a: &CodeAnalysis, kind: FindingKind) -> Vec<String> {
    of_kind(a, kind).iter().map(|f| f.name.clone()).collect()
}

#[test]
fn numpy_imports_static_and_dynamic() {
    let a = analyze("import numpy as np\nimport zwc\ndef f(a):\n    return zwc.kocito(a)\n");
    let f = of_kind(&a, FindingKind::NumpyImport);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].line, f[0].col), (1, 1));
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].name, "import numpy as np");

    for code in [
        "def f(a):\n    np = __import__('numpy')\n    return a\n",
        "import importlib\ndef f(a):\n    np = importlib.import_module('numpy')\n    return a\n",
    ] {
        // A loophole: the official check does not see it (issue 29).
        let a = analyze(code);
        assert!(of_kind(&a, FindingKind::NumpyImport).is_empty(), "{code}");
        let f = of_kind(&a, FindingKind::NumpyBackdoor);
        assert_eq!(f.len(), 1, "{code}");
        assert_eq!(f[0].severity, Severity::Warning, "{code}");
        assert!(f[0].message.contains("does not see"), "{}", f[0].message);
    }
    let a = analyze("def f(a):\n    from numpy.linalg import inv\n    return inv(a)\n");
    assert_eq!(of_kind(&a, FindingKind::NumpyImport).len(), 1);
}

#[test]
fn numpy_attributes_through_any_alias() {
    let a = analyze("import numpy as np\ndef f(a):\n    return np.mean(a)\n");
    let f = of_kind(&a, FindingKind::NumpyAttribute);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].name, "np.mean");
    assert_eq!(f[0].suggestion.as_deref(), Some("zwc.kocito"));
    assert_eq!((f[0].line, f[0].col), (3, 12));

    let a = analyze("import numpy as npy\ndef f(a):\n    return npy.linalg.inv(a)\n");
    let f = of_kind(&a, FindingKind::NumpyAttribute);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].name, "npy.linalg.inv");
    assert_eq!(f[0].suggestion.as_deref(), Some("zwc.rfx.quvohe"));

    // A name imported from numpy, used bare.
    let a = analyze("from numpy import sum as total\ndef f(a):\n    return total(a)\n");
    let f = of_kind(&a, FindingKind::NumpyAttribute);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].name, "total");
    assert_eq!(f[0].suggestion.as_deref(), Some("zwc.bapu"));

    // `np.` without any import still reads as NumPy (a NameError at run time).
    let a = analyze("def f(a):\n    return np.sqrt(a)\n");
    assert_eq!(names(&a, FindingKind::NumpyAttribute), vec!["np.sqrt"]);
    // Constants get their plain-Python replacement; a NumPy-2 top-level alias of a
    // linalg function gets the rfx name.
    let a = analyze("import numpy as np\ndef f(a):\n    return np.pi * np.inv(a)\n");
    let f = of_kind(&a, FindingKind::NumpyAttribute);
    assert_eq!(f[0].suggestion.as_deref(), Some("math.pi"));
    assert_eq!(f[1].suggestion.as_deref(), Some("zwc.rfx.quvohe"));

    // `np` assigned in the code is whatever it was assigned.
    let a = analyze("import zwc\nnp = zwc\ndef f(a):\n    return np.kocito(a)\n");
    assert!(
        of_kind(&a, FindingKind::NumpyAttribute).is_empty(),
        "{:?}",
        a.findings
    );
    // `np` bound to zwc is zwc, not NumPy.
    let a = analyze("import zwc as np\ndef f(a):\n    return np.kocito(a)\n");
    assert!(of_kind(&a, FindingKind::NumpyAttribute).is_empty());
    assert!(a.errors().next().is_none(), "{:?}", a.findings);
}

#[test]
fn numpy_names_on_zwc_get_the_real_zwc_name() {
    let cases = [
        (
            "import zwc\ndef f(a):\n    return zwc.mean(a)\n",
            "zwc.mean",
            Some("zwc.kocito"),
        ),
        (
            "import zwc as z\ndef f(a):\n    return z.sum(a)\n",
            "z.sum",
            Some("zwc.bapu"),
        ),
        // `round_`, an old alias of `round`: the zwc name of the function it aliases.
        (
            "import zwc\ndef f(a):\n    return zwc.round_(a)\n",
            "zwc.round_",
            Some("zwc.gonudi"),
        ),
        (
            "import zwc\ndef f(a):\n    return zwc.linalg.inv(a)\n",
            "zwc.linalg.inv",
            Some("zwc.rfx.quvohe"),
        ),
        (
            "import zwc\ndef f(a):\n    return zwc.rfx.mean(a)\n",
            "zwc.rfx.mean",
            Some("zwc.kocito"),
        ),
        (
            "from zwc import rfx\ndef f(a):\n    return rfx.inv(a)\n",
            "rfx.inv",
            Some("zwc.rfx.quvohe"),
        ),
        (
            "import zwc\ndef f(a):\n    return zwc.pi * a\n",
            "zwc.pi",
            Some("math.pi"),
        ),
        (
            "import zwc\ndef f(a):\n    return zwc.int32(a)\n",
            "zwc.int32",
            None,
        ),
    ];
    for (code, name, suggestion) in cases {
        let a = analyze(code);
        let f = of_kind(&a, FindingKind::NumpyNameOnZwc);
        assert_eq!(f.len(), 1, "{code}: {:?}", a.findings);
        assert_eq!(f[0].name, name, "{code}");
        assert_eq!(f[0].suggestion.as_deref(), suggestion, "{code}");
        assert_eq!(f[0].severity, Severity::Error);
    }
    // `from zwc import mean` is wrong at the import, and only reported once.
    let a = analyze("from zwc import mean\ndef f(a):\n    return mean(a)\n");
    let f = of_kind(&a, FindingKind::NumpyNameOnZwc);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].line, 1);
    assert_eq!(f[0].suggestion.as_deref(), Some("zwc.kocito"));
}

#[test]
fn unknown_zwc_names_suggest_the_closest_real_ones() {
    let a = analyze("import zwc\ndef f(a):\n    return zwc.kocitoo(a)\n");
    let f = of_kind(&a, FindingKind::UnknownZwcName);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].name, "zwc.kocitoo");
    let s = f[0].suggestion.as_deref().expect("a close name");
    assert!(s.starts_with("zwc.kocito (mean)"), "{s}");

    let a = analyze("import zwc as z\ndef f(a):\n    return z.rfx.quvoh(a)\n");
    let f = of_kind(&a, FindingKind::UnknownZwcName);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].name, "z.rfx.quvoh");
    assert!(
        f[0].suggestion
            .as_deref()
            .is_some_and(|s| s.starts_with("zwc.rfx.quvohe (linalg.inv)")),
        "{:?}",
        f[0].suggestion
    );

    // A linear-algebra name on the top level: the rfx function comes first.
    let a = analyze("import zwc\ndef f(a):\n    return zwc.inv(a)\n");
    let f = of_kind(&a, FindingKind::UnknownZwcName);
    assert_eq!(f.len(), 1);
    assert!(
        f[0].suggestion
            .as_deref()
            .is_some_and(|s| s.starts_with("zwc.rfx.quvohe (linalg.inv)")),
        "{:?}",
        f[0].suggestion
    );

    // Nothing close: no suggestion, still a finding.
    let a = analyze("import zwc\ndef f(a):\n    return zwc.qqqqqqqqqqqq(a)\n");
    let f = of_kind(&a, FindingKind::UnknownZwcName);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].suggestion, None);

    // Real names are not findings.
    let a = analyze("import zwc\ndef f(a):\n    return zwc.rfx.quvohe(zwc.yitaf(a))\n");
    assert!(a.findings.is_empty(), "{:?}", a.findings);
}

#[test]
fn array_methods_on_zwc_arrays() {
    let cases = [
        ("    return zwc.yitaf(a).tolist()\n", "tolist", None),
        (
            "    x = zwc.yitaf(a)\n    return x.mean()\n",
            "mean",
            Some("zwc.kocito"),
        ),
        (
            "    x = zwc.yitaf(a)\n    y = x * 2\n    return y.reshape(2, 2)\n",
            "reshape",
            Some("zwc.lomefa"),
        ),
        (
            "    return zwc.kocito(a, axis=0).astype(int)\n",
            "astype",
            Some("zwc.nakejus"),
        ),
        (
            "    return zwc.yitaf(a).flatten()\n",
            "flatten",
            Some("zwc.himosa"),
        ),
        (
            "    x = zwc.yitaf(a)\n    return -x\n",
            "unary -",
            Some("zwc.sebori"),
        ),
        (
            "    x = zwc.yitaf(a)\n    return x % 2\n",
            "%",
            Some("zwc.tawuke"),
        ),
        (
            "    x = zwc.yitaf(a)\n    return x @ x\n",
            "@",
            Some("zwc.pirote"),
        ),
        (
            "    return abs(zwc.yitaf(a))\n",
            "abs()",
            Some("zwc.falekef"),
        ),
        (
            "    return round(zwc.yitaf(a))\n",
            "round()",
            Some("zwc.gonudi"),
        ),
        (
            "    x = zwc.yitaf(a)\n    x %= 3\n    return x\n",
            "%",
            Some("zwc.tawuke"),
        ),
        (
            "    m, n = zwc.meshgrid_like(a), 1\n    return zwc.yitaf(a)[1:].tolist()\n",
            "tolist",
            None,
        ),
    ];
    for (body, name, suggestion) in cases {
        let code = format!("import zwc\ndef f(a):\n{body}");
        let a = analyze(&code);
        let f = of_kind(&a, FindingKind::ArrayMethod);
        assert_eq!(f.len(), 1, "{code}: {:?}", a.findings);
        assert_eq!(f[0].name, name, "{code}");
        assert_eq!(f[0].suggestion.as_deref(), suggestion, "{code}");
    }
}

#[test]
fn array_method_aliases_and_non_zwc_arrays() {
    // Through `from zwc import` and `import zwc as`.
    let a = analyze("from zwc import kocito\ndef f(a):\n    return kocito(a, axis=1).tolist()\n");
    assert_eq!(names(&a, FindingKind::ArrayMethod), vec!["tolist"]);
    let a = analyze("import zwc as z\ndef f(a):\n    return z.yitaf(a).sum()\n");
    let f = of_kind(&a, FindingKind::ArrayMethod);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].suggestion.as_deref(), Some("zwc.bapu"));

    // Not ZWCArrays: zwc.rfx results, `.T`, scalar reductions, plain lists, parameters.
    for body in [
        "    return zwc.rfx.quvohe(zwc.yitaf(a)).tolist()\n",
        "    return zwc.yitaf(a).T.tolist()\n",
        "    return zwc.kocito(a).item()\n",
        "    return zwc.rfx.zigecit(a).item()\n",
        "    return [1, 2].copy()\n",
        "    return a.tolist()\n",
        "    x = zwc.yitaf(a)\n    return x.shape, x.ndim, x.size, x.dtype\n",
        "    x = zwc.yitaf(a)\n    return float(zwc.rijufi(3.0)) + float(zwc.kocito(x))\n",
        "    from zwc import rfx\n    return rfx.quvohe(a).tolist()\n",
        "    x = zwc.yitaf(a)\n    return (x + 1) * 2 - x / 3\n",
    ] {
        let code = format!("import zwc\ndef f(a):\n{body}");
        let a = analyze(&code);
        assert!(
            of_kind(&a, FindingKind::ArrayMethod).is_empty(),
            "{code}: {:?}",
            a.findings
        );
    }
    // An element of an array whose dimensions are not known may be a row, a ZWCArray (the
    // runtime oracle saw such rows crash): possible, never an error.
    let a = analyze("import zwc\ndef f(a):\n    x = zwc.yitaf(a)\n    return x[0].tolist()\n");
    let f = of_kind(&a, FindingKind::ArrayMethod);
    assert_eq!(f.len(), 1, "{:?}", a.findings);
    assert_eq!(f[0].severity, Severity::Possible);
}

#[test]
fn off_task_functions_are_hints() {
    let selected = vec!["mean".to_string()];
    let code = "import zwc\ndef f(a):\n    x = zwc.yitaf(a)\n    return zwc.bapu(x) / zwc.kocito(x) + zwc.bapu(x)\n";
    let a = analyze_code(code, &api(), Some(&selected), None, 1);
    let f = of_kind(&a, FindingKind::OffTaskFunction);
    assert_eq!(f.len(), 1, "reported once per function: {f:?}");
    assert_eq!(f[0].name, "zwc.bapu");
    assert_eq!(f[0].severity, Severity::Hint);
    assert!(f[0].message.contains("np.sum"), "{}", f[0].message);
    assert!(a.errors().next().is_none());
    // NumPy aliases are the same function: `absolute` is `abs`.
    let selected = vec!["absolute".to_string()];
    let alias_code = "import zwc\ndef f(a):\n    return zwc.falekef(zwc.yitaf(a))\n";
    let a = analyze_code(alias_code, &api(), Some(&selected), None, 1);
    assert!(
        of_kind(&a, FindingKind::OffTaskFunction).is_empty(),
        "{:?}",
        a.findings
    );
    // Without the task's functions there is nothing to compare with.
    assert!(of_kind(&analyze(code), FindingKind::OffTaskFunction).is_empty());
}

#[test]
fn positions_in_code_and_response() {
    let a = analyze_code(
        "import zwc\n\ndef f(a):\n    return zwc.mean(a)\n",
        &api(),
        None,
        None,
        7,
    );
    let f = &a.findings[0];
    assert_eq!((f.line, f.col), (4, 12));
    assert_eq!((f.response_line, f.response_col), (10, 12));
}

#[test]
fn static_check_runs_on_the_assembled_program() {
    let cases = vec![TestCase {
        input: "a=[1, 2]".to_string(),
        output: "1.5".to_string(),
    }];
    let a = analyze_code(
        "import zwc\ndef f(a):\n    return zwc.yitaf(a)\n",
        &api(),
        None,
        Some(&cases),
        1,
    );
    let sc = a.static_check.expect("checked");
    assert_eq!(
        sc.official_error().as_deref(),
        Some("Failed: Meaningless calls")
    );
    // The graph marks the call the verdict hinges on.
    let hinges: Vec<_> = a.graph.nodes.iter().filter(|n| n.hinge).collect();
    assert_eq!(hinges.len(), 1);
    assert!(hinges[0].label.starts_with("zwc.yitaf"));
}

#[test]
fn unparsable_code_reports_where() {
    let a = analyze("def f(a)\n    return a\n");
    let e = a.parse_error.expect("syntax error");
    assert_eq!(e.line, 1);
    assert_eq!(e.message, "expected ':'");
    assert!(a.findings.is_empty());
    assert!(a.graph.nodes.is_empty());
}

#[test]
fn dynamically_imported_numpy_alias_is_tracked() {
    for code in [
        "import zwc\nnp2 = __import__('numpy')\ndef f(a):\n    return zwc.kocito(np2.asarray(a))\n",
        "import zwc, importlib\nnp2 = importlib.import_module('numpy')\ndef f(a):\n    return zwc.kocito(np2.asarray(a))\n",
    ] {
        let a = analyze(code);
        assert_eq!(
            names(&a, FindingKind::NumpyAttribute),
            vec!["np2.asarray".to_string()],
            "{code}"
        );
    }
}

/// The severities of the `array_method` findings in `body` (inside `def f(a):`, after
/// `helpers` at module level), in order.
fn array_severities(helpers: &str, body: &str) -> Vec<Severity> {
    let code = format!("import zwc\n{helpers}def f(a):\n{body}");
    array_method_severities(&analyze(&code))
}

fn array_method_severities(a: &CodeAnalysis) -> Vec<Severity> {
    of_kind(a, FindingKind::ArrayMethod)
        .iter()
        .map(|f| f.severity)
        .collect()
}

#[test]
fn array_misuse_is_an_error_only_when_the_value_is_surely_a_zwc_array() {
    use Severity::{Error, Possible};
    // Sure: a constructor, a zwc call on a list display or on a sure ZWCArray, slicing,
    // masking and indexing with a zwc call's array, arithmetic, a helper returning one.
    let sure = [
        ("", "    return zwc.yitaf(a).tolist()\n"),
        ("", "    return zwc.rijufi([1, 4, 9]).tolist()\n"),
        ("", "    xs = [1, 4]\n    return zwc.rijufi(xs).tolist()\n"),
        (
            "",
            "    x = zwc.yitaf(a)\n    y = zwc.rijufi(x)\n    return y.tolist()\n",
        ),
        ("", "    x = zwc.yitaf(a)\n    return x[1:].tolist()\n"),
        ("", "    x = zwc.yitaf(a)\n    return x[x > 1].tolist()\n"),
        (
            "",
            "    x = zwc.yitaf(a)\n    return x[zwc.rijufi(x) > 1].mean()\n",
        ),
        ("", "    x = zwc.yitaf(a)\n    return (x * 2).sum()\n"),
        ("", "    return float(zwc.yitaf(a))\n"),
        (
            "def g(a):\n    return zwc.yitaf(a)\n",
            "    return g(a).tolist()\n",
        ),
    ];
    for (helpers, body) in sure {
        assert_eq!(
            array_severities(helpers, body),
            vec![Error],
            "{helpers}{body}"
        );
    }
    // Possible: the argument may be a number (zwc then returns a NumPy scalar, where
    // `.item()` and `float()` work), or a handler catches the failure.
    let possible = [
        "    return zwc.rijufi(a).tolist()\n",
        "    return float(zwc.rijufi(a))\n",
        "    for v in a:\n        r = zwc.rijufi(v)\n        return r.item()\n",
        "    x = zwc.yitaf(a)\n    try:\n        return x.tolist()\n    except AttributeError:\n        return list(x)\n",
        "    x = zwc.yitaf(a)\n    try:\n        return x.tolist()\n    except:\n        return list(x)\n",
        "    x = zwc.yitaf(a)\n    if isinstance(x, mystery_type):\n        return x\n    else:\n        return x.tolist()\n",
    ];
    for body in possible {
        assert_eq!(array_severities("", body), vec![Possible], "{body}");
    }
    // Certain branches: a ZWCArray is no list and has no `tolist`, so the `else` runs for
    // certain (the runtime oracle, tests/analysis_oracle.rs, confirms these).
    for body in [
        "    x = zwc.yitaf(a)\n    if isinstance(x, list):\n        return x\n    else:\n        return x.tolist()\n",
        "    x = zwc.yitaf(a)\n    if hasattr(x, 'tolist'):\n        return x.tolist()\n    return x.item()\n",
        "    return zwc.yitaf(a).tolist() if hasattr(zwc.yitaf(a), 'tolist') else zwc.yitaf(a).item()\n",
    ] {
        assert!(
            array_severities("", body).contains(&Error),
            "{body}: {:?}",
            array_severities("", body)
        );
    }
    // No finding: a `hasattr` guard, numbers from iterating a list or a range, a
    // handler that does not catch the failure keeps it an error.
    for body in [
        "    x = zwc.yitaf(a)\n    return x.tolist() if hasattr(x, 'tolist') else list(x)\n",
        "    x = zwc.yitaf(a)\n    if hasattr(x, 'tolist'):\n        x = x.tolist()\n    return x\n",
        "    x = zwc.yitaf(a)\n    return hasattr(x, 'tolist') and x.tolist()\n",
        "    for v in [1, 4]:\n        return zwc.rijufi(v).item()\n",
        "    return [float(zwc.rijufi(i)) for i in range(3)]\n",
    ] {
        assert_eq!(array_severities("", body), vec![], "{body}");
    }
    assert_eq!(
        array_severities(
            "",
            "    x = zwc.yitaf(a)\n    try:\n        return x.tolist()\n    except ValueError:\n        return list(x)\n"
        ),
        vec![Error]
    );
}

/// The severities of the `array_method` findings in `code` analysed with one test case
/// whose input is `input`.
fn severities_with_input(code: &str, input: &str) -> Vec<Severity> {
    let cases = [TestCase {
        input: input.to_string(),
        output: "0".to_string(),
    }];
    array_method_severities(&analyze_code(code, &api(), None, Some(&cases), 1))
}

#[test]
fn what_the_test_cases_pass_decides_how_sure_a_finding_is() {
    use Severity::Error;
    let rows = "import zwc\ndef f(rows):\n    out = []\n    for r in rows:\n        out.append(zwc.rijufi(r).tolist())\n    return out\n";
    // Rows of a nested list are lists: the zwc call returns a ZWCArray.
    assert_eq!(
        severities_with_input(rows, "rows=[[1.0, 4.0], [9.0, 16.0]]"),
        vec![Error]
    );
    // Elements of a flat list are numbers: the call returns a NumPy scalar.
    assert_eq!(severities_with_input(rows, "rows=[1.0, 4.0]"), vec![]);
    // Positional inputs count too.
    assert_eq!(severities_with_input(rows, "[[1.0], [4.0]]"), vec![Error]);

    let plane = "import zwc\ndef f(a):\n    x = zwc.yitaf(a)\n    p = x[0]\n    return zwc.rijufi(p).tolist()\n";
    // Indexing a 3-D array gives a 2-D one; indexing a 1-D one gives a number.
    assert_eq!(
        severities_with_input(plane, "a=[[[1, 2], [3, 4]]]"),
        vec![Error]
    );
    assert_eq!(severities_with_input(plane, "a=[1, 2]"), vec![]);
    // The harness's `np.array(...)` input is a ZWCArray.
    let direct = "import zwc\ndef f(a):\n    return a.tolist()\n";
    assert_eq!(
        severities_with_input(direct, "a=np.array([1, 2])"),
        vec![Error]
    );
    assert_eq!(severities_with_input(direct, "a=[1, 2]"), vec![]);

    let number = "import zwc\ndef f(n):\n    return zwc.rijufi(n).item()\n";
    assert_eq!(severities_with_input(number, "n=4"), vec![]);
    assert_eq!(severities_with_input(number, "n=[1, 4]"), vec![Error]);
}
