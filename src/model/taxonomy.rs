//! Error categories used when labelling rollouts, read from TOML.
//!
//! The default set (`default_taxonomy.toml`, embedded) fits SE-Bench failures. A project
//! can replace it with a `sebx-taxonomy.toml` next to its rollout file or in any parent
//! folder, or with an explicit path.

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::finding_kinds::{KINDS, KindSpec};
use super::verdict::Verdict;

/// The embedded default taxonomy.
pub const DEFAULT_TAXONOMY_TOML: &str = include_str!("default_taxonomy.toml");

/// File name looked up next to a rollout file and in its parent folders.
pub const TAXONOMY_FILE_NAME: &str = "sebx-taxonomy.toml";

/// A category's stable id (snake_case), as stored in label files.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CategoryId(pub String);

impl CategoryId {
    /// An id from text (validity is checked when a taxonomy is parsed, not here).
    pub fn new(id: &str) -> CategoryId {
        CategoryId(id.to_string())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CategoryId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One error category.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Category {
    pub id: CategoryId,
    /// Short name shown on screen.
    pub label: String,
    /// The key that toggles it, if any.
    pub key: Option<char>,
    pub description: String,
}

/// An ordered list of categories with unique ids and keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taxonomy {
    pub categories: Vec<Category>,
    /// The file it was read from; `None` for the embedded default.
    pub source: Option<PathBuf>,
}

/// A taxonomy file that cannot be used, with where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaxonomyError {
    /// The file, or `None` for text not read from a file.
    pub path: Option<PathBuf>,
    /// 1-based line, when the problem has a place.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for TaxonomyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "<taxonomy>".to_string());
        match self.line {
            Some(line) => write!(f, "{name}:{line}: {}", self.message),
            None => write!(f, "{name}: {}", self.message),
        }
    }
}

impl std::error::Error for TaxonomyError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTaxonomy {
    #[serde(default)]
    category: Vec<RawCategory>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCategory {
    id: toml::Spanned<String>,
    label: toml::Spanned<String>,
    key: Option<toml::Spanned<String>>,
    #[serde(default)]
    description: String,
}

impl Taxonomy {
    /// The embedded default categories.
    pub fn default_set() -> Taxonomy {
        // The embedded file is checked by a unit test; failing here is a build defect.
        Taxonomy::parse(DEFAULT_TAXONOMY_TOML, None).unwrap_or_else(|e| {
            panic!("embedded default taxonomy is invalid: {e}");
        })
    }

    /// Parses and validates TOML text; `path` is only used in error messages.
    pub fn parse(text: &str, path: Option<&Path>) -> Result<Taxonomy, TaxonomyError> {
        let error = |span: Option<Range<usize>>, message: String| TaxonomyError {
            path: path.map(Path::to_path_buf),
            line: span.map(|s| line_of(text, s.start)),
            message,
        };
        let raw: RawTaxonomy =
            toml::from_str(text).map_err(|e| error(e.span(), e.message().trim().to_string()))?;
        if raw.category.is_empty() {
            return Err(error(
                None,
                "no categories: add at least one [[category]] table".to_string(),
            ));
        }
        let mut ids = HashSet::new();
        let mut keys = HashSet::new();
        let mut categories = Vec::with_capacity(raw.category.len());
        for raw in raw.category {
            let id = raw.id.get_ref();
            if !is_snake_case(id) {
                return Err(error(
                    Some(raw.id.span()),
                    format!(
                        "category id `{id}` must be snake_case (a lowercase letter, then lowercase letters, digits or `_`)"
                    ),
                ));
            }
            if !ids.insert(id.clone()) {
                return Err(error(
                    Some(raw.id.span()),
                    format!("category id `{id}` is used twice"),
                ));
            }
            if raw.label.get_ref().trim().is_empty() {
                return Err(error(
                    Some(raw.label.span()),
                    format!("category `{id}` has an empty label"),
                ));
            }
            let key = match &raw.key {
                None => None,
                Some(key) => {
                    let mut chars = key.get_ref().chars();
                    let (Some(c), None) = (chars.next(), chars.next()) else {
                        return Err(error(
                            Some(key.span()),
                            format!(
                                "key `{}` of category `{id}` must be exactly one character",
                                key.get_ref()
                            ),
                        ));
                    };
                    if c.is_whitespace() || c.is_control() {
                        return Err(error(
                            Some(key.span()),
                            format!("key of category `{id}` must be a visible character"),
                        ));
                    }
                    if !keys.insert(c) {
                        return Err(error(
                            Some(key.span()),
                            format!("key `{c}` of category `{id}` is already used"),
                        ));
                    }
                    Some(c)
                }
            };
            categories.push(Category {
                id: CategoryId(id.clone()),
                label: raw.label.into_inner(),
                key,
                description: raw.description,
            });
        }
        Ok(Taxonomy {
            categories,
            source: path.map(Path::to_path_buf),
        })
    }

