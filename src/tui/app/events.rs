//! The workers' results ([`JobEvent`]s: loading, grades, cached scores, searches, analyses,
//! highlights, reruns, stats, exports) and the requests they answer: grading, searching and
//! the background analysis. The view is marked dirty, not rebuilt (`App::settle`).

use std::sync::Arc;

use crate::analysis::AnalysisDigest;

use super::super::effects::Effects;
use super::super::entry::Score;
use super::super::jobs::{JobEvent, JobRequest, Remembered};
use super::super::load::LoadEvent;
use super::super::state::{Grading, Grouping};
use super::App;
use crate::grade::facts::Facts;
use crate::session::resolve::{Resolved, Settled, VerdictSource, report_answer, settle};

impl App {
    /// Applies a worker's result; returns whether the screen must be redrawn.
    /// View changes are batched: call [`App::settle`] after draining events.
    pub fn on_job(&mut self, event: JobEvent) -> bool {
        match event {
            JobEvent::Load(e) => self.on_load(e),
            JobEvent::Graded {
                ticket,
                row,
                result,
            } => {
                if self.caches.reward_only.get(&row) == Some(&ticket) {
                    self.caches.reward_only.remove(&row);
                    return self.on_reward(row, result);
                }
                if self.caches.behaviour_only.get(&row) == Some(&ticket) {
                    self.caches.behaviour_only.remove(&row);
                    return self.on_behaviour(row, result);
                }
                let Some(Score::Grading { ticket: expected }) = self.corpus.scores.get(row) else {
                    return false;
                };
                if *expected != ticket {
                    return false;
                }
                match result {
                    Ok(report) => {
                        // The row waited for this grade: it holds no answer until it lands.
                        self.corpus.scores[row] = Score::Unscored;
                        self.take_grade(row, *report);
                    }
                    Err(why) => self.corpus.scores[row] = Score::Failed { why, report: None },
                }
                self.corpus.grade_progress.finished += 1;
                self.corpus.scores_changed += 1;
                // An open Training screen asks for fresh figures (`settle`).
                self.training.stale = true;
                if self.list.filters.verdict.is_some() || self.list.grouping == Grouping::Verdict {
                    self.view_dirty = true;
                }
                // The last one in: the "grading N rollouts" note goes (the status bar says
                // "all N graded"), so that nobody wonders whether figures are final.
                let gp = self.corpus.grade_progress;
                if gp.finished == gp.requested
                    && self
                        .message
                        .as_deref()
                        .is_some_and(|m| m.starts_with("grading "))
                {
                    self.message = None;
                }
                true
            }
            JobEvent::Sealed => {
                self.caches.seals_done += 1;
                false
            }
            JobEvent::CachedScores {
                mut found,
                mut missing,
                whole: asked_whole,
            } => {
                if asked_whole && !self.caches.reward_lookup.is_empty() {
                    let answered = self.rewards_remembered(&mut found, &mut missing);
                    if found.is_empty() && missing.is_empty() {
                        return answered;
                    }
                }
                if !asked_whole {
                    let answered = found.len() + missing.len();
                    self.caches.lookup_rows_pending =
                        self.caches.lookup_rows_pending.saturating_sub(answered);
                }
                let mut whole = false;
                // Remembered rows the session's rule still grades: a training sample whose
                // remembered record has no reward (a verdict-only grade wrote it).
                let mut reward_missing = Vec::new();
                // Remembered rows a scorer pays, without the behaviour questions' answers.
                let mut behaviour_missing = Vec::new();
                let can_grade = self.corpus.ctx.grading == Grading::Available;
                // The explorer's grader asks them (`Grader::new`).
                let asks_behaviour =
                    can_grade && crate::grade::backend::Grader::default_settings().behaviour;
                for (row, Remembered { resolved, report }) in found {
                    match report {
                        // An opened row: its remembered report, whole.
                        Some(report) => {
                            whole |= self.offer_answer(row, resolved, Some(Arc::new(*report)))
                        }
                        // Every other row holds the facts only.
                        None => {
                            if !self.offer_answer(row, resolved, None) {
                                continue;
                            }
                            let facts = resolved.facts;
                            let training = self
                                .corpus
                                .entries
                                .get(row)
                                .is_some_and(|e| e.rollout.sample.is_some());
                            if crate::session::runs::wants_grading(
                                Some(&facts),
                                training,
                                can_grade,
                                false,
                            ) {
                                reward_missing.push(row);
                            } else if asks_behaviour && facts.behaviour_pending() {
                                // Traced in the background, its verdict kept on screen.
                                behaviour_missing.push(row);
                            }
                        }
                    }
                }
                self.request_behaviour(&behaviour_missing);
                if asked_whole {
                    // An opened row whose report is not remembered (graded while no cache
                    // could keep it, or evicted since): graded again, at once.
                    let regrade: Vec<usize> = missing
                        .into_iter()
                        .filter(|&r| {
                            self.corpus
                                .scores
                                .get(r)
                                .is_some_and(Score::report_elsewhere)
                        })
                        .collect();
                    if can_grade && !regrade.is_empty() {
                        self.request_grades(&regrade, true);
                    }
                    self.view_dirty = true;
                    return true;
                }
                if whole {
                    self.view_dirty = true;
                    return true;
                }
                self.corpus.scores_changed += 1;
                // An open Training screen asks for fresh figures (`settle`).
                self.training.stale = true;
                if !self.corpus.load.done {
                    // A scored file read later may give these their verdict: graded at `Done`.
                    self.caches.missed_while_loading.extend(missing);
                    self.caches.missed_while_loading.extend(reward_missing);
                } else if can_grade {
                    let mut rows: Vec<usize> = missing
                        .into_iter()
                        .filter(|r| self.corpus.scores.get(*r) == Some(&Score::Unscored))
                        .collect();
                    rows.extend(reward_missing);
                    self.request_grades(&rows, false);
                }
                self.view_dirty = true;
                true
            }
            JobEvent::SearchDone { id, matches } => {
                if id != self.list.search.id {
                    return false;
                }
                self.list.search.pending = false;
                self.list.search.results = Some(matches);
                if std::mem::take(&mut self.list.search.select_first) {
                    self.refresh_view();
                    self.move_to_view_index(0);
                } else {
                    self.view_dirty = true;
                }
                true
            }
            JobEvent::Digested { rows } => {
                self.store_digests(rows);
                true
            }
            JobEvent::Analyzed { row, analysis } => {
                if self.corpus.digest(row).is_none() {
                    let digest = super::super::jobs::digest_of(&analysis, &self.corpus.ctx.api);
                    self.store_digests([(row, Arc::new(digest))]);
                }
                self.detail.held.analysis_requested.insert(row);
                for gone in self.detail.held.analyses.insert(row, analysis) {
                    self.detail.held.analysis_requested.remove(&gone);
                }
                self.list.selected == Some(row)
            }
            JobEvent::RawLine { row, result } => self.on_raw_line(row, result),
            JobEvent::Highlighted { key, text } => {
                self.detail.held.highlight_requested.insert(key);
                for gone in self.detail.held.highlights.insert(key, text) {
                    self.detail.held.highlight_requested.remove(&gone);
                }
                self.list.selected == Some(key.0)
            }
            JobEvent::Rerun(e) => {
                let mut fx = Effects::default();
                let redraw = self.reruns.on_event(e, &self.corpus, &mut fx);
                self.apply(fx);
                redraw
            }
            JobEvent::Confirm(e) => {
                let mut fx = Effects::default();
                let redraw = self.reruns.on_confirm(*e, &mut fx);
                self.apply(fx);
                redraw
            }
            JobEvent::Stats(r) => self.stats.on_result(r),
            JobEvent::Training(r) => self.training.on_result(r),
            JobEvent::TokensCounted {
                counted,
                total,
                done,
            } => self.training.on_tokens(counted, total, done),
            JobEvent::Exported { shown, result } => {
                self.message = Some(match result {
                    Ok(()) => format!("exported to {}", shown.display()),
                    Err(e) => format!("NOT exported to {}: {e}", shown.display()),
                });
                true
            }
        }
    }

