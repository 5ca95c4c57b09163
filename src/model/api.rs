//! The zwc API: the qualified NumPy ↔ zwc name mapping, read from the user's
//! `api_doc.jsonl` (union of every row's `func_mapping`) or a `mappings.json`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// Qualified name mapping between NumPy and zwc, plus per-function docs when known.
///
/// Qualified names look like `np.mean` / `zwc.kocito` and `np.linalg.inv` / `zwc.rfx.quvohe`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApiMap {
    /// `np.mean` → `zwc.kocito`.
    pub numpy_to_zwc: BTreeMap<String, String>,
    /// `zwc.kocito` → `np.mean`.
    pub zwc_to_numpy: BTreeMap<String, String>,
    /// `zwc.kocito` → the rewritten doc text, where the API doc has one.
    pub docs: BTreeMap<String, String>,
}

/// Where a zwc function lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZwcModule {
    /// `zwc.<name>`, wrapping top-level `numpy.<name>`.
    Main,
    /// `zwc.rfx.<name>`, wrapping `numpy.linalg.<name>`.
    Linalg,
}

impl ApiMap {
    /// Loads an API doc (`.jsonl`) or a mappings file (`.json` with `main`/`linalg`).
    pub fn load(path: &Path) -> Result<ApiMap> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read API doc {}", path.display()))?;
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') && serde_json::from_str::<Value>(&text).is_ok() {
            let value: Value = serde_json::from_str(&text)?;
            if value.get("main").is_some() {
                return ApiMap::from_mappings_json(&value)
                    .with_context(|| format!("in {}", path.display()));
            }
        }
        ApiMap::from_api_doc_jsonl(&text).with_context(|| format!("in {}", path.display()))
    }

    /// Parses `api_doc.jsonl` text: the union of every row's `func_mapping`.
    pub fn from_api_doc_jsonl(text: &str) -> Result<ApiMap> {
        let mut map = ApiMap::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: Value = serde_json::from_str(line)
                .with_context(|| format!("line {}: not valid JSON", i + 1))?;
            let mapping = match row.get("func_mapping") {
                Some(Value::String(s)) => serde_json::from_str::<Value>(s)
                    .with_context(|| format!("line {}: `func_mapping` is not JSON", i + 1))?,
                Some(v @ Value::Object(_)) => v.clone(),
                _ => bail!("line {}: missing `func_mapping`", i + 1),
            };
            if let Some(obj) = mapping.as_object() {
                for (np, zwc) in obj {
                    if let Some(zwc) = zwc.as_str() {
                        map.insert(np, zwc);
                    }
                }
            }
            if let (Some(orig), Some(curr), Some(doc)) = (
                row.get("original_name").and_then(Value::as_str),
                row.get("curr_name").and_then(Value::as_str),
                row.get("rewritten_doc").and_then(Value::as_str),
            ) {
                let np_main = format!("np.{orig}");
                let np_linalg = format!("np.linalg.{orig}");
                let qualified = [format!("zwc.{curr}"), format!("zwc.rfx.{curr}")]
                    .into_iter()
                    .find(|z| {
                        map.zwc_to_numpy
                            .get(z)
                            .is_some_and(|n| *n == np_main || *n == np_linalg)
                    });
                if let Some(q) = qualified {
                    map.docs.insert(q, doc.to_string());
                }
            }
        }
        if map.numpy_to_zwc.is_empty() {
            bail!("no `func_mapping` entries found");
        }
        Ok(map)
    }

    /// Parses `mappings.json`: `{"main": {numpy: zwc}, "linalg": {numpy: zwc}}`.
    pub fn from_mappings_json(value: &Value) -> Result<ApiMap> {
        let mut map = ApiMap::default();
        for (section, np_prefix, zwc_prefix) in [
            ("main", "np.", "zwc."),
            ("linalg", "np.linalg.", "zwc.rfx."),
        ] {
            if let Some(obj) = value.get(section).and_then(Value::as_object) {
                for (np, zwc) in obj {
                    if let Some(zwc) = zwc.as_str() {
                        map.insert(&format!("{np_prefix}{np}"), &format!("{zwc_prefix}{zwc}"));
                    }
                }
            }
        }
        if map.numpy_to_zwc.is_empty() {
            bail!("no `main` or `linalg` mapping found");
        }
        Ok(map)
    }

    fn insert(&mut self, numpy: &str, zwc: &str) {
        self.numpy_to_zwc.insert(numpy.to_string(), zwc.to_string());
        self.zwc_to_numpy
            .entry(zwc.to_string())
            .or_insert_with(|| numpy.to_string());
    }

    /// Unqualified pairs (`kocito`, `mean`) of one module, for generating the runtime.
    pub fn module_pairs(&self, module: ZwcModule) -> Vec<(String, String)> {
        let (zp, np) = match module {
            ZwcModule::Main => ("zwc.", "np."),
            ZwcModule::Linalg => ("zwc.rfx.", "np.linalg."),
        };
        self.zwc_to_numpy
            .iter()
            .filter_map(|(z, n)| {
                let zs = z.strip_prefix(zp)?;
                let ns = n.strip_prefix(np)?;
                (!zs.contains('.') && !ns.contains('.')).then(|| (zs.to_string(), ns.to_string()))
            })
            .collect()
    }

    /// The NumPy name of a qualified zwc name (`zwc.kocito` → `np.mean`).
    pub fn numpy_name(&self, zwc_qualified: &str) -> Option<&str> {
        self.zwc_to_numpy.get(zwc_qualified).map(String::as_str)
    }

    /// The zwc name of a qualified NumPy name (`np.mean` → `zwc.kocito`); accepts `numpy.` too.
    /// A NumPy 2 alias the API does not map is the function it aliases (`np.trapezoid` is
    /// `np.trapz`'s zwc name; and the other way round), see [`NUMPY_ALIASES`].
    pub fn zwc_name(&self, numpy_qualified: &str) -> Option<&str> {
        let key = numpy_qualified
            .strip_prefix("numpy.")
            .map(|rest| format!("np.{rest}"));
        let key = key.as_deref().unwrap_or(numpy_qualified);
        if let Some(z) = self.numpy_to_zwc.get(key) {
            return Some(z.as_str());
        }
        let bare = key.strip_prefix("np.")?;
        NUMPY_ALIASES.iter().find_map(|&(a, b)| {
            let other = match bare {
                _ if bare == a => b,
                _ if bare == b => a,
                _ => return None,
            };
            self.numpy_to_zwc
                .get(&format!("np.{other}"))
                .map(String::as_str)
        })
    }

    /// A task's selected function (`mean`, `det`, `linalg.det`, `np.mean`) as its qualified
    /// NumPy name and zwc name. The SE-Bench datasets spell linalg functions bare (`det`,
    /// `norm`), so a bare name is the top-level function when the API has one (`cross`,
    /// `trace` exist in both and the tasks mean the top-level ones), else the linalg one.
    pub fn selected_function(&self, name: &str) -> Option<(String, &str)> {
        let bare = name
            .strip_prefix("numpy.")
            .or_else(|| name.strip_prefix("np."))
            .unwrap_or(name);
        let main = format!("np.{bare}");
        if let Some(z) = self.numpy_to_zwc.get(&main) {
            return Some((main, z.as_str()));
        }
        if bare.contains('.') {
            return None;
        }
        let linalg = format!("np.linalg.{bare}");
        let z = self.numpy_to_zwc.get(&linalg)?;
        Some((linalg, z.as_str()))
    }

    /// Short NumPy meaning of a zwc name without the `np.` prefix (`mean`, `linalg.inv`).
    pub fn numpy_short(&self, zwc_qualified: &str) -> Option<&str> {
        self.numpy_name(zwc_qualified)
            .map(|n| n.strip_prefix("np.").unwrap_or(n))
    }

    pub fn is_empty(&self) -> bool {
        self.numpy_to_zwc.is_empty()
    }
}

