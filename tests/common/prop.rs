//! Shared settings for the property tests: a bounded number of cases for CI, and the
//! `SEBX_PROPTEST_CASES` knob for deep runs (`SEBX_PROPTEST_CASES=20000 cargo test --test
//! analysis prop_analysis::`; likewise `--test tui prop_explorer::`, `--test cli prop_load::`).

#![allow(dead_code)]

use proptest::test_runner::Config;

/// A config running `default` cases, or `SEBX_PROPTEST_CASES` cases when set. `weight`
/// scales the knob down for the slow properties (a deep run of 10,000 gives 10,000 /
/// `weight` cases there).
pub fn config(default: u32, weight: u32) -> Config {
    let cases = std::env::var("SEBX_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .map(|n| (n / weight.max(1)).max(1))
        .unwrap_or(default);
    Config {
        cases,
        // Shrinking stays bounded so a failure is reported in reasonable time.
        max_shrink_iters: 2048,
        // No regression files written into the source tree; a failure prints its input.
        failure_persistence: None,
        ..Config::default()
    }
}
