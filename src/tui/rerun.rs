//! Reruns and what-ifs from the explorer: `r` regrades the selected rollout on a worker
//! thread and shows the new verdict beside the stored one; `e` grades an edited copy of
//! the code. Results go to the rerun sidecar (written by `Labelling::write_reruns`, the I/O
//! step), never into the rollout file. Also the offer to install a missing Python runtime.
//! The requests run on the rerun thread (`jobs::reruns`). `y` runs the rollout once under
//! the tracer (`jobs::confirm`) and keeps, per rollout, how its findings were settled.

mod popup;

use std::collections::HashMap;
use std::sync::Arc;

use crate::grade::report::GradeReport;
use crate::grade::reruns::RerunRecord;
use crate::grade::trace::Confirmation;
use crate::model::RolloutId;

use super::action::Action;
use super::component::{Component, Cx, DrawCx};
use super::effects::{Effects, Handled};
use super::entry::Score;
use super::jobs::JobRequest;
use super::jobs::confirm::{ConfirmEvent, ConfirmRequest};
use super::jobs::reruns::{BackendFactory, RerunEvent, RerunRequest};
use super::state::{Corpus, Grading, ListView, Popup};

/// The runtime install offer and its progress.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InstallView {
    pub running: bool,
    pub lines: Vec<String>,
    pub outcome: Option<Result<String, String>>,
}

/// One rerun or what-if result of this session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRerun {
    pub record: RerunRecord,
    /// Whether the sidecar append succeeded (`None`: not written yet).
    pub saved: Option<Result<(), String>>,
}

/// Rerun state: what is in flight, what came back, what waits to be written.
#[derive(Default)]
pub struct Reruns {
    next_id: u64,
    /// (row, what-if) → id of the request in flight.
    pub running: HashMap<(usize, bool), u64>,
    /// Results of this session per row, oldest first.
    pub session: HashMap<usize, Vec<SessionRerun>>,
    /// A what-if waiting for the editor: (row, code to edit). Taken by the event loop.
    pub edit: Option<(usize, String)>,
    pub install: InstallView,
    /// How `r` grades after the runtime was installed from here.
    pub backend_factory: Option<BackendFactory>,
    /// Advances while something runs, for the spinner.
    pub spinner: usize,
    /// Per rollout: its findings as a traced run settled them (or why it could not run),
    /// and the confirm request in flight.
    pub confirmed: HashMap<RolloutId, Result<Confirmation, String>>,
    pub confirming: HashMap<RolloutId, u64>,
}

impl super::component::RerunsRead for Reruns {
    fn session_what_if(&self, row: usize) -> Option<&RerunRecord> {
        self.session
            .get(&row)
            .and_then(|list| list.iter().rev().find(|s| s.record.what_if))
            .map(|s| &s.record)
    }

    fn confirming(&self, id: &RolloutId) -> bool {
        Reruns::confirming(self, id)
    }

    fn confirmation(&self, id: &RolloutId) -> Option<&Result<Confirmation, String>> {
        Reruns::confirmation(self, id)
    }
}

impl Reruns {
    /// Whether a rerun, what-if or install is in flight (the spinner turns).
    pub fn busy(&self) -> bool {
        !self.running.is_empty() || self.install.running || !self.confirming.is_empty()
    }

    /// How a traced run settled `id`'s findings, if one ran; `Err` says why it could not.
    pub fn confirmation(&self, id: &RolloutId) -> Option<&Result<Confirmation, String>> {
        self.confirmed.get(id)
    }

    /// Whether a traced run of `id` is in flight.
    pub fn confirming(&self, id: &RolloutId) -> bool {
        self.confirming.contains_key(id)
    }

    /// Queues a traced run of `row` (the Code pane's `y`).
    fn request_confirm(&mut self, corpus: &Corpus, row: usize, fx: &mut Effects) {
        if !self.ready_to_grade(&corpus.ctx.grading, fx) {
            return;
        }
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        self.next_id += 1;
        self.confirming
            .insert(entry.rollout.id.clone(), self.next_id);
        fx.requests
            .push(JobRequest::Confirm(Box::new(ConfirmRequest {
                id: self.next_id,
                row,
                rollout: Box::new(entry.rollout.clone()),
                api: corpus.ctx.api.clone(),
                dataset: corpus.ctx.dataset.clone(),
                trace_dir: corpus.trace_dir.clone(),
            })));
        fx.say("running the rollout once under the tracer…");
    }

    /// A traced run came back; stale ones (a newer request for the rollout) are dropped.
    pub fn on_confirm(&mut self, event: ConfirmEvent, fx: &mut Effects) -> bool {
        if self.confirming.get(&event.rollout) != Some(&event.id) {
            return false;
        }
        self.confirming.remove(&event.rollout);
        fx.say(match &event.result {
            Ok(c) => {
                let count = |label: &str| {
                    c.findings
                        .iter()
                        .filter(|f| f.settled.label() == label)
                        .count()
                };
                format!(
                    "traced run{}: {} confirmed, {} refuted, {} not reached{}",
                    if c.cached { " (cached)" } else { "" },
                    count("confirmed"),
                    count("refuted"),
                    count("not reached"),
                    match c.found.len() {
                        0 => String::new(),
                        n => format!(", {n} crash(es) no finding claimed"),
                    }
                )
            }
            Err(e) => format!("cannot confirm: {e}"),
        });
        self.confirmed.insert(event.rollout, event.result);
        true
    }

