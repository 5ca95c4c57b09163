//! The dependency graph of a solution: which value is computed from which, for the entry
//! function and the helpers next to it, with the kind of value each one is (ZWCArray,
//! NumPy ndarray from `zwc.rfx`, plain Python, number). One walk over the parsed code
//! builds the graph and finds the `array_method` misuses (NumPy methods, attributes and
//! operators on a ZWCArray), since those need the kinds the walk infers.
//!
//! Its parts, each depending only on those listed after it:
//! - `statements`: [`GraphBuilder`], the walk of functions, bindings, returns and control
//!   flow;
//! - `expressions`: the walk of expressions, which adds the nodes calls and bindings make;
//! - `findings`: the misuses the walk reports, and how sure each is (guards, `try`);
//! - `truth`: conditions the kinds decide (`hasattr`/`isinstance` of a sure ZWCArray);
//! - `kinds`: kind inference, rules on kinds and syntax alone, and [`EntryArgs`], the
//!   kinds the test cases pass to the entry function;
//! - `numpy_functions`: what NumPy functions give, by name (reductions, ufuncs, shapes);
//! - `finish`: passes over the walked graph (module-level nodes dropped; zwc calls that
//!   reach a return, or that nothing uses);
//! - `dep_graph`: the graph as data ([`DepGraph`]), what every view reads.

mod dep_graph;
mod expressions;
mod findings;
mod finish;
mod kinds;
mod numpy_functions;
mod statements;
mod truth;

pub use dep_graph::{DepGraph, FunctionInfo, GraphEdge, GraphNode, NodeKind, ValueKind};
pub use kinds::EntryArgs;
pub use statements::GraphBuilder;

#[cfg(test)]
mod tests {
    //! The rules issue 22's runtime oracle asked for, each on a snippet that fails without it.

    use crate::analysis::{FindingKind, Severity, analyze_code};
    use crate::model::{ApiMap, TestCase};

    fn api() -> ApiMap {
        ApiMap::from_mappings_json(&serde_json::json!({
            "main": { "array": "yitaf", "cov": "jutedi", "concatenate": "simek",
                      "convolve": "lexic", "diagflat": "hosiki", "mean": "kocito",
                      "heaviside": "wipolil", "sqrt": "rijufi", "block": "dolab",
                      "unique": "yarimo", "meshgrid": "nasavob", "logical_xor": "qeyug",
                      "isnan": "sutice", "full_like": "bonete", "expand_dims": "nolola",
                      "take": "neyop", "stack": "megim", "broadcast_to": "badewap",
                      "arcsinh": "junez", "std": "fatohe", "sort": "qagaduj",
                      "union1d": "cofid", "transpose": "zahos", "gradient": "wetosa",
                      "correlate": "monomug", "argmax": "gerud", "real": "dujuj",
                      "diff": "kemuro" },
            "linalg": {}
        }))
        .expect("mapping")
    }