/// A NumPy function's name without `np.` (`left_shift`, `linalg.det`) and every other name
/// of the same function ([`NUMPY_ALIASES`]): calling any of them calls it.
pub fn same_function_names(short: &str) -> Vec<&str> {
    let mut out = vec![short];
    for &(a, b) in NUMPY_ALIASES {
        for (x, y) in [(a, b), (b, a)] {
            if x == short && !out.contains(&y) {
                out.push(y);
            }
        }
    }
    out
}

/// NumPy names that are one function under two names (NumPy 2's array-API aliases, and old
/// spellings kept as aliases): a rollout may write either, the API maps one.
pub const NUMPY_ALIASES: &[(&str, &str)] = &[
    ("trapezoid", "trapz"),
    ("concat", "concatenate"),
    ("pow", "power"),
    ("acos", "arccos"),
    ("asin", "arcsin"),
    ("atan", "arctan"),
    ("atan2", "arctan2"),
    ("acosh", "arccosh"),
    ("asinh", "arcsinh"),
    ("atanh", "arctanh"),
    ("bitwise_left_shift", "left_shift"),
    ("bitwise_right_shift", "right_shift"),
    ("bitwise_invert", "invert"),
    ("bitwise_not", "invert"),
    ("permute_dims", "transpose"),
    ("round_", "round"),
    ("row_stack", "vstack"),
    ("in1d", "isin"),
    ("product", "prod"),
    ("cumproduct", "cumprod"),
    ("alltrue", "all"),
    ("sometrue", "any"),
    ("linalg.matrix_transpose", "matrix_transpose"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// `np.trapezoid` (NumPy 2) is `np.trapz`: a mapping of one answers for the other; a
    /// name the API maps itself keeps its own zwc name.
    #[test]
    fn numpy_aliases_answer_for_each_other() {
        let text = r#"{"func_mapping": "{\"np.trapz\": \"zwc.xoxunig\", \"np.concatenate\": \"zwc.simek\", \"np.pow\": \"zwc.kobuw\", \"np.power\": \"zwc.yezazo\"}"}"#;
        let map = ApiMap::from_api_doc_jsonl(text).expect("parses");
        assert_eq!(map.zwc_name("np.trapezoid"), Some("zwc.xoxunig"));
        assert_eq!(map.zwc_name("numpy.concat"), Some("zwc.simek"));
        assert_eq!(map.zwc_name("np.pow"), Some("zwc.kobuw"));
        assert_eq!(map.zwc_name("np.power"), Some("zwc.yezazo"));
        assert_eq!(map.zwc_name("np.acos"), None);
    }

    #[test]
    fn union_of_func_mappings() {
        let text = r#"{"original_name": "mean", "curr_name": "kocito", "rewritten_doc": "doc of kocito", "func_mapping": "{\"np.mean\": \"zwc.kocito\", \"np.linalg.inv\": \"zwc.rfx.quvohe\"}"}
{"original_name": "inv", "curr_name": "quvohe", "func_mapping": "{\"np.sum\": \"zwc.bapu\"}"}"#;
        let map = ApiMap::from_api_doc_jsonl(text).expect("parses");
        assert_eq!(map.zwc_name("np.mean"), Some("zwc.kocito"));
        assert_eq!(map.zwc_name("numpy.linalg.inv"), Some("zwc.rfx.quvohe"));
        assert_eq!(map.numpy_name("zwc.bapu"), Some("np.sum"));
        assert_eq!(map.numpy_short("zwc.rfx.quvohe"), Some("linalg.inv"));
        assert_eq!(
            map.selected_function("inv"),
            Some(("np.linalg.inv".to_string(), "zwc.rfx.quvohe"))
        );
        assert_eq!(
            map.selected_function("linalg.inv"),
            Some(("np.linalg.inv".to_string(), "zwc.rfx.quvohe"))
        );
        assert_eq!(
            map.selected_function("mean"),
            Some(("np.mean".to_string(), "zwc.kocito"))
        );
        assert_eq!(map.selected_function("nope"), None);
        assert_eq!(
            map.docs.get("zwc.kocito").map(String::as_str),
            Some("doc of kocito")
        );
        assert_eq!(
            map.module_pairs(ZwcModule::Linalg),
            vec![("quvohe".to_string(), "inv".to_string())]
        );
        assert_eq!(map.module_pairs(ZwcModule::Main).len(), 2);
    }
}
