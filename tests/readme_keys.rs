//! The README's key tables follow the action table: the full reference is generated from it
//! (`SEBX_UPDATE_README=1` rewrites it), and every key the hand-written tables name (the
//! labelling keys, the screens' keys) is a default key of that place.

use sebx::tui::action::{ACTIONS, KeyChord, Scope, markdown_table};

const BEGIN: &str = "<!-- action table: generated -->\n";
const END: &str = "<!-- end of the action table -->";

fn readme_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

#[test]
fn the_readme_reference_is_the_action_table() {
    let path = readme_path();
    let text = std::fs::read_to_string(&path).expect("README.md");
    let start = text.find(BEGIN).expect("the generated block's start") + BEGIN.len();
    let end = start + text[start..].find(END).expect("the generated block's end");
    let want = markdown_table();
    if std::env::var_os("SEBX_UPDATE_README").is_some() {
        let updated = format!("{}{want}{}", &text[..start], &text[end..]);
        std::fs::write(&path, updated).expect("rewrite README.md");
        return;
    }
    assert_eq!(
        &text[start..end],
        want,
        "README.md's action table is stale: run SEBX_UPDATE_README=1 cargo test --test cli readme_keys::"
    );
    // Every bindable action is in it, by its config name.
    for spec in ACTIONS {
        assert!(
            text[start..end].contains(&format!("`{}`", spec.action.config_name())),
            "{:?}",
            spec.action
        );
    }
}

/// The default keys of `scope`, as the hints write them.
fn defaults(scope: Scope) -> Vec<String> {
    let mut keys = Vec::new();
    for spec in ACTIONS {
        if spec.scopes.contains(&scope) {
            keys.extend(spec.keys.iter().map(|k| k.to_string()));
        }
        keys.extend(
            spec.only
                .iter()
                .filter(|(s, _)| *s == scope)
                .map(|(_, k)| k.to_string()),
        );
    }
    keys.into_iter()
        .filter_map(|k| KeyChord::parse(&k).ok().map(|c| c.to_string()))
        .collect()
}

/// The backticked words of a table row, runs of arrows taken apart (`↑↓` is two keys).
fn backticked(row: &str) -> Vec<String> {
    row.split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|w| {
            if w.chars().count() > 1 && w.chars().all(|c| "↑↓←→".contains(c)) {
                w.chars().map(String::from).collect()
            } else {
                vec![w.to_string()]
            }
        })
        .collect()
}

#[test]
fn the_hand_written_key_tables_name_default_keys() {
    let text = std::fs::read_to_string(readme_path()).expect("README.md");
    // The screens' table: each row's keys are that screen's.
    let screens = [
        ("| Stats (`S`) |", Scope::Stats),
        ("| Compare (`C`) |", Scope::Compare),
        ("| Training (`T`) |", Scope::Training),
        ("| presenter (`P`) |", Scope::Present),
    ];
    for (start, scope) in screens {
        let row = text
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no row {start}"));
        let keys = defaults(scope);
        let cells: Vec<&str> = row.split('|').collect();
        for key in backticked(cells.get(2).copied().unwrap_or("")) {
            assert!(
                keys.contains(&key),
                "`{key}` is no default key of {scope:?}"
            );
        }
    }
    // The labelling table: its first column's key runs an action on the list.
    let main = defaults(Scope::Main);
    let at = text.find("### Labelling and reruns").expect("section");
    let mut rows = 0;
    for line in text[at..].lines().skip_while(|l| !l.starts_with("| key |")) {
        if !line.starts_with('|') {
            break;
        }
        let Some(key) = line.split('|').nth(1).map(str::trim) else {
            continue;
        };
        if let Some(key) = key.strip_prefix('`').and_then(|k| k.strip_suffix('`')) {
            rows += 1;
            assert!(main.contains(&key.to_string()), "`{key}` is no list key");
        }
    }
    assert!(rows >= 10, "the labelling table was read");
}