    fn on_load(&mut self, event: LoadEvent) -> bool {
        match event {
            LoadEvent::Run(run) => {
                self.corpus.runs.push(run);
                false
            }
            LoadEvent::Batch {
                entries,
                scores,
                new_tasks,
            } => {
                if !new_tasks.is_empty() {
                    Arc::make_mut(&mut self.corpus.tasks).extend(new_tasks);
                }
                self.corpus.has_samples |= entries.iter().any(|e| e.rollout.sample.is_some());
                let first_new = self.corpus.entries.len();
                let list = Arc::make_mut(&mut self.corpus.entries);
                list.extend(entries.into_iter().map(Arc::new));
                self.corpus.scores.extend(scores);
                self.corpus.scores_changed += 1;
                self.view_dirty = true;
                // The first screen's rows are analysed while the rest loads.
                if self.caches.analysis_queued == 0 {
                    self.queue_analysis();
                }
                // Each batch's rows are looked up as they come (the verdicts an earlier session
                // remembered show while the rest loads); what no source knows is graded once
                // loading is done, when every scored file has been matched.
                if self.corpus.load.done || self.caches.look_up_while_loading {
                    self.look_up_unscored(first_new);
                }
                // Rows of a followed run, after loading: analysed and searched as the
                // loaded rows were at `Done`.
                if self.corpus.load.done {
                    self.queue_analysis();
                    if self.list.search.results.is_some() {
                        self.start_search();
                    }
                }
                true
            }
            LoadEvent::Following { runs, polled } => {
                self.corpus.load.following = runs;
                if let Some(why) = polled {
                    self.message = Some(format!("{why}: followed by looking every second"));
                }
                true
            }
            LoadEvent::Replaced {
                rows,
                entries,
                scores,
                new_tasks,
            } => {
                self.replace_rows(&rows, entries, scores, new_tasks);
                true
            }
            LoadEvent::Rewriting { source } => {
                // What was said of its lines was said of the file as it was.
                self.corpus.issues.retain(|i| i.source != source);
                true
            }
            LoadEvent::Reread {
                source,
                step,
                rows,
                before,
            } => {
                let what = match step {
                    Some(step) => format!("step {step} rewritten (resumed run)"),
                    None => format!(
                        "{} rewritten",
                        source.file_name().map_or_else(
                            || source.display().to_string(),
                            |n| n.to_string_lossy().into_owned()
                        )
                    ),
                };
                let noun = if step.is_some() {
                    "samples"
                } else {
                    "rollouts"
                };
                let note = if rows < before {
                    format!(
                        "{what}: {rows} {noun} re-read, {} rows still as read before",
                        before - rows
                    )
                } else {
                    format!("{what}: {rows} {noun} re-read")
                };
                self.message = Some(note.clone());
                self.corpus.load.rewritten = Some(note);
                true
            }
            LoadEvent::Finished(lines) => {
                // An unfinished line said at opening is read now: no longer an issue.
                self.corpus.issues.retain(|i| {
                    i.reason != crate::model::verl::UNFINISHED_LINE
                        || !lines.iter().any(|(f, l)| *f == i.source && *l == i.line)
                });
                true
            }
            LoadEvent::Reports { file, reports } => {
                let files = &mut self.corpus.scored_files;
                let file = match files.iter().position(|f| *f == file) {
                    Some(i) => i,
                    None => {
                        files.push(file);
                        files.len() - 1
                    }
                };
                for (row, report) in reports {
                    let Some(arrived) = report_answer(&report, VerdictSource::Scored) else {
                        // A report that names no verdict is no answer: a row with none
                        // shows why.
                        if let Some(slot @ (Score::Unscored | Score::Failed { .. })) =
                            self.corpus.scores.get_mut(row)
                        {
                            *slot = Score::of_report(report, VerdictSource::Scored, true);
                        }
                        continue;
                    };
                    if self.offer_answer(row, arrived, Some(Arc::new(report))) {
                        self.corpus.scored_by.insert(row, file);
                    }
                }
                self.corpus.scores_changed += 1;
                self.view_dirty = true;
                true
            }
            LoadEvent::Issues(issues) => {
                self.corpus.issues.extend(issues);
                true
            }
            LoadEvent::Progress { done, total } => {
                self.corpus.load.bytes_done = done;
                self.corpus.load.bytes_total = total;
                true
            }
            LoadEvent::Failed(msg) => {
                self.message = Some(msg);
                true
            }
            LoadEvent::Done => {
                self.corpus.load.done = true;
                self.queue_analysis();
                // Line 0 is a whole file skipped (a dump folder's other files), not a line.
                let lines = self.corpus.issues.iter().filter(|i| i.line > 0).count();
                let files = self.corpus.issues.len() - lines;
                let said = match (lines, files) {
                    (0, 0) => None,
                    (l, 0) => Some(format!("{l} lines could not be loaded")),
                    (0, f) => Some(format!("{f} files skipped")),
                    (l, f) => Some(format!("{l} lines could not be loaded, {f} files skipped")),
                };
                if let Some(said) = said {
                    self.message = Some(format!("{said}: ! shows why"));
                }
                // Grade what has no score, now that every report file has been matched:
                // what the lookups while loading found nowhere (lookups still running
                // grade theirs as they answer), and what no lookup was asked for.
                let missed: Vec<usize> = std::mem::take(&mut self.caches.missed_while_loading)
                    .into_iter()
                    .filter(|r| {
                        // Unscored, or remembered without the reward a training sample needs.
                        self.corpus
                            .scores
                            .get(*r)
                            .is_some_and(|s| *s == Score::Unscored || s.report_elsewhere())
                    })
                    .collect();
                // Never a figure over a subset: a scored file's verdict without the reward
                // is graded for the reward (as `sebx stats` does), keeping its verdict.
                let can_grade = self.corpus.ctx.grading == Grading::Available;
                let rewards: Vec<usize> = (0..self.corpus.scores.len())
                    .filter(|&row| match &self.corpus.scores[row] {
                        Score::Resolved {
                            resolved,
                            report: Some(_),
                        } => crate::session::runs::scored_without_reward(
                            Some(&resolved.facts),
                            can_grade,
                        ),
                        _ => false,
                    })
                    .collect();
                if can_grade && !missed.is_empty() {
                    self.request_grades(&missed, false);
                }
                if can_grade {
                    self.look_up_rewards(rewards);
                }
                self.look_up_unscored(self.caches.looked_up);
                if self.list.search.results.is_some() {
                    self.start_search();
                }
                self.view_dirty = true;
                true
            }
        }
    }