    /// The severities of the `array_method` findings of `def f(a):` + `body`, on one case.
    fn severities(body: &str, input: &str) -> Vec<Severity> {
        let code = format!("import zwc\ndef f(a):\n{body}");
        let cases = [TestCase {
            input: input.to_string(),
            output: "0".to_string(),
        }];
        analyze_code(&code, &api(), None, Some(&cases), 1)
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::ArrayMethod)
            .map(|f| f.severity)
            .collect()
    }

    use Severity::{Error, Possible};

    /// The severities of the `array_method` findings of `code` on these cases.
    fn severities_of(code: &str, inputs: &[&str]) -> Vec<Severity> {
        let cases: Vec<TestCase> = inputs
            .iter()
            .map(|i| TestCase {
                input: i.to_string(),
                output: "0".to_string(),
            })
            .collect();
        analyze_code(code, &api(), None, Some(&cases), 1)
            .findings
            .iter()
            .filter(|f| f.kind == FindingKind::ArrayMethod)
            .map(|f| f.severity)
            .collect()
    }

    #[test]
    fn always_array_results_stay_zwc_arrays_under_a_dimension_test() {
        // `np.cov` of one variable is a 0-d ndarray, which zwc wraps: `float()` fails.
        let body = "    c = zwc.jutedi(zwc.yitaf(a))\n    if c.ndim == 0:\n        return float(c)\n    return c\n";
        assert_eq!(severities(body, "a=[[1.0, 2.0, 3.0]]"), vec![Error]);
        // Even on numbers, `np.convolve` gives an array.
        let body = "    return zwc.lexic(zwc.yitaf(a), zwc.yitaf(a)).sum()\n";
        assert_eq!(severities(body, "a=1.0"), vec![Error]);
        let body = "    r = zwc.simek(a)\n    return r.tolist() if r.ndim == 1 else r.item()\n";
        assert_eq!(severities(body, "a=[[1, 2], [3]]"), vec![Error, Error]);
    }

    #[test]
    fn known_dimensions_mean_an_array_under_a_dimension_test() {
        // A ufunc on a list one deep gives a 1-d array, never a scalar.
        let body = "    r = zwc.wipolil(a, 0.5)\n    if r.size == 1:\n        return float(r)\n    return r\n";
        assert_eq!(severities(body, "a=[1.0]"), vec![Error]);
        // Only guessed to be an array: the test may be about a NumPy scalar.
        let body =
            "    r = zwc.rijufi(a)\n    if r.size == 1:\n        return float(r)\n    return r\n";
        assert_eq!(severities(body, "a=[1.0]").len(), 1);
        assert_ne!(
            severities(
                "    r = zwc.rijufi(a, b)\n    if r.size == 1:\n        return float(r)\n    return r\n",
                "a=1.0"
            ),
            vec![Error]
        );
    }

    #[test]
    fn a_failed_dimension_test_proves_an_array() {
        // Where `len(r.shape) == 0` failed, `r` has dimensions: not a NumPy scalar.
        let body = "    r = zwc.qeyug(a, a)\n    if len(r.shape) == 0:\n        return float(r)\n    return r.tolist()\n";
        assert_eq!(severities(body, "a=True"), vec![Possible, Error]);
        let body = "    r = zwc.qeyug(a, a)\n    return r.ndim > 0 and r.tolist()\n";
        assert_eq!(severities(body, "a=True"), vec![Error]);
    }

    #[test]
    fn rows_of_arrays_of_known_or_fixed_dimensions_are_arrays() {
        // `np.diagflat` is always 2-d: its rows are arrays.
        let body = "    return [abs(x) for x in zwc.hosiki(a)]\n";
        assert_eq!(severities(body, "a=[1, 2]"), vec![Error]);
        // `np.block` of a list three deep has two dimensions or more.
        let body = "    return [float(x) for x in zwc.dolab(a)]\n";
        assert_eq!(severities(body, "a=[[[1]], [[2]]]"), vec![Error]);
        // A mean along an axis of a 3-d array is 2-d.
        let body = "    m = zwc.kocito(zwc.yitaf(a), axis=0)\n    return [float(x) for x in m]\n";
        assert_eq!(severities(body, "a=[[[1, 2]], [[3, 4]]]"), vec![Error]);
        // `float('nan')` and `1+2j` in an input are numbers: the depth is known.
        let body = "    return [abs(x) for x in zwc.sutice(zwc.yitaf(a))]\n";
        assert_eq!(
            severities(body, "a=[[1.0, float('nan')], [1+2j, 2.0]]"),
            vec![Error]
        );
    }

    #[test]
    fn elements_of_arrays_of_unknown_dimensions_may_be_arrays() {
        let body = "    r = zwc.rijufi(zwc.yitaf(a))\n    return [-x for x in r]\n";
        // The cases disagree on the depth: rows or numbers.
        let code = format!("import zwc\ndef f(a):\n{body}");
        let cases: Vec<TestCase> = ["a=[1, 2]", "a=[[1], [2]]"]
            .iter()
            .map(|i| TestCase {
                input: i.to_string(),
                output: "0".to_string(),
            })
            .collect();
        let found = analyze_code(&code, &api(), None, Some(&cases), 1).findings;
        let sev: Vec<_> = found
            .iter()
            .filter(|f| f.kind == FindingKind::ArrayMethod)
            .map(|f| f.severity)
            .collect();
        assert_eq!(sev, vec![Possible]);
        // A 1-d array's elements are numbers: nothing to find.
        assert_eq!(severities(body, "a=[1, 2]"), vec![]);
    }

    #[test]
    fn unique_with_a_positional_flag_and_meshgrid_of_numbers_are_tuples() {
        // `np.unique(a, b)`: `b` is `return_index`, so the result may be a tuple.
        let body = "    return zwc.yarimo(a, a).tolist()\n";
        assert_eq!(severities(body, "a=[1, 2]"), vec![]);
        // `np.meshgrid` of 0-d arrays still gives arrays.
        let body = "    x, y = zwc.nasavob(zwc.yitaf(a), zwc.yitaf(a))\n    return x.tolist()\n";
        assert_eq!(severities(body, "a=1"), vec![Error]);
    }

    #[test]
    fn helpers_called_with_values_that_may_be_arrays_are_walked_with_them() {
        // A ufunc of inputs that are numbers in some cases: maybe a ZWCArray, in the helper.
        let code = "import zwc\ndef f(a):\n    return _h(zwc.qeyug(a, a))\ndef _h(v):\n    return v.tolist()\n";
        assert_eq!(severities_of(code, &["a=True", "a=[1, 0]"]), vec![Possible]);
    }

    #[test]
    fn shape_keeping_and_axis_adding_functions_have_known_dimensions() {
        // `np.full_like` and `np.transpose` keep the dimensions: rows of a 2-d one are arrays.
        let body =
            "    r = zwc.bonete(zwc.yitaf(a), 0) * 1.5\n    return [round(x, 2) for x in r]\n";
        assert_eq!(severities(body, "a=[[1, 2], [3, 4]]"), vec![Error]);
        assert_eq!(severities(body, "a=[1, 2]"), vec![]);
        let body = "    return [x.tolist() for x in zwc.zahos(a, (1, 2, 0))]\n";
        assert_eq!(severities(body, "a=[[[1, 2]], [[3, 4]]]"), vec![Error]);
        // `np.expand_dims(a, axis=1)` of a 1-d array is 2-d (of a 0-d one, 1-d: numbers).
        let body = "    return [-x for x in zwc.nolola(zwc.yitaf(a), axis=1)]\n";
        assert_eq!(severities(body, "a=[1, 2]"), vec![Error]);
        assert_ne!(severities(body, "a=1"), vec![Error]);
        // `np.take(a, idx, axis=2)` of a 3-d array with a 1-d index is 3-d.
        let body = "    r = zwc.neyop(zwc.yitaf(a), zwc.yitaf([0]), axis=2)\n    return [int(x) for x in r]\n";
        assert_eq!(severities(body, "a=[[[1, 2]], [[3, 4]]]"), vec![Error]);
        // With a number for index, the axis goes: a 2-d array gives a 1-d one, of numbers.
        let body = "    r = zwc.neyop(zwc.yitaf(a), 0, axis=1)\n    return [int(x) for x in r]\n";
        assert_eq!(severities(body, "a=[[1, 2], [3, 4]]"), vec![]);
    }

    #[test]
    fn depths_that_differ_but_are_all_two_or_more_give_arrays_of_two_or_more() {
        let code =
            "import zwc\ndef f(a):\n    return [abs(x) for x in zwc.megim(a, axis=0) * 1.5]\n";
        assert_eq!(
            severities_of(code, &["a=[[1, 2], [3, 4]]", "a=[[[1]], [[2]]]"]),
            vec![Error]
        );
        // One case one deep: rows or numbers.
        assert_eq!(
            severities_of(code, &["a=[1, 2]", "a=[[[1]], [[2]]]"]),
            vec![Possible]
        );
    }

    #[test]
    fn more_functions_always_give_arrays_and_empty_inputs_are_one_deep() {
        // `np.broadcast_to` gives an array even for a 0-d shape: never a NumPy scalar.
        let body = "    r = zwc.badewap(zwc.yitaf(a), [2, 2]) * 1.02\n    if r.size == 1:\n        return float(r)\n    return r\n";
        assert_eq!(severities(body, "a=[1.0]"), vec![Error]);
        // `[]` is one deep, as `np.array([])`: a ufunc of it is a 1-d array.
        let code = "import zwc\ndef f(a):\n    r = zwc.junez(zwc.yitaf(a))\n    if r.size == 1:\n        return float(r)\n    return r\n";
        assert_eq!(severities_of(code, &["a=[1.0]", "a=[]"]), vec![Error]);
        // `np.union1d` is flat whatever it is given.
        let code = "import zwc\ndef f(a, b):\n    return zwc.cofid(a, b).tolist()\n";
        assert_eq!(
            severities_of(code, &["a=[1], b=[]", "a=2, b=[[3]]"]),
            vec![Error]
        );
        // A reduction along `axis=k`, every case passing a number for `k`, of a 2-d input.
        let code = "import zwc\ndef f(a, k):\n    r = zwc.fatohe(a, axis=k) * 1.02\n    if r.size == 1:\n        return r.item()\n    return r\n";
        assert_eq!(
            severities_of(code, &["a=[[1, 2], [3, 4]], k=1"]),
            vec![Error]
        );
        assert_ne!(
            severities_of(code, &["a=[[1, 2], [3, 4]], k=None"]),
            vec![Error]
        );
    }

    #[test]
    fn lists_and_tuples_the_code_builds_hold_what_was_put_in() {
        // A list of sorted arrays, built by `append` in a loop, then iterated or indexed.
        let body = "    out = []\n    for m in a:\n        out.append(zwc.qagaduj(zwc.yitaf(m)))\n    return [-x for x in out]\n";
        assert_eq!(severities(body, "a=[[1, 2], [3]]"), vec![Error]);
        let body = "    out = []\n    for m in a:\n        out.append(zwc.qagaduj(zwc.yitaf(m)))\n    res = []\n    for i in range(len(out)):\n        x = out[i]\n        res.append(abs(x))\n    return res\n";
        assert_eq!(severities(body, "a=[[1, 2], [3]]"), vec![Error]);
        // A tuple display of arrays.
        let body = "    b = zwc.yitaf(a)\n    return [-x for x in (b, b * 2)]\n";
        assert_eq!(severities(body, "a=[1, 2]"), vec![Error]);
        // Numbers and arrays: maybe an array.
        let body = "    b = zwc.yitaf(a)\n    return [float(x) for x in [1, b]]\n";
        assert_eq!(severities(body, "a=[1, 2]"), vec![Possible]);
        // Numbers only, or something else put in later: nothing certain.
        let body = "    out = [zwc.yitaf(a)]\n    out[0] = 1\n    return [-x for x in out]\n";
        assert_ne!(severities(body, "a=[1, 2]"), vec![Error]);
        let body = "    out = []\n    out.append(zwc.yitaf(a))\n    out.extend(a)\n    return [-x for x in out]\n";
        assert_ne!(severities(body, "a=[1, 2]"), vec![Error]);
        // A comprehension of arrays.
        let body = "    rows = [zwc.yitaf(r) for r in a]\n    return [x.tolist() for x in rows]\n";
        assert_eq!(severities(body, "a=[[1], [2]]"), vec![Error]);
    }

    #[test]
    fn sorts_and_gradients_along_an_axis_keep_the_dimensions() {
        let body = "    return [float(x) for x in zwc.qagaduj(a, axis=1)]\n";
        assert_eq!(severities(body, "a=[[2, 1], [4, 3]]"), vec![Error]);
        // Flattened with `axis=None`: numbers.
        let body = "    return [float(x) for x in zwc.qagaduj(a, axis=None)]\n";
        assert_eq!(severities(body, "a=[[2, 1], [4, 3]]"), vec![]);
        let body =
            "    g = zwc.wetosa(zwc.yitaf(a), 0.5, axis=1) * 2\n    return [float(x) for x in g]\n";
        assert_eq!(severities(body, "a=[[2.0, 1.0], [4.0, 3.0]]"), vec![Error]);
    }

    #[test]
    fn the_first_element_of_a_mixed_list_is_met_first() {
        // `[array, int]`: the first iteration meets the array, and `float()` raises there.
        let body = "    c = zwc.monomug(a, a, mode='full')\n    r = [c, int(zwc.gerud(c))]\n    out = []\n    for i in range(len(r)):\n        x = r[i]\n        out.append(float(x))\n    return out\n";
        assert_eq!(severities(body, "a=[1.0, 2.0]"), vec![Error]);
        let body = "    c = zwc.yitaf(a)\n    return [float(x) for x in [c, 1]]\n";
        assert_eq!(severities(body, "a=[1.0, 2.0]"), vec![Error]);
        // A number first: the array comes later, maybe after a number was fine.
        let body = "    c = zwc.yitaf(a)\n    return [float(x) for x in [1, c]]\n";
        assert_eq!(severities(body, "a=[1.0, 2.0]"), vec![Possible]);
        // Behind a branch or a short circuit, the first iteration may not run the site.
        let body = "    c = zwc.yitaf(a)\n    out = []\n    for x in [c, 1]:\n        if out:\n            out.append(float(x))\n        out.append(0)\n    return out\n";
        assert_eq!(severities(body, "a=[1.0, 2.0]"), vec![Possible]);
        let body =
            "    c = zwc.yitaf(a)\n    return [k and float(x) for k, x in enumerate([c, 1])]\n";
        assert_ne!(severities(body, "a=[1.0, 2.0]"), vec![Error]);
        let body = "    c = zwc.yitaf(a)\n    out = []\n    for x in [c, 1]:\n        out.append(out and float(x))\n    return out\n";
        assert_eq!(severities(body, "a=[1.0, 2.0]"), vec![Possible]);
        // The index rebound before use: not the first element any more.
        let body = "    c = zwc.yitaf(a)\n    r = [c, 1]\n    out = []\n    for i in range(len(r)):\n        i = 1\n        out.append(float(r[i]))\n    return out\n";
        assert_ne!(severities(body, "a=[1.0, 2.0]"), vec![Error]);
    }

    #[test]
    fn real_parts_of_arrays_are_arrays_even_of_0_d_ones() {
        // A case passes a number: `zwc.yitaf(v)` may be 0-d, and `np.real` of it is still
        // a 0-d ndarray, which zwc wraps.
        let code = "import zwc\ndef f(v):\n    return zwc.dujuj(zwc.yitaf(v)).copy()\n";
        assert_eq!(severities_of(code, &["v=[1+2j]", "v=5"]), vec![Error]);
        // Of a value that may be a number, a number maybe.
        let code = "import zwc\ndef f(v):\n    return zwc.dujuj(v).copy()\n";
        assert_ne!(severities_of(code, &["v=[1+2j]", "v=5"]), vec![Error]);
    }

    #[test]
    fn diffs_reductions_over_axis_tuples_and_enumerated_elements() {
        // `np.diff(a, axis=1)` of a 2-d input is 2-d, and `enumerate` yields its rows.
        let body =
            "    d = zwc.kemuro(a, axis=1)\n    return {i: float(m) for i, m in enumerate(d)}\n";
        assert_eq!(severities(body, "a=[[1, 2], [3, 4]]"), vec![Error]);
        assert_eq!(severities(body, "a=[1, 2, 4]"), vec![]);
        // A mean over two axes of a 3-d array is 1-d.
        let body = "    r = zwc.kocito(zwc.yitaf(a), axis=(1, 2)) * 1.5\n    if r.size == 1:\n        return float(r)\n    return r\n";
        assert_eq!(severities(body, "a=[[[1, 2]], [[3, 4]]]"), vec![Error]);
    }
}
