//! One resolver of inputs and verdicts for every front end (explorer, `stats`, `compare`,
//! `labels export`): which of the paths given is a run, a scored file, a
//! correct-trajectories file, a dataset or an API doc, and where each rollout's verdict
//! comes from, by one precedence, so that the same inputs give a rollout the same verdict
//! in every command. The precedence, most trusted first ([`VerdictSource`]):
//!
//! 1. `scored`: a `sebx grade` output given with the inputs (the grading the user asked for);
//! 2. `correct`: the official correct-trajectories file (every line in it was judged right);
//! 3. `stored`: a verdict stored in the rollout line itself (a bare score that names no
//!    verdict, such as `"score": 1`, is not one: the rollout is graded);
//! 4. `rerun`: the latest rerun of the rollout's own code in `<file>.reruns.jsonl` (where
//!    [`SidecarPlaces`] keeps it);
//! 5. `cache`: a verdict the score cache remembers for the same grading;
//! 6. `graded`: graded now.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::grade::facts::Facts;
use crate::grade::report::{GradeReport, ReasonKind, read_reports};
use crate::grade::reruns::{RERUNS_SUFFIX, RerunStore};
use crate::grade::score_cache::ScoreCache;
use crate::model::sidecar::SidecarPlaces;
use crate::model::{LoadIssue, Rollout, RolloutId, Verdict};

/// Where a rollout's verdict came from, in order of precedence (the first wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictSource {
    Scored,
    Correct,
    Stored,
    Rerun,
    Cache,
    Graded,
}

impl VerdictSource {
    pub const ALL: [VerdictSource; 6] = [
        VerdictSource::Scored,
        VerdictSource::Correct,
        VerdictSource::Stored,
        VerdictSource::Rerun,
        VerdictSource::Cache,
        VerdictSource::Graded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            VerdictSource::Scored => "scored",
            VerdictSource::Correct => "correct",
            VerdictSource::Stored => "stored",
            VerdictSource::Rerun => "rerun",
            VerdictSource::Cache => "cache",
            VerdictSource::Graded => "graded",
        }
    }

    /// Where the verdict came from, in a user's words (the explorer's Cases pane): `from
    /// the scored file`, `remembered (score cache)`, `graded now`…
    pub fn described(self) -> &'static str {
        match self {
            VerdictSource::Scored => "from the scored file",
            VerdictSource::Correct => "correct-trajectories file",
            VerdictSource::Stored => "stored in the line",
            VerdictSource::Rerun => "latest rerun",
            VerdictSource::Cache => "remembered (score cache)",
            VerdictSource::Graded => "graded now",
        }
    }

    /// Whether a verdict from here has a report that can be read again when it is wanted
    /// (the rerun sidecar, the score cache), so a front end may hold the verdict alone.
    pub fn report_kept(self) -> bool {
        matches!(
            self,
            VerdictSource::Rerun | VerdictSource::Cache | VerdictSource::Graded
        )
    }
}

impl std::fmt::Display for VerdictSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A rollout's verdict, where it came from, and what else its grade decided (the official
/// RL reward when known, the run's flags): the grade layer's [`Facts`], whose verdict is
/// always `Some(verdict)` here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub verdict: Verdict,
    pub source: VerdictSource,
    pub facts: Facts,
}

impl Resolved {
    pub fn of_report(report: &GradeReport, source: VerdictSource) -> Option<Resolved> {
        Resolved::of_facts(Facts::of(report), source)
    }

    /// The resolution `facts` give, if they hold a verdict.
    pub fn of_facts(facts: Facts, source: VerdictSource) -> Option<Resolved> {
        Some(Resolved {
            verdict: facts.verdict?,
            source,
            facts,
        })
    }

    fn verdict(verdict: Verdict, source: VerdictSource) -> Resolved {
        Resolved {
            verdict,
            source,
            facts: Facts::verdict(verdict),
        }
    }

    /// The official RL reward, when known.
    pub fn reward(&self) -> Option<u8> {
        self.facts.reward
    }

    /// Why the reward and the verdict disagree, where they do.
    pub fn reason(&self) -> Option<ReasonKind> {
        self.facts.reason
    }

    /// What the report said of the run, when the verdict came from one.
    pub fn timed_out(&self) -> bool {
        self.facts.timed_out
    }