    /// Rows of a rewritten file read again: each of `rows` now holds the new line in its
    /// place (a row's index never changes: the selection and every cache by row stay
    /// valid); what was known of the old line (score, analysis, highlights) goes, and
    /// the new one is analysed, looked up and graded like a row just loaded. Labels are
    /// kept by rollout id (a hash of query and response), not by row or line, so a line
    /// read again unchanged keeps its label, and a label of a line gone stays in its sidecar.
    fn replace_rows(
        &mut self,
        rows: &[usize],
        entries: Vec<crate::tui::entry::Entry>,
        scores: Vec<Score>,
        new_tasks: Vec<crate::tui::entry::Task>,
    ) {
        if !new_tasks.is_empty() {
            Arc::make_mut(&mut self.corpus.tasks).extend(new_tasks);
        }
        let list = Arc::make_mut(&mut self.corpus.entries);
        let digests = Arc::make_mut(&mut self.corpus.digests);
        let mut replaced = Vec::with_capacity(rows.len());
        for ((&row, entry), score) in rows.iter().zip(entries).zip(scores) {
            let (Some(slot), Some(old)) = (list.get_mut(row), self.corpus.scores.get_mut(row))
            else {
                continue;
            };
            *slot = Arc::new(entry);
            // A grade in flight for the old line is dropped when it comes (its ticket is
            // no longer awaited): counted as finished now.
            if matches!(old, Score::Grading { .. }) {
                self.corpus.grade_progress.finished += 1;
            }
            *old = score;
            self.corpus.scored_by.remove(&row);
            if let Some(d) = digests.get_mut(row) {
                *d = None;
            }
            replaced.push(row);
        }
        let gone: std::collections::HashSet<usize> = replaced.iter().copied().collect();
        self.caches.report_requested.retain(|r| !gone.contains(r));
        self.detail.held.forget(&gone);
        self.outbox.push(JobRequest::AnalyzeAll {
            from: 0,
            only: Some(replaced.clone()),
            entries: self.corpus.entries.clone(),
            dataset: self.corpus.ctx.dataset.clone(),
            api: self.corpus.ctx.api.clone(),
        });
        // The Training figures' memos of each row's sample facts and tokens are kept up to
        // the first row replaced: those rows are computed again.
        if let Some(&first) = replaced.iter().min() {
            if let Ok(mut memo) = self.training.samples.lock() {
                memo.truncate(first);
            }
            if let Ok(mut memo) = self.training.tokens.lock() {
                memo.truncate(first);
            }
        }
        self.look_up_rows(replaced, false);
        self.corpus.scores_changed += 1;
        self.training.stale = true;
        if self.list.search.results.is_some() {
            self.start_search();
        }
        self.view_dirty = true;
    }

