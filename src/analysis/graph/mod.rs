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
                      "isnan": "sutice" },
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
}