    /// The spinner's current frame.
    pub fn spinner_frame(&self) -> &'static str {
        const FRAMES: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];
        FRAMES[(self.spinner / 3) % FRAMES.len()]
    }
}

impl Component for Reruns {
    /// The runtime install offer and its progress (`panes::labels`).
    fn draw_popup(
        &self,
        popup: Popup,
        frame: &mut ratatui::Frame,
        area: ratatui::layout::Rect,
        cx: &DrawCx<'_>,
    ) {
        if popup == Popup::Runtime {
            popup::draw_runtime_popup(self, frame, area, cx);
        }
    }

    fn update(&mut self, action: &Action, cx: &Cx<'_>, fx: &mut Effects) -> Handled {
        self.handle(action, cx.corpus, cx.list, fx)
    }

    fn update_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        cx: &Cx<'_>,
        fx: &mut Effects,
    ) -> Handled {
        self.handle_popup(popup, action, cx.corpus, fx)
    }

    /// Turns the spinner (results are written by `Labelling::write_reruns`).
    fn service(&mut self, _cx: &Cx<'_>, _fx: &mut Effects) -> bool {
        self.tick()
    }
}

/// Whether the explorer cannot grade because the Python runtime is missing (not, say,
/// because there is no API doc).
pub fn runtime_missing(grading: &Grading) -> bool {
    matches!(grading, Grading::Unavailable(why) if why.fixed_by_install())
}

impl Reruns {
    /// Handles `r` (rerun), `e` (what-if) and the install offer's key.
    fn handle(
        &mut self,
        action: &Action,
        corpus: &Corpus,
        list: &ListView,
        fx: &mut Effects,
    ) -> Handled {
        match action {
            Action::Rerun => {
                let Some(row) = list.selected else {
                    return Handled::Unchanged;
                };
                self.request(corpus, row, None, fx);
            }
            Action::EditWhatIf => {
                let Some(row) = list.selected else {
                    return Handled::Unchanged;
                };
                // No editing what cannot be graded.
                if self.ready_to_grade(&corpus.ctx.grading, fx) {
                    let code = corpus
                        .entries
                        .get(row)
                        .map(|e| e.code().to_string())
                        .unwrap_or_default();
                    self.edit = Some((row, code));
                }
            }
            Action::ConfirmFindings => {
                let Some(row) = list.selected else {
                    return Handled::Unchanged;
                };
                self.request_confirm(corpus, row, fx);
            }
            Action::InstallRuntime => {
                if runtime_missing(&corpus.ctx.grading) {
                    self.request_install(corpus, fx);
                } else {
                    fx.say("the Python runtime is not what is missing here");
                }
            }
            _ => return Handled::Passed,
        }
        Handled::Redraw
    }

    /// Handles an action in the install offer.
    fn handle_popup(
        &mut self,
        popup: Popup,
        action: &Action,
        corpus: &Corpus,
        fx: &mut Effects,
    ) -> Handled {
        match (popup, action) {
            (Popup::Runtime, Action::InstallRuntime) => {
                self.request_install(corpus, fx);
                Handled::Redraw
            }
            _ => Handled::Passed,
        }
    }

    /// Whether reruns can be graded; if not, says why (and offers the install when the
    /// runtime is what is missing).
    fn ready_to_grade(&self, grading: &Grading, fx: &mut Effects) -> bool {
        let installed_here = self.install.outcome.as_ref().is_some_and(Result::is_ok);
        let has_backend = matches!(grading, Grading::Available) || installed_here;
        if !has_backend {
            if runtime_missing(grading) {
                fx.open(Popup::Runtime);
            } else if let Grading::Unavailable(why) = grading {
                fx.say(format!("cannot rerun: {why}"));
            }
        }
        has_backend
    }

    /// Queues a rerun (`code: None`) or a what-if of `row`. Without a grader it says why,
    /// and offers the install when the runtime is what is missing.
    pub fn request(&mut self, corpus: &Corpus, row: usize, code: Option<String>, fx: &mut Effects) {
        if !self.ready_to_grade(&corpus.ctx.grading, fx) {
            return;
        }
        let Some(entry) = corpus.entries.get(row) else {
            return;
        };
        self.next_id += 1;
        let id = self.next_id;
        let what_if = code.is_some();
        self.running.insert((row, what_if), id);
        fx.requests.push(JobRequest::Rerun(RerunRequest::Grade {
            id,
            row,
            rollout: Box::new(entry.rollout.clone()),
            code,
        }));
        fx.say(if what_if {
            "grading the edited code (what-if)…"
        } else {
            "rerunning the grader…"
        });
    }