    /// Unscored rows from `from` on take a rerun's or the cache's verdict before grading
    /// (`session::resolve`'s precedence; the job answers `CachedScores`, which grades the rest).
    fn look_up_unscored(&mut self, from: usize) {
        self.caches.looked_up = self.caches.looked_up.max(self.corpus.scores.len());
        self.look_up_rows((from..self.corpus.scores.len()).collect(), true);
    }

    /// [`look_up_unscored`](Self::look_up_unscored) for the unscored of `rows`; `batch`:
    /// they are a loading batch, remembered to be sealed once every grade is in.
    fn look_up_rows(&mut self, mut rows: Vec<usize>, batch: bool) {
        rows.retain(|i| self.corpus.scores.get(*i) == Some(&Score::Unscored));
        if !rows.is_empty() {
            if batch && self.corpus.score_cache.is_some() {
                self.caches.batch_rows.extend(&rows);
                self.caches.batch_cuts.push(self.caches.batch_rows.len());
            }
            self.caches.lookup_rows_pending += rows.len();
            self.outbox.push(JobRequest::LookupScores {
                entries: rows
                    .iter()
                    .map(|&r| self.corpus.entries[r].clone())
                    .collect(),
                rows,
                cache: self.corpus.score_cache.clone(),
                places: self.labelling.places.clone(),
                whole: false,
                cuts: Vec::new(),
            });
        }
    }

