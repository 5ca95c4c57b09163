//! The behaviour questions as a grading step (issue 39): every rollout a scorer pays
//! (verdict `right` or reward 1) is run twice more under the tracer, plainly and with all
//! of zwc poisoned (then, where the poison could not tell, with zwc's values perturbed,
//! up to twice), and what [`super::behaviour`] answers goes into its report
//! ([`BehaviourRun`]) and from there into its facts, so that every figure counts the
//! loopholes a run shows whatever the code looks like. A rollout nobody pays is no
//! loophole and runs nothing more. The runs go through the grader's own runner, like the
//! official checker's runs ([`crate::grade::judge_eval`]), so a batch pipelines them.

use crate::grade::grader::RunOutput;
use crate::grade::report::{BehaviourRun, GradeReport, RunFinding};
use crate::model::Rollout;

use super::{
    TRACE_TIMEOUT, Trace, behaviour, trace_of_run, traced_program, traced_program_perturbed,
    traced_program_poisoned, untraced_program,
};
use crate::model::TestCase;

/// How long each traced run may take (the tracer slows a program down).
pub const TIMEOUT: std::time::Duration = TRACE_TIMEOUT;

/// A graded rollout waiting for its traced runs.
#[derive(Debug, Clone)]
pub struct Tracing {
    report: GradeReport,
    /// The programs to run now: the plain traced program and the poisoned one first, then
    /// one perturbed program at a time, and the untraced program where the traced run
    /// called zwc more often than the grader's run (last in its round).
    programs: Vec<String>,
    /// The round's last program is the untraced one.
    untraced_last: bool,
    cases: std::sync::Arc<[TestCase]>,
    /// What the runs so far showed (after the first round).
    ran: Option<Ran>,
}

/// The traced runs made so far.
#[derive(Debug, Clone)]
struct Ran {
    plain: Result<Trace, String>,
    poisoned: Option<Trace>,
    perturbed: Vec<Trace>,
    /// A perturbed run failed: it answers nothing, the poison's word stands.
    gave_up: bool,
    /// The runtime's count of zwc calls in each untraced run, the grader's first.
    unwatched: Vec<u64>,
    /// An untraced run did not give a count (it failed or timed out): no more are made.
    unwatched_lost: bool,
}

/// What follows a round of traced runs.
#[derive(Debug)]
pub enum Traced {
    /// The report, answered.
    Done(Box<GradeReport>),
    /// Another round to run.
    More(Box<Tracing>),
}

impl Tracing {
    /// Whether `report` asks the questions: a scorer pays it and its program ran (a
    /// rollout nobody pays is final as it is).
    pub fn needed(report: &GradeReport) -> bool {
        report.paid() && report.execution.is_some() && !report.entry.is_empty()
    }

    /// The traced runs of `report` (one [`Tracing::needed`] says needs them).
    pub fn new(rollout: &Rollout, report: GradeReport) -> Tracing {
        let code = &report.extraction.code;
        let programs = vec![
            traced_program(code, &report.entry, &rollout.test_cases),
            traced_program_poisoned(code, &report.entry, &rollout.test_cases),
        ];
        Tracing {
            report,
            programs,
            untraced_last: false,
            cases: rollout.test_cases.clone(),
            ran: None,
        }
    }

    /// What `report` says when the questions are asked but it needs no traced run (see
    /// [`Tracing::needed`]): nothing found, and why nothing ran.
    pub fn not_needed(report: &mut GradeReport) {
        let why = if report.paid() {
            "the program never ran"
        } else {
            "no scorer pays it"
        };
        report.behaviour = Some(BehaviourRun {
            counterfactual: "none".to_string(),
            untraced: Some(format!("not traced: {why}")),
            ..BehaviourRun::default()
        });
    }

    /// The programs to run, in order.
    pub fn programs(&self) -> Vec<&str> {
        self.programs.iter().map(String::as_str).collect()
    }

