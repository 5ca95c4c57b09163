//! The architecture as a test: data flows model → analysis → grade → (cli | tui | serve).
//! Every path a source file names (`use crate::…` lines and inline `crate::…` paths) may
//! point only down that flow or within its own layer; the front ends never name each
//! other; and no two modules of the domain layers name each other (no cycles; the TUI's
//! sub-views still reach into `App`, which the App split of issue 10 is to end). `main.rs`
//! is the dispatcher and `lib.rs` the module list, so both are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 6] = ["model", "analysis", "grade", "cli", "tui", "serve"];

fn rank(layer: &str) -> usize {
    match layer {
        "model" => 0,
        "analysis" => 1,
        "grade" => 2,
        _ => 3,
    }
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The layer and module (first path part below the layer) a source file belongs to.
fn place(src: &Path, file: &Path) -> Option<(String, String)> {
    let rel = file.strip_prefix(src).ok()?;
    let mut parts = rel.iter().map(|p| p.to_string_lossy().into_owned());
    let layer = parts.next()?;
    if !LAYERS.contains(&layer.as_str()) {
        return None;
    }
    let module = parts
        .next()
        .map(|m| m.trim_end_matches(".rs").to_string())
        .unwrap_or_default();
    Some((layer, module))
}

/// Every `crate::a::b` path in `text` (comments included: a doc link that points up is a
/// dependency of the reader's mind too, and cheap to keep honest), as (a, b).
fn crate_paths(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let before_ok = i == 0 || {
            let b = text.as_bytes()[i - 1];
            !(b.is_ascii_alphanumeric() || b == b'_')
        };
        if !before_ok {
            continue;
        }
        let rest = &text[i + "crate::".len()..];
        let word = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let first = word(rest);
        let second = rest
            .get(first.len()..)
            .and_then(|r| r.strip_prefix("::"))
            .map(word)
            .unwrap_or_default();
        out.push((first, second));
    }
    out
}

#[test]
fn no_module_imports_a_layer_above_it_or_a_sibling_front_end() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in &files {
        let Some((layer, _)) = place(&src, file) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("source is readable");
        for (target, _) in crate_paths(&text) {
            if !LAYERS.contains(&target.as_str()) || target == layer {
                continue;
            }
            checked += 1;
            let down = rank(&target) < rank(&layer);
            if !down {
                violations.push(format!(
                    "{} ({layer}) names crate::{target}",
                    file.strip_prefix(&src).unwrap_or(file).display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "paths against the flow model → analysis → grade → (cli | tui | serve):\n{}",
        violations.join("\n")
    );
    assert!(checked > 50, "only {checked} cross-layer paths found");
}

#[test]
fn modules_of_a_domain_layer_do_not_depend_on_each_other_in_a_cycle() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    // (layer, module) → modules of the same layer it names.
    let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let Some((layer, module)) = place(&src, file) else {
            continue;
        };
        if module.is_empty() || module == "mod" || layer == "tui" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("source is readable");
        let mut named: BTreeSet<String> = crate_paths(&text)
            .into_iter()
            .filter(|(l, m)| *l == layer && !m.is_empty())
            .map(|(_, m)| m)
            .collect();
        // `super::x` from a top-level module of the layer names its sibling `x`.
        let top_level = file.parent() == Some(&src.join(&layer));
        if top_level {
            for (i, _) in text.match_indices("super::") {
                let m: String = text[i + "super::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !m.is_empty() {
                    named.insert(m);
                }
            }
        }
        named.remove(&module);
        edges
            .entry((layer.clone(), module.clone()))
            .or_default()
            .extend(named);
    }
    let mut cycles = Vec::new();
    for ((layer, a), targets) in &edges {
        for b in targets {
            let back = edges
                .get(&(layer.clone(), b.clone()))
                .is_some_and(|t| t.contains(a));
            if back && a < b {
                cycles.push(format!("{layer}: {a} ↔ {b}"));
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules naming each other:\n{}",
        cycles.join("\n")
    );
}
