//! Where the shared SE-Bench data is (the parity corpus, the API doc, the datasets): read by
//! path, never copied into the project. `$SEBX_SHARED_DATA` names the folder; else it is
//! `../shared/data` beside the clone. Every test file finds it through here, so that a
//! missing folder fails loudly: [`shared_data`] always, [`shared_data_or_skip`] under
//! `CI=true` (elsewhere a test of its own may skip, saying so).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The variable that names the shared data folder.
pub const SHARED_DATA_ENV: &str = "SEBX_SHARED_DATA";

/// The shared data folder, whether or not it exists.
pub fn shared_data_path() -> PathBuf {
    std::env::var_os(SHARED_DATA_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data"))
}

/// The shared data folder; a test that needs it fails when it is missing.
pub fn shared_data() -> PathBuf {
    let dir = shared_data_path();
    assert!(
        dir.is_dir(),
        "no shared data at {} (set ${SHARED_DATA_ENV} to the folder)",
        dir.display()
    );
    dir
}

/// `rel` inside the shared data folder ([`shared_data`]).
pub fn shared(rel: &str) -> PathBuf {
    shared_data().join(rel)
}

/// The shared data folder when every one of `needed` (paths inside it) is there; else, under
/// `CI=true`, a failure, and elsewhere `None` with a line saying the test is skipped.
pub fn shared_data_or_skip(needed: &[&str]) -> Option<PathBuf> {
    let dir = shared_data_path();
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|rel| !dir.join(rel).exists())
        .collect();
    if missing.is_empty() {
        return Some(dir);
    }
    let what = format!(
        "no {} in the shared data at {} (set ${SHARED_DATA_ENV})",
        missing.join(", "),
        dir.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{what}");
    eprintln!("{what}: skipping");
    None
}
