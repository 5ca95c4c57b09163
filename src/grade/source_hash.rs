//! The grader's own fingerprint, computed when sebx is built: `build.rs` includes this file
//! and hashes every file under [`HASHED_FOLDERS`] (`src/grade/`, the Python worker and zwc
//! core in `src/grade/py/` among them, and `src/analysis/`), so a changed grader is a new
//! grader for the score cache without a list of sources to keep. The hash reaches the
//! crate as the `SEBX_GRADER_SOURCES` environment variable at compile time.
//!
//! Tests are outside the hashed code, so editing one keeps every cache. The rule: in a Rust
//! file, everything from the first line `#[cfg(test)]` whose next line opens a module
//! (`mod tests {`, the convention of this repo) to the end of the file is left out, so a
//! test module must be the file's last item (more test modules may follow it). Anything
//! else after it would escape the hash: such a file is hashed whole instead (never a
//! stale verdict, only a cache lost on a test edit), `build.rs` warns, and a unit test
//! names the code that breaks the rule.
//! A folder's tests in a file of their own (`tests.rs` beside the folder's `mod.rs`, which
//! declares them as `#[cfg(test)]` then `mod tests;`) are left out the same way.
//!
//! Plain `std` and `sha2` only: `build.rs` compiles this file on its own.

use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The folders, relative to the package root, whose every file is the grader.
pub const HASHED_FOLDERS: &[&str] = &["src/grade", "src/analysis"];

/// Where the test modules of a Rust file start: the byte offset of the first line
/// `#[cfg(test)]` whose next line opens a module.
pub fn test_modules_start(source: &str) -> Option<usize> {
    let mut offset = 0;
    let mut lines = source.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim_end() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| opens_module(next.trim_end()))
        {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

fn opens_module(line: &str) -> bool {
    let Some(rest) = line
        .strip_prefix("mod ")
        .or_else(|| line.strip_prefix("pub mod "))
    else {
        return false;
    };
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    !name.is_empty() && rest[name.len()..].trim() == "{"
}

/// Items at the top level of `tail` (the text from [`test_modules_start`] on) that are
/// not a `#[cfg(test)]` module: code the test-module rule would leave out of the hash.
/// Top-level items are told by a line starting in the first column with an item keyword
/// (rustfmt indents whatever a module holds; a string spanning lines may start a line
/// anywhere, but not with a Rust item keyword in practice).
pub fn items_after_tests(tail: &str) -> Vec<String> {
    const ITEMS: &[&str] = &[
        "pub ",
        "pub(",
        "fn ",
        "const ",
        "static ",
        "struct ",
        "enum ",
        "union ",
        "impl ",
        "impl<",
        "trait ",
        "type ",
        "use ",
        "mod ",
        "extern ",
        "unsafe ",
        "async ",
        "macro_rules!",
    ];
    let mut out = Vec::new();
    let mut previous = "";
    for line in tail.lines() {
        let line = line.trim_end();
        let test_module = previous == "#[cfg(test)]" && opens_module(line);
        if !test_module && ITEMS.iter().any(|k| line.starts_with(k)) {
            out.push(line.to_string());
        }
        if !line.is_empty() && !line.starts_with("//") {
            previous = line;
        }
    }
    out
}

/// What of a file goes into the hash: a Rust file without its trailing test modules
/// (whole when code follows them) and trailing blank lines, any other file whole. With the part, whether the file
/// breaks the test-module rule.
pub fn hashed_part<'a>(path: &Path, text: &'a str) -> (&'a str, bool) {
    if path.extension().is_none_or(|e| e != "rs") {
        return (text, false);
    }
    // Trailing blank lines are not code: adding the first test module changes nothing.
    match test_modules_start(text) {
        Some(cut) if items_after_tests(&text[cut..]).is_empty() => (text[..cut].trim_end(), false),
        Some(_) => (text.trim_end(), true),
        None => (text.trim_end(), false),
    }
}