    /// The grader's static check found that the assembled program does not parse.
    pub fn program_syntax_error(&self) -> bool {
        self.facts.program_syntax_error
    }
}

/// What a rollout shown with one answer holds when another arrives ([`settle`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The answer that arrived wins: it is held (with the report it came with).
    Arrived(Resolved),
    /// The answer held stands, completed with what the other grade adds (the behaviour
    /// questions' answers, as [`Resolver::known_many`] adds them).
    Held(Resolved),
}

/// Which answer a rollout holds when `arrived` reaches a front end that shows `held` (the
/// explorer's rows, whose answers come one by one: a scored file matched, a remembered
/// verdict, a fresh grade). By the [`VerdictSource`] order, the first wins; from one
/// source, the newer (a later scored file, a fresh grade, the report of a verdict held by
/// its facts). Between the two grades of the rollout's code under the grader's settings,
/// the cache's and one made now, the newer wins (the cache ranks first only to spare a
/// grade), and the cache's copy of a grade made now (the same facts: the grader wrote
/// it there) is still that grade made now. A rerun never arrives this way in a session:
/// its verdict is shown beside the row's (the Rerun panel) and is the row's at the next
/// opening, by [`Resolver::late`].
pub fn settle(held: Option<&Resolved>, arrived: Resolved) -> Settled {
    use VerdictSource::{Cache, Graded};
    let Some(held) = held else {
        return Settled::Arrived(arrived);
    };
    match (held.source, arrived.source) {
        (Graded, Cache) if held.facts == arrived.facts => Settled::Arrived(Resolved {
            source: Graded,
            ..arrived
        }),
        (Cache, Graded) => Settled::Arrived(arrived),
        (h, a) if a <= h => Settled::Arrived(arrived),
        _ => {
            let mut kept = *held;
            if kept.facts.behaviour.is_none() && arrived.facts.behaviour.is_some() {
                kept.facts.take_behaviour(&arrived.facts);
            }
            Settled::Held(kept)
        }
    }
}

/// The answer a report gives a front end it reaches one by one (a scored file's line the
/// explorer matched, a grade made now), as `source`: `None` when it names no verdict (no
/// answer: such a rollout is graded, and the report says why). [`settle`] decides whether
/// it is held.
pub fn report_answer(report: &GradeReport, source: VerdictSource) -> Option<Resolved> {
    Resolved::of_report(report, source)
}

/// Sources 2–3, what a rollout's own file says: `right` in a correct-trajectories file, else
/// a verdict stored in the line. A stored score that names no verdict (`"score": 1`,
/// `"passed": true`) is not one: such a rollout is graded like any other (the score stays
/// on the rollout, shown beside the verdict).
pub fn in_file_verdict(rollout: &Rollout, in_correct_file: bool) -> Option<Resolved> {
    if in_correct_file {
        return Some(Resolved::verdict(Verdict::Right, VerdictSource::Correct));
    }
    let stored = rollout.stored_score.as_ref()?.verdict?;
    Some(Resolved::verdict(stored, VerdictSource::Stored))
}

/// Gives rollouts their verdicts by the precedence of the module doc, short of grading.
pub struct Resolver {
    scored: HashMap<RolloutId, Resolved>,
    /// Rerun sidecars by rollout file, opened on first use (`None`: none, or unreadable).
    reruns: Mutex<HashMap<PathBuf, Option<Arc<RerunStore>>>>,
    cache: Option<Arc<ScoreCache>>,
    /// Where the rerun sidecars are (`session::sidecars`).
    places: SidecarPlaces,
}

impl Resolver {
    /// A resolver over the scored files `reports` (later files win for the same rollout),
    /// the rollout files' rerun sidecars and `cache`. Lines of a scored file that are not
    /// reports come back as issues.
    pub fn new(
        reports: &[PathBuf],
        cache: Option<Arc<ScoreCache>>,
    ) -> Result<(Resolver, Vec<LoadIssue>)> {
        let mut scored = HashMap::new();
        let mut issues = Vec::new();
        for path in reports {
            let found = read_reports(path, &mut |r| {
                if let (Some(known), Some(id)) =
                    (Resolved::of_report(&r, VerdictSource::Scored), r.id)
                {
                    scored.insert(id, known);
                }
            })
            .with_context(|| format!("cannot read {}", path.display()))?;
            issues.extend(found);
        }
        Ok((
            Resolver {
                scored,
                reruns: Mutex::new(HashMap::new()),
                cache,
                places: SidecarPlaces::default(),
            },
            issues,
        ))
    }

