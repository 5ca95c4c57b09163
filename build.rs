//! Hashes the grader's own sources (every file under `src/grade/` and `src/analysis/`,
//! test modules left out) into `SEBX_GRADER_SOURCES`, the score cache's notion of "same
//! grader". The rule is in `src/grade/source_hash.rs`, which this script includes.

#[path = "src/grade/source_hash.rs"]
#[allow(dead_code)]
mod source_hash;

fn main() {
    let root = std::path::PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    println!("cargo:rerun-if-changed=build.rs");
    for folder in source_hash::HASHED_FOLDERS {
        // A folder: cargo reruns this script when any file under it changes.
        println!("cargo:rerun-if-changed={folder}");
    }
    let (hash, broken) = source_hash::hash_folders(&root, source_hash::HASHED_FOLDERS)
        .expect("the grader's sources are readable");
    for file in broken {
        println!(
            "cargo:warning={file}: code follows the test module, so the whole file is hashed (move the tests to the end)"
        );
    }
    println!("cargo:rustc-env=SEBX_GRADER_SOURCES={hash}");
    // The code that turns runs into figures (the session layer and the model it reads), for
    // the keys of remembered figures (`session::facts_cache`).
    for folder in FIGURE_FOLDERS {
        println!("cargo:rerun-if-changed={folder}");
    }
    let (figures, _) = source_hash::hash_folders(&root, FIGURE_FOLDERS)
        .expect("the session's sources are readable");
    println!("cargo:rustc-env=SEBX_FIGURE_SOURCES={figures}");
}

/// Folders whose code decides remembered figures besides the grader's.
const FIGURE_FOLDERS: &[&str] = &["src/session", "src/model"];