/// Every file under `dir`, as paths relative to `root` with `/` between parts, sorted.
/// Hidden files and editor leftovers (`~`, `.swp`) are not sources.
pub fn files_under(root: &Path, dir: &Path) -> io::Result<Vec<String>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") {
                continue;
            }
            if path.is_dir() {
                walk(&path, out)?;
            } else {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut paths = Vec::new();
    walk(&root.join(dir), &mut paths)?;
    let mut out: Vec<String> = paths
        .iter()
        .filter_map(|p| p.strip_prefix(root).ok())
        .map(|p| {
            p.iter()
                .map(|part| part.to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    out.sort();
    Ok(out)
}

/// Whether `rel` (relative to `root`, `/` between parts) is a folder's test module in a
/// file of its own: a `tests.rs` whose folder's `mod.rs` declares it under `#[cfg(test)]`
/// (`mod tests;`). A `tests.rs` declared otherwise is code like any other.
pub fn is_test_module_file(root: &Path, rel: &str) -> bool {
    let Some(dir) = rel.strip_suffix("/tests.rs") else {
        return false;
    };
    let Ok(parent) = std::fs::read_to_string(root.join(dir).join("mod.rs")) else {
        return false;
    };
    let mut previous = "";
    parent.lines().map(str::trim_end).any(|line| {
        let declared = previous == "#[cfg(test)]" && line == "mod tests;";
        if !line.is_empty() && !line.starts_with("//") {
            previous = line;
        }
        declared
    })
}

/// The hash of `folders` under `root` (each file's relative path and hashed part), as 16
/// hex digits, and the files that break the test-module rule.
pub fn hash_folders(root: &Path, folders: &[&str]) -> io::Result<(String, Vec<String>)> {
    let mut hasher = Sha256::new();
    let mut broken = Vec::new();
    for folder in folders {
        for rel in files_under(root, Path::new(folder))? {
            if is_test_module_file(root, &rel) {
                continue;
            }
            let bytes = std::fs::read(root.join(&rel))?;
            let text = String::from_utf8_lossy(&bytes);
            let (part, breaks) = hashed_part(Path::new(&rel), &text);
            if breaks {
                broken.push(rel.clone());
            }
            hasher.update(rel.as_bytes());
            hasher.update([0u8]);
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
    }
    let digest = hasher.finalize();
    let hex = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Ok((hex, broken))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = "//! A module.\n\npub fn grade() -> u8 {\n    1\n}\n";

    #[test]
    fn a_trailing_test_module_is_not_hashed() {
        let with_tests = format!(
            "{CODE}\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn t() {{\n        assert_eq!(grade(), 1);\n    }}\n}}\n"
        );
        let edited = with_tests.replace("assert_eq!(grade(), 1)", "assert!(grade() > 0)");
        let rs = Path::new("src/grade/x.rs");
        let hashed = |text: &str| hashed_part(rs, text).0.to_string();
        assert_eq!(hashed(&with_tests), hashed(CODE));
        assert_eq!(hashed(&edited), hashed(CODE));
        assert_ne!(
            hashed(&with_tests.replace("    1\n", "    2\n")),
            hashed(CODE)
        );
        // More test modules after the first are tests too.
        let two = format!("{with_tests}\n#[cfg(test)]\nmod deep_tests {{\n}}\n");
        assert_eq!(hashed_part(rs, &two), hashed_part(rs, &with_tests));
        // Not a Rust file: whole.
        assert_eq!(
            hashed_part(Path::new("py/worker.py"), &with_tests).0,
            with_tests
        );
    }

    /// Folders that differ only in a test module hash alike; a change to code does not.
    #[test]
    fn folders_hash_alike_with_and_without_their_tests() {
        let hash_of = |files: &[(&str, &str)]| {
            let root = tempfile::tempdir().expect("tempdir");
            for (rel, text) in files {
                let path = root.path().join(rel);
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(path, text).expect("write");
            }
            hash_folders(root.path(), &["src/grade"]).expect("hash")
        };
        let tests =
            format!("{CODE}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{}}\n}}\n");
        let py = ("src/grade/py/worker.py", "print(1)\n");
        let bare = hash_of(&[("src/grade/a.rs", CODE), py]);
        assert_eq!(bare, hash_of(&[("src/grade/a.rs", &tests), py]));
        assert_eq!(bare.1, Vec::<String>::new());
        let other_code = CODE.replace("1\n", "2\n");
        assert_ne!(bare.0, hash_of(&[("src/grade/a.rs", &other_code), py]).0);
        assert_ne!(
            bare.0,
            hash_of(&[
                ("src/grade/a.rs", CODE),
                ("src/grade/py/worker.py", "print(2)\n")
            ])
            .0
        );
        assert_ne!(
            bare.0,
            hash_of(&[("src/grade/b.rs", CODE), py]).0,
            "names count"
        );
    }

    /// A folder's `tests.rs` declared under `#[cfg(test)]` is a test module: editing it
    /// keeps the hash. Declared without it, it is code.
    #[test]
    fn a_folders_test_file_is_not_hashed() {
        let hash_of = |files: &[(&str, &str)]| {
            let root = tempfile::tempdir().expect("tempdir");
            for (rel, text) in files {
                let path = root.path().join(rel);
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(path, text).expect("write");
            }
            hash_folders(root.path(), &["src/grade"]).expect("hash").0
        };
        let declared = format!("{CODE}\n#[cfg(test)]\nmod tests;\n");
        let mod_rs = "src/grade/store/mod.rs";
        let tests_rs = "src/grade/store/tests.rs";
        let one = "use super::*;\n\n#[test]\nfn t() {\n    assert_eq!(grade(), 1);\n}\n";
        let two = one.replace("assert_eq!(grade(), 1)", "assert!(grade() > 0)");
        assert_eq!(
            hash_of(&[(mod_rs, &declared), (tests_rs, one)]),
            hash_of(&[(mod_rs, &declared), (tests_rs, &two)])
        );
        let plain = format!("{CODE}\nmod tests;\n");
        assert_ne!(
            hash_of(&[(mod_rs, &plain), (tests_rs, one)]),
            hash_of(&[(mod_rs, &plain), (tests_rs, &two)])
        );
    }

    #[test]
    fn code_after_the_test_module_keeps_the_whole_file_hashed() {
        let text = format!("{CODE}#[cfg(test)]\nmod tests {{\n}}\n\npub fn later() {{}}\n");
        let (part, breaks) = hashed_part(Path::new("a.rs"), &text);
        assert!(breaks);
        assert_eq!(part, text.trim_end());
        let cut = test_modules_start(&text).expect("a test module");
        assert_eq!(items_after_tests(&text[cut..]), ["pub fn later() {}"]);
        // A `#[cfg(test)]` item that is not a module does not start the cut.
        let helper = format!("#[cfg(test)]\nfn helper() {{}}\n{CODE}");
        assert_eq!(test_modules_start(&helper), None);
    }

    /// The convention holds in every hashed file: nothing but test modules follows the
    /// first test module (else editing a test would not keep the caches; see the module doc).
    #[test]
    fn every_hashed_file_keeps_its_tests_last() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let (_, broken) = hash_folders(root, HASHED_FOLDERS).expect("sources readable");
        assert!(
            broken.is_empty(),
            "code follows the test module in {broken:?}: move the tests to the end"
        );
    }
}