    /// Once the run is loaded and every grade is in, the loading batches are looked up
    /// once more (`JobRequest::SealSets`), so that the score cache keeps each as a set and
    /// the next opening reads it at once; again after more grades. Called by
    /// [`App::settle`](super::App::settle).
    pub(super) fn seal_when_graded(&mut self) {
        let gp = self.corpus.grade_progress;
        // Not while lookups are out: the rows they miss are graded next.
        if !self.corpus.load.done
            || self.caches.lookup_rows_pending > 0
            || gp.requested == 0
            || gp.finished < gp.requested
            || self.caches.sealed_at == Some(gp.requested)
            || self.caches.batch_rows.is_empty()
        {
            return;
        }
        let Some(cache) = self.corpus.score_cache.clone() else {
            return;
        };
        self.caches.sealed_at = Some(gp.requested);
        // Rows only grow (a rewritten file's are replaced in place): every batch row is there.
        let entries = self
            .caches
            .batch_rows
            .iter()
            .map(|&r| self.corpus.entries[r].clone())
            .collect();
        self.outbox.push(JobRequest::SealSets {
            entries,
            cuts: self.caches.batch_cuts.clone(),
            cache,
            places: self.labelling.places.clone(),
        });
    }

    /// Offers `row` an answer that just arrived (`arrived`, with its report when at hand):
    /// the session decides which answer the row holds ([`settle`]). A row being graded
    /// waits for its grade. The row keeps the report it holds while that is still the
    /// report of its answer. Whether the row now holds the answer that arrived.
    fn offer_answer(
        &mut self,
        row: usize,
        arrived: Resolved,
        report: Option<Arc<crate::grade::report::GradeReport>>,
    ) -> bool {
        let Some(slot) = self.corpus.scores.get_mut(row) else {
            return false;
        };
        if matches!(slot, Score::Grading { .. }) {
            return false;
        }
        let held = slot.held_report().cloned();
        let (resolved, report, took) = match settle(slot.resolved(), arrived) {
            Settled::Arrived(resolved) => (resolved, report, true),
            Settled::Held(resolved) => (resolved, None, false),
        };
        let report = report.or_else(|| held.filter(|r| Facts::of(r) == resolved.facts));
        *slot = Score::Resolved { resolved, report };
        took
    }

    /// A grade made now, offered to `row`: with the whole report for the selected row (its
    /// panes show it), the facts for every other, so that a run graded in the background
    /// holds a few bytes per row; opening one of them looks its report up again
    /// (`request_highlights`: the score cache, else a regrade). A grade that names no
    /// verdict leaves a held one; a row without one says why. Whether the row took it.
    fn take_grade(&mut self, row: usize, report: crate::grade::report::GradeReport) -> bool {
        let keep = self.list.selected == Some(row);
        if !keep {
            self.caches.report_requested.remove(&row);
        }
        let Some(arrived) = report_answer(&report, VerdictSource::Graded) else {
            if let Some(slot @ Score::Unscored) = self.corpus.scores.get_mut(row) {
                *slot = Score::of_report(report, VerdictSource::Graded, true);
                return true;
            }
            return false;
        };
        self.offer_answer(row, arrived, keep.then(|| Arc::new(report)))
    }

