//! No key hint written into the explorer's code (issue 41): a key a hint names comes from
//! the keymap (`says`, `aside`, `hint`, `key_in`, `Effects::say_keyed`), so a rebound key
//! shows as bound. This reads every source file of `src/tui` (the keymap itself, in
//! `action/`, and the text box's key strings, `textbox.rs`, aside) and fails on a string
//! literal that names a key by hand: "press r", "c clears", "s: sort", "q quit", "enter
//! saves", "esc cancels", "ctrl-r"; and a note said with a key names it as bound. Nor does
//! any of it match a raw key code (`KeyCode::`) outside the keymap.

use std::path::{Path, PathBuf};

use crate::tui_common;

use crate::isolated;

/// Keys written as words (`enter`, `esc`, `ctrl-r`, …).
const KEY_WORDS: &[&str] = &["esc", "enter", "shift-tab", "pgup", "pgdn", "backspace"];

/// What a one-character key is said to do in a hint ("c clears", "s: sort").
const VERBS: &[&str] = &[
    "quit",
    "quits",
    "search",
    "label",
    "help",
    "sort",
    "sorts",
    "close",
    "closes",
    "clears",
    "toggles",
    "scores",
    "regrade",
    "regrades",
    "rerun",
    "reruns",
    "cancels",
    "saves",
    "goes",
    "opens",
    "undoes",
    "accepts",
    "leaves",
    "skips",
    "refreshes",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src/tui") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of a line of code (a line comment's text left out).
fn literals(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    let mut current: Option<String> = None;
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        match &mut current {
            Some(s) => match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        s.push('\\');
                        s.push(n);
                    }
                }
                '"' => out.push(current.take().unwrap_or_default()),
                _ => s.push(c),
            },
            None => {
                if c == '/' && chars.peek() == Some(&'/') {
                    break;
                }
                // A char literal `'"'` opens no string.
                if c == '"' && prev != '\'' {
                    current = Some(String::new());
                }
            }
        }
        prev = c;
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// Why `text` names a key by hand, if it does.
fn hand_written_key(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let word_at = |start: usize, len: usize| {
        let before = start.checked_sub(1).map(|i| chars[i]);
        let after = chars.get(start + len).copied();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    };
    let lower = text.to_string();
    for key in KEY_WORDS {
        let mut from = 0;
        while let Some(at) = lower[from..].find(key) {
            let start = lower[..from + at].chars().count();
            if word_at(start, key.chars().count()) {
                return Some(format!("the key word {key:?}"));
            }
            from += at + key.len();
        }
    }
    if let Some(at) = text.find("ctrl-")
        && text[at + 5..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase())
    {
        return Some("a ctrl- key".into());
    }
    if text.contains("press ") && !text.contains("press {") {
        return Some("\"press\" and a key".into());
    }
    // One character after a space or `(` (or first), a `:` maybe, then a verb.
    for (i, c) in chars.iter().enumerate() {
        let starts = i == 0 || matches!(chars[i - 1], ' ' | '(' | '·');
        if !starts || !(c.is_ascii_alphabetic() || "?/!#=<>".contains(*c)) {
            continue;
        }
        let mut j = i + 1;
        if chars.get(j) == Some(&':') {
            j += 1;
        }
        if chars.get(j) != Some(&' ') {
            continue;
        }
        let rest: String = chars[j + 1..].iter().collect();
        let word: String = rest.chars().take_while(|c| c.is_alphabetic()).collect();
        if VERBS.contains(&word.as_str()) {
            return Some(format!("the key {c:?} and {word:?}"));
        }
    }
    None
}

#[test]
fn drawing_code_names_no_key_by_hand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    assert!(files.len() > 20, "src/tui read: {}", files.len());
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap_or(file);
        // The keymap and the text box's own key table name keys by right.
        if rel.starts_with("action") || rel == Path::new("textbox.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read");
        // Unit tests may name the keys they press.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for lit in literals(line) {
                if let Some(why) = hand_written_key(&lit) {
                    found.push(format!("{}:{}: {why}: {lit:?}", rel.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "key hints written by hand (take them from the keymap: says, aside, hint, key_in, \
         Effects::say_keyed; a text box's from textbox::box_keys):\n{}",
        found.join("\n")
    );
}

/// No part matches raw key codes: keys become actions in the keymap (`action/`: the
/// keymap, the text boxes' key table, a typed character), never in a pane, screen, popup or
/// text box.
#[test]
fn no_raw_key_code_is_matched_outside_the_keymap() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap_or(file);
        if rel.starts_with("action") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read");
        // Unit tests may build the keys they press.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            if !line.trim_start().starts_with("//") && line.contains("KeyCode::") {
                found.push(format!("{}:{}: {}", rel.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "raw key codes matched outside the keymap (src/tui/action):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_catches_what_it_is_for() {
    for bad in [
        "press r to regrade",
        "c clears",
        "lowest accuracy first; s: sort",
        "q quit  / search",
        " (enter saves, esc cancels) ",
        "regrade with ctrl-r",
        "the cell's rollouts: c clears",
    ] {
        assert!(hand_written_key(bad).is_some(), "missed {bad:?}");
    }
    for good in [
        "press {k} to regrade",
        "{key} clears",
        "NOT saved: this run's label file could not be opened",
        "not labelled: labels are signed, type a name",
        "internalization map of {run_name} ({}{})",
        "xml:space=\\\"preserve\\\"",
    ] {
        assert_eq!(hand_written_key(good), None, "{good:?}");
    }
    assert_eq!(literals(r#"let a = "x"; // "y""#), ["x"]);
    assert_eq!(literals(r#"f('"', "a\"b")"#), [r#"a\"b"#]);
}

/// A note a part says with a key (`Effects::say_keyed`) names the key as bound: with
/// `clear_filters` moved from `c` to `x`, the Stats screen's "this function's failures"
/// says "x clears".
#[test]
fn a_said_key_follows_the_config() {
    use ratatui::crossterm::event::KeyCode;
    use sebx::tui::explore::ExploreArgs;
    use tui_common::press;

    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[keys]\n\"c\" = \"none\"\n\"x\" = \"clear_filters\"\n",
    )
    .expect("write the config");
    let args = ExploreArgs {
        config: Some(config),
        ..isolated::explore_args()
    };
    let mut app = tui_common::demo_app(&args, dir.path(), 100, 30);
    let app = &mut app;
    press(app, KeyCode::Char('S'));
    assert!(app.stats.screen.is_some(), "the Stats screen is open");
    press(app, KeyCode::Enter);
    assert!(
        app.stats.screen.is_none(),
        "the map row's failures are listed"
    );
    assert_eq!(app.message.as_deref(), Some("x clears"));
}