    /// Queues the runtime install (from the offer popup).
    fn request_install(&mut self, corpus: &Corpus, fx: &mut Effects) {
        if self.install.running {
            return;
        }
        self.install = InstallView {
            running: true,
            lines: Vec::new(),
            outcome: None,
        };
        fx.open(Popup::Runtime);
        fx.requests.push(JobRequest::Rerun(RerunRequest::Install {
            api: corpus.ctx.api.clone(),
        }));
    }

    /// The editor came back for a what-if on `row`: grade the edit, or say why not.
    pub fn on_edited(
        &mut self,
        corpus: &Corpus,
        row: usize,
        edited: anyhow::Result<Option<String>>,
        fx: &mut Effects,
    ) {
        match edited {
            Ok(Some(code)) => self.request(corpus, row, Some(code), fx),
            Ok(None) => fx.say("code unchanged: no what-if"),
            Err(e) => fx.say(format!("what-if: {e:#}")),
        }
    }

    /// Applies a rerun worker's report; returns whether to redraw.
    pub fn on_event(&mut self, event: RerunEvent, corpus: &Corpus, fx: &mut Effects) -> bool {
        match event {
            RerunEvent::Graded {
                id,
                row,
                code,
                result,
            } => {
                let key = (row, code.is_some());
                if self.running.get(&key) != Some(&id) {
                    return false;
                }
                self.running.remove(&key);
                match result {
                    Ok(mut report) => {
                        // The sidecar keys reruns by the row's id (a what-if's edited response
                        // would otherwise hash to another one).
                        if let Some(entry) = corpus.entries.get(row) {
                            report.id = Some(entry.rollout.id.clone());
                        }
                        let record = RerunRecord::now(*report, code);
                        let verdict = record.report.verdict.map_or("not graded", |v| v.as_str());
                        fx.say(format!(
                            "{} {verdict}; saving to the rerun sidecar…",
                            if record.what_if { "what-if:" } else { "rerun:" }
                        ));
                        self.session.entry(row).or_default().push(SessionRerun {
                            record,
                            saved: None,
                        });
                    }
                    Err(e) => fx.say(format!("rerun failed: {e}")),
                }
                true
            }
            RerunEvent::InstallStep(line) => {
                self.install.lines.push(line);
                true
            }
            RerunEvent::InstallDone(outcome) => {
                self.install.running = false;
                match &outcome {
                    Ok(_) => fx.say_keyed(
                        "Python runtime installed: {key} reruns now; restart sebx to grade the whole list",
                        Action::Rerun,
                    ),
                    Err(e) => fx.say(format!("install failed: {e}")),
                }
                self.install.outcome = Some(outcome);
                true
            }
        }
    }

    /// Turns the spinner while something runs; returns whether to redraw.
    pub fn tick(&mut self) -> bool {
        if self.busy() {
            self.spinner = self.spinner.wrapping_add(1);
        }
        self.busy()
    }

    /// The comparison shown for `row`, or `None` when it has no rerun of any kind;
    /// `stored` are the row's reruns kept in its run's sidecar, oldest first.
    pub fn comparison(
        &self,
        corpus: &Corpus,
        stored: &[&RerunRecord],
        row: usize,
    ) -> Option<Comparison> {
        let session = self.session.get(&row);
        let last_session = |what_if: bool| {
            session.and_then(|list| {
                list.iter()
                    .rev()
                    .find(|s| s.record.what_if == what_if)
                    .map(|s| (s.record.clone(), s.saved.clone()))
            })
        };
        let from_sidecar = |what_if: bool| {
            stored
                .iter()
                .rev()
                .find(|r| r.what_if == what_if)
                .map(|r| ((*r).clone(), Some(Ok(()))))
        };
        let rerun = last_session(false).or_else(|| from_sidecar(false));
        let what_if = last_session(true).or_else(|| from_sidecar(true));
        let rerun_running = self.running.contains_key(&(row, false));
        let what_if_running = self.running.contains_key(&(row, true));
        if rerun.is_none() && what_if.is_none() && !rerun_running && !what_if_running {
            return None;
        }
        Some(Comparison {
            original: corpus.shown(row).label().to_string(),
            original_report: corpus.scores.get(row).and_then(Score::held_report).cloned(),
            rerun,
            what_if,
            rerun_running,
            what_if_running,
            earlier: stored.len(),
        })
    }
}

/// What the Rerun panel compares for one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The verdict the row had before (stored or graded), as shown in the list.
    pub original: String,
    pub original_report: Option<Arc<GradeReport>>,
    /// The latest rerun of the rollout's own code: record, and whether it is from this session.
    pub rerun: Option<(RerunRecord, Option<Result<(), String>>)>,
    pub what_if: Option<(RerunRecord, Option<Result<(), String>>)>,
    pub rerun_running: bool,
    pub what_if_running: bool,
    /// Earlier reruns of this rollout in the sidecar.
    pub earlier: usize,
}
