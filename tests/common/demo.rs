//! The bundled demo for tests that run commands on it: its files by name, and copies in a
//! temp folder, so that nothing (sidecars, caches) is written beside the repository's files.

// Each test binary includes this file and uses only some of it.
#![allow(dead_code)]

use std::path::PathBuf;

/// A file of `samples/demo`.
pub fn demo(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples/demo")
        .join(name)
}

/// The demo's evaluation runs with their scores and labels, the API doc and the tasks,
/// copied to a temp folder.
pub fn demo_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for f in [
        "rollouts.jsonl",
        "rollouts_run2.jsonl",
        "rollouts.scored.jsonl",
        "rollouts.jsonl.labels.jsonl",
        "api_doc.jsonl",
        "tasks.jsonl",
    ] {
        std::fs::copy(demo(f), dir.path().join(f)).expect("copy");
    }
    dir
}

/// [`demo_copy`] with the training run too (`training/rollout`).
pub fn demo_copy_with_training() -> tempfile::TempDir {
    let dir = demo_copy();
    let run = dir.path().join("training").join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    for entry in std::fs::read_dir(demo("training/rollout")).expect("training run") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), run.join(entry.file_name())).expect("copy");
    }
    dir
}
