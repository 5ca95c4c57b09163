//! The list's search. By default a literal, smart-case match (case-insensitive unless the
//! pattern has a capital) over each rollout's query, whole response (the code is part of
//! it), the names it calls and its id, so "3 of 1,956" is the true count of rollouts that
//! contain the text. Fuzzy subsequence matching over long texts matches nearly any short
//! word, so it is kept behind a `~` prefix and only over short fields (names, ids, the
//! task's title), ranked best first. The same [`Query`] highlights matches in the panes.

use std::ops::Range;
use std::sync::Arc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::entry::{Entry, Task};
use crate::analysis::AnalysisDigest;

/// The prefix that asks for fuzzy matching.
pub const FUZZY_PREFIX: char = '~';

/// How a pattern matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    /// The text itself, smart case.
    Literal,
    /// A subsequence of short fields, ranked (`~` prefix).
    Fuzzy,
}

impl SearchMode {
    /// What the prompt says about this mode (short: filters follow it on the status bar).
    pub fn describe(self, case_sensitive: bool) -> &'static str {
        match (self, case_sensitive) {
            (SearchMode::Literal, false) => "text, any case",
            (SearchMode::Literal, true) => "text, exact case",
            (SearchMode::Fuzzy, _) => "fuzzy: names, ids",
        }
    }
}

/// A parsed search pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub mode: SearchMode,
    /// The text to find (without the prefix).
    pub text: String,
    /// Smart case: a capital in the pattern makes the match exact.
    pub case_sensitive: bool,
    /// `text` lower-cased, for case-insensitive matching.
    folded: Vec<char>,
}

impl Query {
    /// The query of a pattern as typed; `None` when there is nothing to find.
    pub fn parse(pattern: &str) -> Option<Query> {
        let (mode, text) = match pattern.strip_prefix(FUZZY_PREFIX) {
            Some(rest) => (SearchMode::Fuzzy, rest),
            None => (SearchMode::Literal, pattern),
        };
        if text.is_empty() {
            return None;
        }
        let case_sensitive = text.chars().any(char::is_uppercase);
        Some(Query {
            mode,
            text: text.to_string(),
            case_sensitive,
            folded: text.chars().map(fold).collect(),
        })
    }

    /// Whether `haystack` contains the text (literal mode) or the subsequence (fuzzy mode).
    pub fn is_match(&self, haystack: &str) -> bool {
        match self.mode {
            SearchMode::Literal => self.literal_ranges(haystack, 1).next().is_some(),
            SearchMode::Fuzzy => self.fuzzy_score(haystack).is_some(),
        }
    }

    /// Byte ranges of the matches in `haystack`, for highlighting: each occurrence (literal)
    /// or each matched character (fuzzy).
    pub fn ranges(&self, haystack: &str) -> Vec<Range<usize>> {
        match self.mode {
            SearchMode::Literal => self.literal_ranges(haystack, usize::MAX).collect(),
            SearchMode::Fuzzy => {
                let matcher = self.matcher();
                let Some((_, idx)) = matcher.fuzzy_indices(haystack, &self.text) else {
                    return Vec::new();
                };
                haystack
                    .char_indices()
                    .enumerate()
                    .filter(|(k, _)| idx.contains(k))
                    .map(|(_, (b, c))| b..b + c.len_utf8())
                    .collect()
            }
        }
    }

    fn matcher(&self) -> SkimMatcherV2 {
        SkimMatcherV2::default().smart_case()
    }

    fn fuzzy_score(&self, haystack: &str) -> Option<i64> {
        self.matcher().fuzzy_match(haystack, &self.text)
    }

    /// Non-overlapping literal matches, at most `limit`.
    fn literal_ranges<'h>(
        &'h self,
        haystack: &'h str,
        limit: usize,
    ) -> Box<dyn Iterator<Item = Range<usize>> + 'h> {
        if self.case_sensitive {
            return Box::new(
                haystack
                    .match_indices(self.text.as_str())
                    .map(|(i, m)| i..i + m.len())
                    .take(limit),
            );
        }
        if self.text.is_ascii() {
            // Byte comparison: a non-ASCII byte never equals an ASCII one, so matches
            // always start and end on character boundaries.
            let needle = self.text.as_bytes();
            let hay = haystack.as_bytes();
            let first = needle[0].to_ascii_lowercase();
            let mut at = 0;
            return Box::new(
                std::iter::from_fn(move || {
                    while at + needle.len() <= hay.len() {
                        let i = at;
                        at += 1;
                        if hay[i].to_ascii_lowercase() == first
                            && hay[i..i + needle.len()].eq_ignore_ascii_case(needle)
                        {
                            at = i + needle.len();
                            return Some(i..i + needle.len());
                        }
                    }
                    None
                })
                .take(limit),
            );
        }
        // Non-ASCII: compare character by character, each folded to one lower-case char.
        let chars: Vec<(usize, char)> = haystack.char_indices().collect();
        let n = self.folded.len();
        let mut k = 0;
        Box::new(
            std::iter::from_fn(move || {
                while k + n <= chars.len() {
                    let i = k;
                    k += 1;
                    if (0..n).all(|j| fold(chars[i + j].1) == self.folded[j]) {
                        k = i + n;
                        let end = chars.get(i + n).map_or(haystack.len(), |(b, _)| *b);
                        return Some(chars[i].0..end);
                    }
                }
                None
            })
            .take(limit),
        )
    }
}

fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// The rows of a function map (each row's NumPy and zwc names, in screen order) whose
/// names `pattern` matches, by the list's rule ([`Query`]: smart case, `~` fuzzy): the
/// Stats and Training screens' `/`. `None` when there is nothing to find.
pub(crate) fn map_hits<'n>(
    pattern: &str,
    names: impl IntoIterator<Item = (&'n str, &'n str)>,
) -> Option<Vec<usize>> {
    let query = Query::parse(pattern)?;
    Some(
        names
            .into_iter()
            .enumerate()
            .filter(|(_, (numpy, zwc))| query.is_match(numpy) || query.is_match(zwc))
            .map(|(i, _)| i)
            .collect(),
    )
}

/// Where a map search goes among the screen rows `hits` (in order) it matched: the first
/// at or after `start`, wrapping, and what to tell the user (which of how many, or that
/// none matches `pattern`). The Stats and Training screens' `/`.
pub(crate) fn jump_to_hit(hits: &[usize], start: usize, pattern: &str) -> (Option<usize>, String) {
    let next = hits
        .iter()
        .copied()
        .find(|i| *i >= start)
        .or(hits.first().copied());
    let said = match next {
        Some(i) => {
            let k = hits.iter().position(|h| *h == i).map_or(0, |k| k + 1);
            format!("`{pattern}`: {k} of {} functions", hits.len())
        }
        None => format!("no function of this run matches `{pattern}`"),
    };
    (next, said)
}

/// `spans` with every match of `query` (over their joined text) patched with `style`.
pub fn highlight_spans<'a>(spans: Vec<Span<'a>>, query: &Query, style: Style) -> Vec<Span<'a>> {
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    let ranges = query.ranges(&text);
    if ranges.is_empty() {
        return spans;
    }
    let mut out = Vec::with_capacity(spans.len() + 2 * ranges.len());
    let mut at = 0;
    for span in spans {
        let (start, end) = (at, at + span.content.len());
        at = end;
        let mut cut = start;
        let piece = |from: usize, to: usize, matched: bool, out: &mut Vec<Span<'a>>| {
            if from < to {
                let content = text[from..to].to_string();
                let s = if matched {
                    span.style.patch(style)
                } else {
                    span.style
                };
                out.push(Span::styled(content, s));
            }
        };
        for r in ranges.iter().filter(|r| r.start < end && r.end > start) {
            let (from, to) = (r.start.max(start), r.end.min(end));
            piece(cut, from, false, &mut out);
            piece(from, to, true, &mut out);
            cut = to;
        }
        piece(cut, end, false, &mut out);
    }
    out
}