    /// A resolver with no scored files (the explorer matches its reports itself).
    pub fn without_reports(cache: Option<Arc<ScoreCache>>) -> Resolver {
        Resolver {
            scored: HashMap::new(),
            reruns: Mutex::new(HashMap::new()),
            cache,
            places: SidecarPlaces::default(),
        }
    }

    /// The same resolver reading rerun sidecars where `places` puts them (default: beside
    /// each rollout file only).
    pub fn with_sidecars(mut self, places: SidecarPlaces) -> Resolver {
        self.places = places;
        self
    }

    /// Sources 1–3: a scored file, the correct-trajectories file, a score in the line.
    pub fn early(&self, rollout: &Rollout, in_correct_file: bool) -> Option<Resolved> {
        if let Some(known) = self.scored.get(&rollout.id) {
            return Some(*known);
        }
        in_file_verdict(rollout, in_correct_file)
    }

    /// Sources 4–5, with the report they come from: the latest rerun, the score cache.
    pub fn late(&self, rollout: &Rollout) -> Option<(VerdictSource, GradeReport)> {
        if let Some(store) = self.reruns_of(&rollout.source)
            && let Some(record) = store.latest_graded(&rollout.id)
            && record.report.verdict.is_some()
        {
            return Some((VerdictSource::Rerun, record.report.clone()));
        }
        let report = self.cache.as_ref()?.get(rollout)?;
        report.verdict?;
        Some((VerdictSource::Cache, report))
    }

    /// Sources 4–5 by their facts: the latest rerun's, else the score cache's (no report
    /// read from the cache).
    pub fn late_facts(&self, rollout: &Rollout) -> Option<(VerdictSource, Facts)> {
        self.late_facts_many(&[rollout]).pop().flatten()
    }

    /// [`Resolver::late_facts`] of many rollouts, in order, the cache's read in batches.
    pub fn late_facts_many(&self, rollouts: &[&Rollout]) -> Vec<Option<(VerdictSource, Facts)>> {
        self.late_facts_cut(rollouts, None)
    }

    /// [`Resolver::late_facts_many`]; with `cuts` (each segment's end, increasing), the
    /// cache reads the rows it is asked for by segment ([`ScoreCache::facts_cut`]: a
    /// segment it kept as a set is one read).
    pub fn late_facts_cut(
        &self,
        rollouts: &[&Rollout],
        cuts: Option<&[usize]>,
    ) -> Vec<Option<(VerdictSource, Facts)>> {
        let mut out: Vec<Option<(VerdictSource, Facts)>> =
            rollouts.iter().map(|r| self.rerun_facts(r)).collect();
        if let Some(cache) = &self.cache {
            let asked: Vec<usize> = (0..rollouts.len()).filter(|&i| out[i].is_none()).collect();
            let of: Vec<&Rollout> = asked.iter().map(|&i| rollouts[i]).collect();
            let found = match cuts {
                // Each segment's end among the rows asked of the cache.
                Some(cuts) => {
                    let ends: Vec<usize> = cuts
                        .iter()
                        .map(|&c| asked.partition_point(|&i| i < c))
                        .collect();
                    cache.facts_cut(&of, &ends)
                }
                None => cache.facts_many(&of),
            };
            for (i, facts) in asked.into_iter().zip(found) {
                out[i] = facts
                    .filter(|f| f.verdict.is_some())
                    .map(|f| (VerdictSource::Cache, f));
            }
        }
        out
    }

    /// Source 4's facts: the latest rerun's, when it has a verdict.
    fn rerun_facts(&self, rollout: &Rollout) -> Option<(VerdictSource, Facts)> {
        let store = self.reruns_of(&rollout.source)?;
        let record = store.latest_graded(&rollout.id)?;
        record.report.verdict?;
        Some((VerdictSource::Rerun, Facts::of(&record.report)))
    }

    /// Sources 1–5: the verdict a rollout has without grading it now.
    pub fn known(&self, rollout: &Rollout, in_correct_file: bool) -> Option<Resolved> {
        self.known_many(&[rollout], in_correct_file).pop().flatten()
    }

