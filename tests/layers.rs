//! The architecture as a test: data flows model → analysis → grade → session → (cli | tui |
//! serve).
//! Every path a source file names (`use crate::…` lines and inline `crate::…` paths) may
//! point only down that flow or within its own layer; the front ends never name each
//! other; and within a layer, the TUI included, the modules' dependencies have no cycle of
//! any length (the TUI's parts take `state` and answer through `effects` instead of
//! reaching into `App`). `main.rs` is the dispatcher and `lib.rs` the module list, so both
//! are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LAYERS: [&str; 7] = [
    "model", "analysis", "grade", "session", "cli", "tui", "serve",
];

fn rank(layer: &str) -> usize {
    match layer {
        "model" => 0,
        "analysis" => 1,
        "grade" => 2,
        "session" => 3,
        _ => 4,
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
        "paths against the flow model → analysis → grade → session → (cli | tui | serve):\n{}",
        violations.join("\n")
    );
    assert!(checked > 50, "only {checked} cross-layer paths found");
}

/// The modules a source file names within its own layer: `crate::layer::x` paths, and
/// `super::x` from a top-level file (or a folder's `mod.rs`), `super::super::x` from a
/// file in a module's folder.
fn same_layer_names(src: &Path, file: &Path, layer: &str, text: &str) -> BTreeSet<String> {
    let mut named: BTreeSet<String> = crate_paths(text)
        .into_iter()
        .filter(|(l, m)| l == layer && !m.is_empty())
        .map(|(_, m)| m)
        .collect();
    let top_level =
        file.parent() == Some(&src.join(layer)) || file.file_name().is_some_and(|n| n == "mod.rs");
    let prefix = if top_level {
        "super::"
    } else {
        "super::super::"
    };
    for (i, _) in text.match_indices(prefix) {
        // `super::super::x` seen from a top-level file is not a sibling.
        if top_level && text[i + prefix.len()..].starts_with("super::") {
            continue;
        }
        if i >= 7 && !top_level && text[..i].ends_with("super::") {
            continue;
        }
        let m: String = text[i + prefix.len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !m.is_empty() {
            named.insert(m);
        }
    }
    named
}

/// A cycle through `start` in `edges`, as the path walked, if there is one.
fn cycle_from(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut path = vec![start.to_string()];
    let mut seen = BTreeSet::new();
    fn walk(
        edges: &BTreeMap<String, BTreeSet<String>>,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        let here = path.last().cloned().unwrap_or_default();
        for next in edges.get(&here).into_iter().flatten() {
            if next == start {
                path.push(next.clone());
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(edges, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    walk(edges, start, &mut path, &mut seen).then_some(path)
}

#[test]
fn modules_of_a_layer_do_not_depend_on_each_other_in_a_cycle() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    // layer → module → modules of the same layer it names.
    let mut edges: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let Some((layer, module)) = place(&src, file) else {
            continue;
        };
        if module.is_empty() || module == "mod" {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("source is readable");
        let mut named = same_layer_names(&src, file, &layer, &text);
        named.remove(&module);
        named.remove("super");
        edges
            .entry(layer)
            .or_default()
            .entry(module)
            .or_default()
            .extend(named);
    }
    assert!(
        edges.get("tui").is_some_and(|m| m.len() > 15),
        "the TUI's modules were not found"
    );
    let mut cycles = Vec::new();
    for (layer, modules) in &edges {
        // Only modules of the layer count (a name may be a function or a type).
        let known: BTreeMap<String, BTreeSet<String>> = modules
            .iter()
            .map(|(m, t)| {
                let t = t.iter().filter(|x| modules.contains_key(*x)).cloned();
                (m.clone(), t.collect())
            })
            .collect();
        let mut reported = BTreeSet::new();
        for m in known.keys() {
            if reported.contains(m) {
                continue;
            }
            if let Some(path) = cycle_from(&known, m) {
                reported.extend(path.iter().cloned());
                cycles.push(format!("{layer}: {}", path.join(" → ")));
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "modules depending on each other in a cycle:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_cycle_check_sees_a_cycle_of_three() {
    let edges: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(x, y)| (x.to_string(), BTreeSet::from([y.to_string()])))
        .collect();
    assert_eq!(
        cycle_from(&edges, "a"),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let mut acyclic = edges.clone();
    acyclic.remove("c");
    assert_eq!(cycle_from(&acyclic, "a"), None);
}

#[test]
fn sibling_names_are_read_from_super_paths_at_every_depth() {
    let src = Path::new("/x/src");
    let top = same_layer_names(
        src,
        &src.join("tui/app.rs"),
        "tui",
        "use super::state::Corpus;",
    );
    assert_eq!(top, BTreeSet::from(["state".to_string()]));
    let nested = same_layer_names(
        src,
        &src.join("tui/panes/code.rs"),
        "tui",
        "use super::super::app::App; use super::PaneContent;",
    );
    assert_eq!(nested, BTreeSet::from(["app".to_string()]));
    let folder = same_layer_names(
        src,
        &src.join("tui/jobs/mod.rs"),
        "tui",
        "use super::entry::Entry; use crate::tui::load::Source;",
    );
    assert_eq!(
        folder,
        BTreeSet::from(["entry".to_string(), "load".to_string()])
    );
}

/// What only the session layer does: open a cache, classify a path, decide where a verdict
/// comes from, find the context, read an input file, configure a pool. A front end that
/// names one of these does it itself (it asks the `Session` instead).
const SESSION_ONLY: [(&str, &str); 21] = [
    ("ScoreCache::open", "opens the score cache"),
    ("RunCache::open", "opens the run cache"),
    ("score_cache::default_dir", "chooses the cache folder"),
    ("classify_file", "classifies a path"),
    ("classify_text", "classifies a file's first line"),
    ("find_runs", "classifies a folder as a training run"),
    ("Resolver::new", "builds its own verdict resolver"),
    (
        "Resolver::without_reports",
        "builds its own verdict resolver",
    ),
    (
        "Resolved::of_report",
        "decides a verdict from a report itself",
    ),
    ("score_cache::", "names the score cache's module"),
    ("run_cache::", "names the run cache"),
    ("RunCache", "names the run cache"),
    ("trace::cache", "names the trace cache"),
    ("TraceCache::open", "opens the trace cache"),
    ("grade::store", "names the store"),
    ("Store::open_with", "opens the store"),
    ("PoolConfig", "configures the pool"),
    ("Pool::start", "starts the pool"),
    (
        "load_required",
        "loads the context itself (ContextArgs::load_required)",
    ),
    ("load_rollout_file", "reads an input file itself"),
    ("read_run(", "reads a run itself"),
];

/// The front ends' sources (`cli`, `tui`, `serve`) that do what only the session does.
fn front_end_violations(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(src, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let Some((layer, _)) = place(src, file) else {
            continue;
        };
        if rank(&layer) < 4 {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("source is readable");
        for (needle, what) in SESSION_ONLY {
            if text.contains(needle) {
                found.push(format!(
                    "{} {what} (`{needle}`)",
                    file.strip_prefix(src).unwrap_or(file).display()
                ));
            }
        }
    }
    found
}

#[test]
fn no_front_end_opens_a_cache_classifies_a_path_or_decides_a_verdict() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = front_end_violations(&src);
    assert!(
        found.is_empty(),
        "front ends doing the session's work (call crate::session instead):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_front_end_check_sees_a_cache_opened_in_the_tui() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("tui")).expect("mkdir");
    std::fs::create_dir_all(src.join("session")).expect("mkdir");
    std::fs::write(
        src.join("session/caches.rs"),
        "fn f() { ScoreCache::open(&d, &a, &s); }",
    )
    .expect("write");
    assert!(front_end_violations(&src).is_empty(), "the session may");
    std::fs::write(
        src.join("tui/explore.rs"),
        "fn f() { let c = ScoreCache::open(&d, &a, &s); let k = classify_file(p); }",
    )
    .expect("write");
    let found = front_end_violations(&src);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].contains("tui/explore.rs opens the score cache"),
        "{found:?}"
    );
}

#[test]
fn the_front_end_check_sees_the_store_the_context_and_an_input_read_in_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("cli")).expect("mkdir");
    std::fs::write(
        src.join("cli/grade.rs"),
        "use crate::grade::store::Store;\n\
         fn f() { let (api, d) = args.context.load_required(&files)?; \
         let l = crate::model::rollout::load_rollout_file(p)?; \
         let c = crate::grade::pool::PoolConfig::with_workers(2); }",
    )
    .expect("write");
    let found = front_end_violations(&src);
    for what in [
        "names the store",
        "ContextArgs::load_required",
        "reads an input file itself",
        "configures the pool",
    ] {
        assert!(found.iter().any(|f| f.contains(what)), "{what}: {found:?}");
    }
}