/// A line with its matches highlighted (its own style kept).
pub fn highlight_line(line: Line<'static>, query: &Query, style: Style) -> Line<'static> {
    let Line {
        spans,
        style: line_style,
        alignment,
    } = line;
    let mut out = Line::from(highlight_spans(spans, query, style)).style(line_style);
    out.alignment = alignment;
    out
}

/// Longest piece of a field fuzzy matching looks at: bounded so 100k rows stay fast.
const FUZZY_FIELD_CHARS: usize = 400;

fn bounded(text: &str) -> &str {
    match text.char_indices().nth(FUZZY_FIELD_CHARS) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// Rows matching `pattern`: in file order for a literal match (score: 1), best first for a
/// fuzzy one. `None` when `cancelled` says a newer search has arrived.
pub fn search_rows(
    entries: &[Arc<Entry>],
    digests: &[Option<Arc<AnalysisDigest>>],
    tasks: &[Task],
    pattern: &str,
    cancelled: &mut dyn FnMut() -> bool,
) -> Option<Vec<(usize, i64)>> {
    let Some(query) = Query::parse(pattern) else {
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    match query.mode {
        SearchMode::Literal => {
            // Queries repeat across runs: match each task once.
            let task_hits: Vec<bool> = tasks.iter().map(|t| query.is_match(&t.query)).collect();
            for (row, e) in entries.iter().enumerate() {
                if row % 512 == 0 && cancelled() {
                    return None;
                }
                let digest = digests.get(row).and_then(Option::as_deref);
                let hit = task_hits.get(e.task).copied().unwrap_or(false)
                    || query.is_match(&e.rollout.response)
                    || query.is_match(&e.rollout.id.0)
                    || digest.is_some_and(|d| {
                        d.functions.iter().any(|n| query.is_match(n))
                            || d.zwc_calls.iter().any(|n| query.is_match(n))
                    });
                if hit {
                    out.push((row, 1));
                }
            }
        }
        SearchMode::Fuzzy => {
            let task_scores: Vec<Option<i64>> = tasks
                .iter()
                .map(|t| query.fuzzy_score(bounded(&t.short)))
                .collect();
            for (row, e) in entries.iter().enumerate() {
                if row % 2048 == 0 && cancelled() {
                    return None;
                }
                let digest = digests.get(row).and_then(Option::as_deref);
                let names = digest.map(|d| d.functions.join(" ")).unwrap_or_default();
                let zwc = digest.map(|d| d.zwc_calls.join(" ")).unwrap_or_default();
                let scores = [
                    task_scores.get(e.task).copied().flatten(),
                    query.fuzzy_score(&names),
                    query.fuzzy_score(bounded(&zwc)),
                    query.fuzzy_score(&e.rollout.id.0),
                ];
                if let Some(best) = scores.into_iter().flatten().max() {
                    out.push((row, best));
                }
            }
            out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(p: &str) -> Query {
        Query::parse(p).expect("a query")
    }

    /// The Stats and Training screens' `/` over a map's (NumPy, zwc) names: the list's rule.
    #[test]
    fn map_search_is_smart_case_over_both_names() {
        let names = [
            ("np.mean", "zwc.kocito"),
            ("np.linalg.inv", "zwc.rfx.quvohe"),
            ("np.Mean_like", "zwc.yitaf"),
        ];
        let hits = |p: &str| map_hits(p, names.iter().copied());
        // Lower case: any case, in either name.
        assert_eq!(hits("mean"), Some(vec![0, 2]));
        assert_eq!(hits("KOCITO"), Some(vec![]));
        assert_eq!(hits("kocito"), Some(vec![0]));
        // A capital: exact case.
        assert_eq!(hits("Mean"), Some(vec![2]));
        // `~`: fuzzy, as the list's search.
        assert_eq!(hits("~lnv"), Some(vec![1]));
        // Nothing to find.
        assert_eq!(hits(""), None);
        assert_eq!(hits("~"), None);
    }

    #[test]
    fn literal_is_smart_case_and_never_a_subsequence() {
        assert!(q("np.pi").is_match("x = NP.PI * r"));
        assert!(!q("NP.PI").is_match("x = np.pi * r"));
        assert!(q("NP.PI").is_match("x = NP.PI * r"));
        // A fuzzy matcher would take this; a literal one must not.
        assert!(!q("mean").is_match("make each array nice"));
        assert_eq!(q("ab").ranges("xxABxab"), vec![2..4, 5..7]);
        assert_eq!(q("é").ranges("cafÉ é"), vec![3..5, 6..8]);
        assert_eq!(q("aa").ranges("aaaa"), vec![0..2, 2..4]);
    }

    #[test]
    fn highlighting_splits_spans_at_matches() {
        let bold = Style::default().add_modifier(ratatui::style::Modifier::BOLD);
        let spans = vec![Span::raw("zwc.ko"), Span::raw("cito(a) + kocito")];
        let out = highlight_spans(spans, &q("kocito"), bold);
        let pieces: Vec<(&str, bool)> = out
            .iter()
            .map(|s| (s.content.as_ref(), s.style == bold))
            .collect();
        assert_eq!(
            pieces,
            vec![
                ("zwc.", false),
                ("ko", true),
                ("cito", true),
                ("(a) + ", false),
                ("kocito", true)
            ]
        );
    }

    #[test]
    fn the_prefix_asks_for_fuzzy() {
        let f = q("~kct");
        assert_eq!(f.mode, SearchMode::Fuzzy);
        assert!(f.is_match("zwc.kocito"));
        assert!(!q("kct").is_match("zwc.kocito"));
        assert!(Query::parse("~").is_none());
        assert!(Query::parse("").is_none());
    }
}