    /// [`Resolver::known`] of many rollouts (of one file: `in_correct_file` is the file's),
    /// in order; the score cache's facts are read in batches.
    pub fn known_many(
        &self,
        rollouts: &[&Rollout],
        in_correct_file: bool,
    ) -> Vec<Option<Resolved>> {
        let mut out: Vec<Option<Resolved>> = rollouts
            .iter()
            .map(|r| self.early(r, in_correct_file))
            .collect();
        let asked: Vec<usize> = (0..rollouts.len()).filter(|&i| out[i].is_none()).collect();
        let of: Vec<&Rollout> = asked.iter().map(|&i| rollouts[i]).collect();
        for (i, late) in asked.into_iter().zip(self.late_facts_many(&of)) {
            out[i] = late.and_then(|(source, facts)| Resolved::of_facts(facts, source));
        }
        // A verdict a file or a rerun gives that a scorer pays keeps the behaviour
        // questions' answers a grade of the same rollout found (they come from grading).
        if let Some(cache) = &self.cache {
            let asked: Vec<usize> = (0..rollouts.len())
                .filter(|&i| {
                    out[i].is_some_and(|k| {
                        k.source != VerdictSource::Cache
                            && k.facts.behaviour.is_none()
                            && (k.verdict == Verdict::Right || k.facts.reward == Some(1))
                    })
                })
                .collect();
            if !asked.is_empty() {
                let of: Vec<&Rollout> = asked.iter().map(|&i| rollouts[i]).collect();
                for (i, facts) in asked.into_iter().zip(cache.facts_many(&of)) {
                    if let (Some(k), Some(f)) = (out[i].as_mut(), facts) {
                        k.facts.take_behaviour(&f);
                    }
                }
            }
        }
        out
    }

