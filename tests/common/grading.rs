//! Set-up shared by the tests that grade small rollouts written for them through the real
//! engine (Python runtime required: `sebx runtime install`).
#![allow(dead_code)]

use std::path::Path;
use std::sync::OnceLock;

use sebx::grade::engine::Engine;
use sebx::model::rollout::parse_rollout_bytes;
use sebx::model::{ApiMap, Rollout};

/// The engine for `api_doc` (a JSONL API doc), started once per test binary in `cell`.
pub fn engine(cell: &'static OnceLock<Engine>, api_doc: &str) -> &'static Engine {
    cell.get_or_init(|| {
        let api = ApiMap::from_api_doc_jsonl(api_doc).expect("api");
        Engine::start(&api, 2).unwrap_or_else(|e| panic!("{e:#}"))
    })
}

/// A rollout made of a response and (input, expected) cases.
pub fn rollout(response: &str, cases: &[(&str, &str)]) -> Rollout {
    let test_cases: Vec<serde_json::Value> = cases
        .iter()
        .map(|(i, o)| serde_json::json!({"input": i, "output": o}))
        .collect();
    let expected: Vec<&str> = cases.iter().map(|(_, o)| *o).collect();
    let line = serde_json::json!({
        "query": "q", "response": response, "test_cases": test_cases,
        "right_exe_result": expected.join("#"),
    })
    .to_string();
    let loaded = parse_rollout_bytes(Path::new("t.jsonl"), line.as_bytes());
    loaded.rollouts.into_iter().next().expect("rollout loads")
}

/// A response whose one python block is `code`.
pub fn block(code: &str) -> String {
    format!("Here is my solution.\n```python\n{code}```\n")
}