    /// Reads and validates a taxonomy file.
    pub fn load(path: &Path) -> Result<Taxonomy, TaxonomyError> {
        let text = std::fs::read_to_string(path).map_err(|e| TaxonomyError {
            path: Some(path.to_path_buf()),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        Taxonomy::parse(&text, Some(path))
    }

    /// The nearest `sebx-taxonomy.toml` in the rollout file's folder or a parent folder.
    pub fn find_for(rollout_file: &Path) -> Option<PathBuf> {
        let absolute = std::path::absolute(rollout_file).ok()?;
        absolute
            .parent()?
            .ancestors()
            .map(|dir| dir.join(TAXONOMY_FILE_NAME))
            .find(|candidate| candidate.is_file())
    }

    /// The taxonomy for a rollout file: `explicit` when given, else the nearest
    /// `sebx-taxonomy.toml`, else the default set.
    pub fn for_rollout_file(
        rollout_file: &Path,
        explicit: Option<&Path>,
    ) -> Result<Taxonomy, TaxonomyError> {
        match explicit
            .map(Path::to_path_buf)
            .or_else(|| Taxonomy::find_for(rollout_file))
        {
            Some(path) => Taxonomy::load(&path),
            None => Ok(Taxonomy::default_set()),
        }
    }

    /// The category with this id.
    pub fn get(&self, id: &CategoryId) -> Option<&Category> {
        self.categories.iter().find(|c| &c.id == id)
    }

    /// This taxonomy with a key on every category it can: categories without one take the
    /// first of `spare` (in order) that no category uses yet, in taxonomy order. The keys a
    /// front end can spare are its to say (the explorer's are those its keymap leaves free).
    pub fn with_spare_keys(mut self, spare: &[char]) -> Taxonomy {
        let mut free = spare
            .iter()
            .copied()
            .filter(|c| self.by_key(*c).is_none())
            .collect::<Vec<char>>()
            .into_iter();
        for c in self.categories.iter_mut().filter(|c| c.key.is_none()) {
            match free.next() {
                Some(k) => c.key = Some(k),
                None => break,
            }
        }
        self
    }

    /// The category a key toggles.
    pub fn by_key(&self, key: char) -> Option<&Category> {
        self.categories.iter().find(|c| c.key == Some(key))
    }

    /// Every id, in taxonomy order.
    pub fn ids(&self) -> Vec<CategoryId> {
        self.categories.iter().map(|c| c.id.clone()).collect()
    }

    /// [`suggest_category`], kept only when this taxonomy has that category.
    pub fn suggest(
        &self,
        verdict: Option<Verdict>,
        finding_kinds: &[&str],
        timed_out: bool,
        extraction_found: bool,
    ) -> Option<&Category> {
        let id = suggest_category(verdict, finding_kinds, timed_out, extraction_found)?;
        self.get(&id)
    }
}

fn is_snake_case(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// A first guess at the error category of a rollout, in default-taxonomy ids, to pre-select
/// for the annotator. `finding_kinds` are the analysis finding kinds of the rollout
/// (`numpy_import`, `numpy_attribute`, `numpy_name_on_zwc`, `unknown_zwc_name`,
/// `array_method`, `off_task_function`, `syntax_error`).
///
/// Rules, first match wins:
/// 1. `right` → none (nothing to label), unless a kind suggests a category for it (below).
/// 2. Timed out → `timeout`.
/// 3. `use_numpy` → `numpy_import`.
/// 4. `without_zwc`: no code extracted or a `syntax_error` finding → `no_code`;
///    otherwise → `not_using_zwc`.
/// 5. `exe_error` or not graded: the `exe_error_category` of the first of the rollout's
///    kinds in the kind table's suggestion order (`model::finding_kinds`: a NumPy name on
///    zwc, an invented name, an array method, a NumPy import or attribute, an off-task
///    function). Not graded and no code → `no_code`. No such kind → none (a crash without a
///    static clue needs a look).
/// 6. `result_error`: the first kind's `result_error_category` (an array method after a
///    debug print, an off-task function); otherwise `logic_error` (wrong arguments and
///    format errors cannot be told apart without reading).
///
/// A `right` rollout gets the `right_category` of its kinds (a loophole), else none.
pub fn suggest_category(
    verdict: Option<Verdict>,
    finding_kinds: &[&str],
    timed_out: bool,
    extraction_found: bool,
) -> Option<CategoryId> {
    let has = |kind: &str| finding_kinds.contains(&kind);
    let id = |s: &str| Some(CategoryId::new(s));
    // The category the first of the rollout's kinds (in the table's suggestion order)
    // suggests for this verdict.
    let by_kind = |category: fn(&KindSpec) -> Option<&'static str>| {
        let mut specs: Vec<&KindSpec> = KINDS
            .iter()
            .filter(|s| has(s.name) && category(s).is_some())
            .collect();
        specs.sort_by_key(|s| s.suggest_rank);
        specs.first().and_then(|s| category(s)).map(CategoryId::new)
    };
    if verdict == Some(Verdict::Right) {
        return by_kind(|s| s.right_category);
    }
    if timed_out {
        return id("timeout");
    }
    match verdict {
        Some(Verdict::Right) => None,
        Some(Verdict::UseNumpy) => id("numpy_import"),
        Some(Verdict::WithoutZwc) => {
            if !extraction_found || has("syntax_error") {
                id("no_code")
            } else {
                id("not_using_zwc")
            }
        }
        Some(Verdict::ExeError) | None => by_kind(|s| s.exe_error_category).or_else(|| {
            (verdict.is_none() && !extraction_found).then(|| CategoryId::new("no_code"))
        }),
        Some(Verdict::ResultError) => {
            by_kind(|s| s.result_error_category).or_else(|| id("logic_error"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every category a finding kind suggests (the kind table's) is in the default taxonomy.
    #[test]
    fn the_kind_tables_categories_exist() {
        let taxonomy = Taxonomy::default_set();
        for s in &KINDS {
            for c in [
                s.exe_error_category,
                s.result_error_category,
                s.right_category,
            ]
            .into_iter()
            .flatten()
            {
                assert!(
                    taxonomy.categories.iter().any(|t| t.id.as_str() == c),
                    "{}: category {c} is not in the default taxonomy",
                    s.name
                );
            }
        }
    }

    #[test]
    fn embedded_default_is_valid_and_keys_the_first_nine() {
        let t = Taxonomy::default_set();
        assert_eq!(t.categories.len(), 13);
        let keys: Vec<Option<char>> = t.categories.iter().map(|c| c.key).collect();
        let expected: Vec<Option<char>> = ('1'..='9').map(Some).chain([None; 4]).collect();
        assert_eq!(keys, expected);
        assert_eq!(
            t.by_key('4').map(|c| c.id.as_str()),
            Some("numpy_method_on_zwcarray")
        );
        assert!(t.categories.iter().all(|c| !c.description.is_empty()));
    }

    #[test]
    fn spare_keys_go_to_the_categories_without_one() {
        let t = Taxonomy::default_set().with_spare_keys(&['1', '0', 'x', 'y', 'z']);
        let keys: Vec<(String, Option<char>)> = t
            .categories
            .iter()
            .skip(9)
            .map(|c| (c.id.0.clone(), c.key))
            .collect();
        assert_eq!(
            keys,
            vec![
                ("not_using_zwc".to_string(), Some('0')),
                ("timeout".to_string(), Some('x')),
                ("other".to_string(), Some('y')),
                ("loophole".to_string(), Some('z')),
            ]
        );
        assert_eq!(t.by_key('1').map(|c| c.id.as_str()), Some("numpy_import"));
    }

    #[test]
    fn every_suggestion_is_a_default_category() {
        let t = Taxonomy::default_set();
        let kinds = [
            "numpy_import",
            "numpy_attribute",
            "numpy_name_on_zwc",
            "unknown_zwc_name",
            "array_method",
            "off_task_function",
            "syntax_error",
        ];
        for verdict in Verdict::ALL.map(Some).into_iter().chain([None]) {
            for kind in kinds {
                for timed_out in [false, true] {
                    for found in [false, true] {
                        if let Some(id) = suggest_category(verdict, &[kind], timed_out, found) {
                            assert!(t.get(&id).is_some(), "{id} is not a default category");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn line_of_counts_newlines() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 4), 3);
    }
}
