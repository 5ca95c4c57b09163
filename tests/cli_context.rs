//! Every command that reads rollouts takes `--api-doc` and `--dataset` the same way: one
//! flattened `ContextArgs`, so their help text is the same everywhere.

#[path = "common/isolated.rs"]
mod isolated;

fn help(args: &[&str]) -> String {
    let out = isolated::sebx()
        .args(args)
        .arg("--help")
        .env("NO_COLOR", "1")
        .output()
        .expect("sebx runs");
    assert!(out.status.success(), "{args:?} --help failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lines of the `--api-doc` and `--dataset` entries (the flag line and its wrapped
/// description, up to the next flag).
fn context_help(text: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('-') {
            inside = t.starts_with("--api-doc") || t.starts_with("--dataset");
        }
        if inside {
            out.push(t.to_string());
        }
    }
    // Columns are aligned (or descriptions put on the next line) per command: compare
    // words, not layout.
    out.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn api_doc_and_dataset_flags_read_the_same_in_every_command() {
    let commands: [&[&str]; 8] = [
        &["grade"],
        &["rerun"],
        &["analyze"],
        &["graph"],
        &["labels", "export"],
        &["stats"],
        &["serve"],
        &["explore"],
    ];
    let reference = context_help(&help(commands[0]));
    assert!(reference.contains("--api-doc <FILE>"), "{reference}");
    assert!(reference.contains("--dataset <FILE>"), "{reference}");
    for cmd in &commands[1..] {
        assert_eq!(context_help(&help(cmd)), reference, "{cmd:?}");
    }
}