    /// What the runs of [`Tracing::programs`] (same order) showed: the report answered, or
    /// the next round (a perturbed run) to make.
    pub fn finish(mut self, runs: Vec<anyhow::Result<RunOutput>>) -> Traced {
        let code = self.report.extraction.code.clone();
        let mut runs = runs.into_iter();
        let trace = |run: Option<anyhow::Result<RunOutput>>| match run {
            Some(Ok(out)) => Ok(trace_of_run(&code, &out)),
            Some(Err(e)) => Err(format!("{e:#}")),
            None => Err("the run was lost".to_string()),
        };
        let untraced = if self.untraced_last {
            runs.next_back()
        } else {
            None
        };
        let mut ran = match self.ran.take() {
            None => {
                let plain = trace(runs.next());
                let poisoned = trace(runs.next()).ok();
                // The grader's own run is the first untraced one (no count after a timeout).
                let graded = self.report.execution.as_ref().and_then(|e| e.zwc_calls);
                Ran {
                    plain,
                    poisoned,
                    perturbed: Vec::new(),
                    gave_up: false,
                    unwatched: graded.into_iter().collect(),
                    unwatched_lost: false,
                }
            }
            Some(mut ran) => {
                if let Some(run) = runs.next() {
                    match trace(Some(run)) {
                        Ok(t) => ran.perturbed.push(t),
                        Err(_) => {
                            ran.perturbed.clear();
                            ran.gave_up = true;
                        }
                    }
                }
                ran
            }
        };
        if self.untraced_last {
            match untraced.and_then(Result::ok).and_then(|r| r.zwc_calls) {
                Some(n) => ran.unwatched.push(n),
                None => ran.unwatched_lost = true,
            }
        }
        let next = match (&ran.plain, ran.gave_up) {
            (Ok(plain), false) => {
                behaviour::next_perturbation(plain, ran.poisoned.as_ref(), &ran.perturbed)
            }
            _ => None,
        };
        let untraced = match &ran.plain {
            Ok(plain) => !ran.unwatched_lost && behaviour::wants_unwatched(plain, &ran.unwatched),
            Err(_) => false,
        };
        if next.is_some() || untraced {
            self.programs = next
                .map(|n| traced_program_perturbed(&code, &self.report.entry, &self.cases, n))
                .into_iter()
                .collect();
            if untraced {
                self.programs
                    .push(untraced_program(&code, &self.report.entry, &self.cases));
            }
            self.untraced_last = untraced;
            self.ran = Some(ran);
            return Traced::More(Box::new(self));
        }
        let mut report = self.report;
        let Ran {
            plain,
            poisoned,
            perturbed,
            unwatched,
            ..
        } = ran;
        report.behaviour = Some(match plain {
            Err(why) => BehaviourRun {
                counterfactual: "none".to_string(),
                untraced: Some(format!("the traced run failed: {why}")),
                ..BehaviourRun::default()
            },
            Ok(trace) => {
                let (answers, found) = behaviour::behaviour(
                    &trace,
                    poisoned.as_ref(),
                    &perturbed,
                    &unwatched,
                    &[],
                    &[],
                    &report.entry,
                );
                let untraced = (!trace.complete || trace.out.is_none()).then(|| {
                    if trace.timed_out {
                        format!("the traced run went past {} s", TRACE_TIMEOUT.as_secs())
                    } else {
                        "the traced run ended before the tracer's report".to_string()
                    }
                });
                BehaviourRun {
                    found: found
                        .into_iter()
                        .map(|f| RunFinding {
                            kind: f.kind,
                            line: f.line,
                            evidence: f
                                .evidence
                                .map(|e| {
                                    e.strip_prefix(behaviour::FOUND_BY_RUNNING)
                                        .map(str::to_string)
                                        .unwrap_or(e)
                                })
                                .unwrap_or_default(),
                        })
                        .collect(),
                    counterfactual: answers.counterfactual,
                    zwc_calls: answers.zwc_calls,
                    untraced,
                }
            }
        });
        Traced::Done(Box::new(report))
    }
}

/// The loophole kinds a traced run answered for in `report` (found or not): its answer
/// replaces the analysis's candidates of these
/// ([`crate::grade::report::BehaviourRun::settles`]).
pub fn settles(report: &GradeReport) -> crate::model::finding_kinds::KindSet {
    report.behaviour.as_ref().map_or(0, |b| b.settles())
}

/// The loopholes grading's behaviour questions found in `report`, as findings (what the run
/// showed is the message), for the views that list them beside the analysis's.
pub fn behaviour_findings(report: &GradeReport) -> Vec<crate::analysis::Finding> {
    let Some(b) = &report.behaviour else {
        return Vec::new();
    };
    b.found
        .iter()
        .map(|f| crate::analysis::Finding {
            kind: f.kind,
            family: f.kind.family(),
            severity: crate::analysis::Severity::Warning,
            name: f.kind.as_str().to_string(),
            line: f.line,
            col: 0,
            response_line: 0,
            response_col: 0,
            suggestion: None,
            message: format!("found by running: {}", f.evidence),
        })
        .collect()
}