    /// Grades `rows` (a scored file gave them a verdict without the official RL reward)
    /// for their reward only: each keeps its report, and so its verdict, while it is
    /// graded and after ([`App::on_reward`]).
    fn request_rewards(&mut self, rows: &[usize]) {
        self.request_kept(rows, false);
    }

    /// Grades `rows` in the background for what their grade lacks (`behaviour`: the
    /// behaviour questions' answers, else the reward), each keeping what it shows: the
    /// ticket goes to [`Caches::behaviour_only`] or [`Caches::reward_only`], never to the
    /// row's score.
    fn request_kept(&mut self, rows: &[usize], behaviour: bool) {
        for &row in rows {
            let Some(entry) = self.corpus.entries.get(row).cloned() else {
                continue;
            };
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            self.corpus.grade_progress.requested += 1;
            let kept = if behaviour {
                &mut self.caches.behaviour_only
            } else {
                &mut self.caches.reward_only
            };
            kept.insert(row, ticket);
            self.outbox.push(JobRequest::Grade {
                ticket,
                row,
                entry,
                front: false,
            });
        }
    }

    /// The rewards of `rows` (scored verdicts without one): asked of the score cache first,
    /// whole reports, so that what an earlier session graded is not graded again
    /// ([`App::rewards_remembered`] takes the answer); without a cache, graded.
    fn look_up_rewards(&mut self, rows: Vec<usize>) {
        if rows.is_empty() {
            return;
        }
        let Some(cache) = self.corpus.score_cache.clone() else {
            self.request_rewards(&rows);
            return;
        };
        self.caches.reward_lookup.extend(&rows);
        self.outbox.push(JobRequest::LookupScores {
            entries: rows
                .iter()
                .map(|&r| self.corpus.entries[r].clone())
                .collect(),
            rows,
            cache: Some(cache),
            places: self.labelling.places.clone(),
            whole: true,
            cuts: Vec::new(),
        });
    }

    /// Takes out of a lookup's answer the rows [`App::look_up_rewards`] asked about: a
    /// remembered reward (with its reason and the behaviour questions' answers) is set
    /// beside the scored verdict; a row the cache does not know the reward of is graded
    /// for it. Whether anything changed on screen.
    fn rewards_remembered(
        &mut self,
        found: &mut Vec<(usize, Remembered)>,
        missing: &mut Vec<usize>,
    ) -> bool {
        let mut grade = Vec::new();
        let mut changed = false;
        let mut remembered = Vec::new();
        for (row, known) in std::mem::take(found) {
            if self.caches.reward_lookup.remove(&row) {
                remembered.push((row, known));
            } else {
                found.push((row, known));
            }
        }
        missing.retain(|&row| {
            let mine = self.caches.reward_lookup.remove(&row);
            if mine {
                grade.push(row);
            }
            !mine
        });
        for (row, known) in remembered {
            let report = match known {
                Remembered {
                    report: Some(report),
                    ..
                } if report.reward.is_some() => report,
                _ => {
                    grade.push(row);
                    continue;
                }
            };
            changed |= self.set_reward(row, *report);
        }
        if self.corpus.ctx.grading == Grading::Available {
            self.request_rewards(&grade);
        }
        changed
    }

    /// A row's reward graded ([`App::request_rewards`]): set beside the report it holds.
    /// A grader that failed leaves the reward unknown (the figures say so).
    fn on_reward(
        &mut self,
        row: usize,
        result: Result<Box<crate::grade::report::GradeReport>, String>,
    ) -> bool {
        self.corpus.grade_progress.finished += 1;
        let Ok(graded) = result else {
            return false;
        };
        self.set_reward(row, *graded)
    }

    /// A remembered row graded again to ask the behaviour questions: it takes the new
    /// grade (its facts, or the whole report when the row is open) unless the row was
    /// graded or regraded meanwhile.
    fn on_behaviour(
        &mut self,
        row: usize,
        result: Result<Box<crate::grade::report::GradeReport>, String>,
    ) -> bool {
        self.corpus.grade_progress.finished += 1;
        let Ok(graded) = result else {
            return false;
        };
        if !matches!(self.corpus.scores.get(row), Some(Score::Resolved { .. })) {
            return false;
        }
        self.take_grade(row, *graded);
        self.corpus.scores_changed += 1;
        self.training.stale = true;
        self.view_dirty = true;
        true
    }

