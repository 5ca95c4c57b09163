//! Dataset items (`single_test.jsonl`, `multiple_test.jsonl`, `train.jsonl`), joined to rollouts by `query`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::rollout::{LoadIssue, TestCase, json_kind};

/// One dataset item: what a rollout's `query` refers to.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetItem {
    pub query: String,
    /// The signature line, e.g. `def solve(x1, x2):`.
    pub function_name: String,
    /// NumPy names the task is built on.
    pub selected_functions: Vec<String>,
    /// The NumPy reference solution(s) (`example_output`, else `right_code`).
    pub reference: Vec<String>,
    pub test_cases: Vec<TestCase>,
    pub right_exe_result: String,
    pub source: PathBuf,
    pub line: usize,
}

/// Dataset items by query, from one or more files.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    pub items: HashMap<String, DatasetItem>,
    pub issues: Vec<LoadIssue>,
    pub files: Vec<PathBuf>,
}

impl Dataset {
    /// Adds the items of one dataset file; bad lines become issues.
    pub fn load_file(&mut self, path: &Path) -> std::io::Result<()> {
        let text = std::fs::read(path)?;
        self.add_text(path, &text);
        Ok(())
    }

    /// Adds the items of a dataset file's text read from elsewhere (the bundled demo's),
    /// named `path`: the same reading as [`Dataset::load_file`] (the first item of a query
    /// kept, `right_code` when there is no `example_output`, bad lines as issues).
    pub fn add_text(&mut self, path: &Path, text: &[u8]) {
        self.files.push(path.to_path_buf());
        for (idx, raw) in text.split(|b| *b == b'\n').enumerate() {
            if raw.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            match parse_item(raw, path, idx + 1) {
                Ok(item) => {
                    self.items.entry(item.query.clone()).or_insert(item);
                }
                Err(reason) => self.issues.push(LoadIssue {
                    source: path.to_path_buf(),
                    line: idx + 1,
                    reason,
                }),
            }
        }
    }

    pub fn get(&self, query: &str) -> Option<&DatasetItem> {
        self.items.get(query)
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

fn parse_item(raw: &[u8], path: &Path, line: usize) -> Result<DatasetItem, String> {
    let text = std::str::from_utf8(raw).map_err(|_| "not valid UTF-8".to_string())?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let obj = value
        .as_object()
        .ok_or_else(|| format!("expected a JSON object, found {}", json_kind(&value)))?;
    let query = obj
        .get("query")
        .and_then(Value::as_str)
        .ok_or("missing or non-string `query`")?
        .to_string();
    let str_list = |key: &str| -> Vec<String> {
        match obj.get(key) {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            Some(Value::String(s)) => vec![s.clone()],
            _ => Vec::new(),
        }
    };
    let mut reference = str_list("example_output");
    if reference.is_empty() {
        reference = str_list("right_code");
    }
    let test_cases = obj
        .get("test_cases")
        .and_then(Value::as_array)
        .map(|cases| {
            cases
                .iter()
                .filter_map(|c| {
                    Some(TestCase {
                        input: c.get("input")?.as_str()?.to_string(),
                        output: c
                            .get("output")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(DatasetItem {
        query,
        function_name: obj
            .get("function_name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        selected_functions: str_list("selected_functions"),
        reference,
        test_cases,
        right_exe_result: obj
            .get("right_exe_result")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        source: path.to_path_buf(),
        line,
    })
}