    /// Sources 4–5 for many rollouts at once (the explorer's rows that their files left
    /// without a verdict): each one's latest rerun or remembered report, if any.
    /// `each` is called with every rollout's answer in turn, so that a caller keeping only
    /// part of each report never holds them all.
    pub fn remembered<'a>(
        cache: Option<Arc<ScoreCache>>,
        places: &SidecarPlaces,
        rollouts: impl IntoIterator<Item = &'a Rollout>,
        each: &mut dyn FnMut(Option<(Resolved, GradeReport)>),
    ) {
        let resolver = Resolver::without_reports(cache).with_sidecars(places.clone());
        for r in rollouts {
            each(resolver.late(r).and_then(|(source, report)| {
                Some((Resolved::of_report(&report, source)?, report))
            }));
        }
    }

    /// Sources 4–5 for many rollouts by their facts (the explorer's rows that their files
    /// left without a verdict), in order: no report is read from the cache.
    /// `cuts`: the segments the rows came in (see [`Resolver::late_facts_cut`]).
    pub fn remembered_facts(
        cache: Option<Arc<ScoreCache>>,
        places: &SidecarPlaces,
        rollouts: &[&Rollout],
        cuts: &[usize],
    ) -> Vec<Option<(VerdictSource, Facts)>> {
        Resolver::without_reports(cache)
            .with_sidecars(places.clone())
            .late_facts_cut(rollouts, Some(cuts))
    }

    fn reruns_of(&self, file: &Path) -> Option<Arc<RerunStore>> {
        let mut map = self.reruns.lock().ok()?;
        map.entry(file.to_path_buf())
            .or_insert_with(|| {
                let sidecar = self.places.locate(file, RERUNS_SUFFIX).path;
                if !sidecar.is_file() {
                    return None;
                }
                RerunStore::open_sidecar(&sidecar)
                    .ok()
                    .map(|(store, _)| Arc::new(store))
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_precedence_is_the_documented_order() {
        let mut sorted = VerdictSource::ALL;
        sorted.sort();
        assert_eq!(sorted, VerdictSource::ALL);
        let names: Vec<&str> = VerdictSource::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            names,
            ["scored", "correct", "stored", "rerun", "cache", "graded"]
        );
    }

    #[test]
    fn an_answer_that_arrives_wins_by_the_order_and_never_over_a_scored_file() {
        use VerdictSource::*;
        let answer = |verdict, source| Resolved::verdict(verdict, source);
        let scored = answer(Verdict::ResultError, Scored);
        // Nothing held: whatever arrives.
        for source in VerdictSource::ALL {
            let a = answer(Verdict::Right, source);
            assert_eq!(settle(None, a), Settled::Arrived(a));
        }
        // A scored file's verdict stands against every later source, and a later scored
        // file replaces it.
        for source in [Correct, Stored, Rerun, Cache, Graded] {
            assert_eq!(
                settle(Some(&scored), answer(Verdict::Right, source)),
                Settled::Held(scored)
            );
        }
        let later = answer(Verdict::Right, Scored);
        assert_eq!(settle(Some(&scored), later), Settled::Arrived(later));
        // A rerun stands against the cache and a grade; a grade made now replaces the
        // cache's.
        let rerun = answer(Verdict::ExeError, Rerun);
        assert_eq!(
            settle(Some(&rerun), answer(Verdict::Right, Cache)),
            Settled::Held(rerun)
        );
        let graded = answer(Verdict::Right, Graded);
        assert_eq!(
            settle(Some(&answer(Verdict::ExeError, Cache)), graded),
            Settled::Arrived(graded)
        );
        // The cache's copy of a grade made now is still the grade made now; another grade
        // in the cache is the cache's.
        assert_eq!(
            settle(Some(&graded), answer(Verdict::Right, Cache)),
            Settled::Arrived(graded)
        );
        let other = answer(Verdict::ResultError, Cache);
        assert_eq!(settle(Some(&graded), other), Settled::Arrived(other));
        // A held answer takes the behaviour answers of a grade that loses to it.
        let mut asked = answer(Verdict::Right, Graded);
        asked.facts.behaviour = Some(0);
        let Settled::Held(kept) = settle(Some(&rerun), asked) else {
            panic!("the rerun stands");
        };
        assert_eq!((kept.verdict, kept.source), (Verdict::ExeError, Rerun));
        assert_eq!(kept.facts.behaviour, Some(0));
    }

    #[test]
    fn every_source_is_described() {
        let words: std::collections::HashSet<&str> =
            VerdictSource::ALL.iter().map(|s| s.described()).collect();
        assert_eq!(words.len(), VerdictSource::ALL.len());
    }

    #[test]
    fn scored_files_beat_correct_files_beat_stored_scores() {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = dir.path().join("run.jsonl");
        let line = |q: &str, verdict: Option<&str>| {
            let mut v = serde_json::json!({"query": q, "response": "r", "test_cases": [],
                "right_exe_result": "1"});
            if let Some(verdict) = verdict {
                v["verdict"] = serde_json::json!(verdict);
            }
            v.to_string()
        };
        let text = format!(
            "{}\n{}\n{}\n",
            line("a", Some("exe_error")),
            line("b", Some("result_error")),
            line("c", None)
        );
        let loaded = crate::model::rollout::parse_rollout_bytes(&run, text.as_bytes());
        let [a, b, c] = [0, 1, 2].map(|i| &loaded.rollouts[i]);
        // A report for `a` (and a line the grader could not load, which gives nothing).
        let mut report = GradeReport::load_failure("run.jsonl", 1, "x");
        report.id = Some(a.id.clone());
        report.verdict = Some(Verdict::Right);
        report.load_error = None;
        let failed = GradeReport::load_failure("run.jsonl", 2, "bad line");
        let scored = dir.path().join("scored.jsonl");
        std::fs::write(
            &scored,
            format!(
                "{}\n{}\n",
                serde_json::to_string(&report).expect("json"),
                serde_json::to_string(&failed).expect("json")
            ),
        )
        .expect("write");
        let (resolver, issues) = Resolver::new(&[scored], None).expect("resolver");
        assert!(issues.is_empty());
        let of = |r: &Rollout, correct| resolver.known(r, correct).map(|k| (k.verdict, k.source));
        assert_eq!(of(a, false), Some((Verdict::Right, VerdictSource::Scored)));
        assert_eq!(of(a, true), Some((Verdict::Right, VerdictSource::Scored)));
        assert_eq!(of(b, true), Some((Verdict::Right, VerdictSource::Correct)));
        assert_eq!(
            of(b, false),
            Some((Verdict::ResultError, VerdictSource::Stored))
        );
        assert_eq!(of(c, false), None);
    }
}