    /// Grades `rows` (remembered, paid, without the behaviour questions' answers) again in
    /// the background, each keeping its verdict on screen ([`App::on_behaviour`]).
    fn request_behaviour(&mut self, rows: &[usize]) {
        self.request_kept(rows, true);
    }

    /// Sets the reward of `graded` (a grade of the row's rollout) beside the report the row
    /// holds ([`GradeReport::take_reward_of`]); whether the row holds one.
    ///
    /// [`GradeReport::take_reward_of`]: crate::grade::report::GradeReport::take_reward_of
    fn set_reward(&mut self, row: usize, graded: crate::grade::report::GradeReport) -> bool {
        let Some(Score::Resolved {
            resolved,
            report: Some(held),
        }) = self.corpus.scores.get_mut(row)
        else {
            return false;
        };
        let held = Arc::make_mut(held);
        held.take_reward_of(graded);
        // The answer keeps its verdict and source, and takes what the report now decides.
        resolved.facts = Facts::of(held);
        resolved.facts.verdict = Some(resolved.verdict);
        self.corpus.scores_changed += 1;
        self.training.stale = true;
        self.view_dirty = true;
        true
    }

    pub(super) fn request_grades(&mut self, rows: &[usize], front: bool) {
        if let Grading::Unavailable(why) = &self.corpus.ctx.grading {
            self.message = Some(format!("cannot grade: {why}"));
            return;
        }
        for &row in rows {
            let Some(entry) = self.corpus.entries.get(row).cloned() else {
                continue;
            };
            // A training sample joined to no task has no test cases to grade against.
            if entry
                .rollout
                .sample
                .as_deref()
                .is_some_and(|m| m.joined == crate::model::verl::JoinedBy::Unjoined)
            {
                continue;
            }
            // A grade of its own: the reward of a scored verdict, or a remembered row's
            // behaviour answers, are no longer awaited.
            self.caches.reward_only.remove(&row);
            self.caches.behaviour_only.remove(&row);
            let ticket = self.next_ticket;
            self.next_ticket += 1;
            // A row already in flight is re-queued, not counted twice: its old result is dropped.
            if !matches!(self.corpus.scores[row], Score::Grading { .. }) {
                self.corpus.grade_progress.requested += 1;
            }
            self.corpus.scores[row] = Score::Grading { ticket };
            self.outbox.push(JobRequest::Grade {
                ticket,
                row,
                entry,
                front,
            });
        }
        // A rewritten file's note stays while its rows are graded (the status bar counts).
        if rows.len() > 1 && self.message != self.corpus.load.rewritten {
            self.message = Some(format!("grading {} rollouts", rows.len()));
        }
        self.view_dirty = true;
    }

    pub(super) fn start_search(&mut self) {
        self.list.search.id += 1;
        if self.list.search.pattern.is_empty() {
            self.list.search.results = None;
            self.list.search.pending = false;
            self.refresh_view();
            return;
        }
        self.list.search.pending = true;
        self.outbox.push(JobRequest::Search {
            id: self.list.search.id,
            pattern: self.list.search.pattern.clone(),
            entries: self.corpus.entries.clone(),
            digests: self.corpus.digests.clone(),
            tasks: self.corpus.tasks.clone(),
        });
    }

    /// Hands the rows loaded since the last time to the background analysis.
    fn queue_analysis(&mut self) {
        if self.caches.analysis_queued >= self.corpus.entries.len() {
            return;
        }
        self.outbox.push(JobRequest::AnalyzeAll {
            from: self.caches.analysis_queued,
            only: None,
            entries: self.corpus.entries.clone(),
            dataset: self.corpus.ctx.dataset.clone(),
            api: self.corpus.ctx.api.clone(),
        });
        self.caches.analysis_queued = self.corpus.entries.len();
    }

    /// Stores digests of rows' analyses; the view is rebuilt when a filter or grouping uses them.
    fn store_digests(&mut self, rows: impl IntoIterator<Item = (usize, Arc<AnalysisDigest>)>) {
        let digests = Arc::make_mut(&mut self.corpus.digests);
        for (row, digest) in rows {
            if digests.len() <= row {
                digests.resize(row + 1, None);
            }
            digests[row] = Some(digest);
        }
        if self.list.filters.finding.is_some()
            || self.list.filters.function.is_some()
            || self.list.grouping == Grouping::Function
        {
            self.view_dirty = true;
        }
    }
}
