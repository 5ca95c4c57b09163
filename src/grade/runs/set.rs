//! The run set: one compact [`RolloutFacts`] per graded rollout, with tasks, functions and
//! wrong names interned, built from each rollout's verdict and its [`Analysis`] (the same
//! findings `sebx analyze` reports).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::lengths::ResponseShape;
use crate::analysis::{Analysis, FindingKind, analyze_rollout, graph::NodeKind};
use crate::grade::report::ReasonKind;
use crate::model::finding_kinds::KindSet;
use crate::model::tokenizer::TokenCounter;
use crate::model::verl::{JoinedBy, SampleMeta};
use crate::model::{ApiMap, DatasetItem, Rollout, RolloutId, Verdict};

/// A zwc function that tasks select, with its NumPy name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FunctionKey {
    /// Qualified NumPy name (`np.mean`).
    pub numpy: String,
    /// Qualified zwc name (`zwc.kocito`).
    pub zwc: String,
}

/// A wrong name as the analysis reported it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct WrongNameKey {
    pub kind: FindingKind,
    /// As written (`zwc.mean`, `np.sum`, `tolist`).
    pub name: String,
    /// The correct zwc name(s), where the analysis knows one.
    pub correct: Option<String>,
}

/// How one rollout treated one of its task's functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionUse {
    /// Index into [`RunSet::functions`].
    pub function: u32,
    /// The code calls the function by its right zwc name.
    pub called_right: bool,
    /// A NumPy name stood in its place (`zwc.mean`, `np.mean`, `.mean()`).
    pub numpy_name: bool,
    /// A name neither zwc nor NumPy has stood in its place.
    pub invented_name: bool,
}

/// What the statistics need of one graded rollout.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RolloutFacts {
    pub run: u32,
    pub task: u32,
    pub verdict: Verdict,
    pub id: RolloutId,
    /// 1-based line in the run's file.
    pub line: usize,
    /// One per function the task selects that the API knows.
    pub uses: Vec<FunctionUse>,
    /// Every wrong-name finding: index into [`RunSet::names`], and the function it stood in
    /// for, when it can be told.
    pub wrong: Vec<(u32, Option<u32>)>,
    /// The current hand label (category ids), `None` when unlabelled.
    pub labels: Option<Vec<String>>,
    /// The official RL reward, when it was scored, and why it disagrees with the verdict.
    pub reward: Option<u8>,
    pub reward_reason: Option<ReasonKind>,
    /// The finding kinds the analysis reported, one bit each ([`kind_bit`]).
    pub kinds: KindSet,
    /// Where the rollout sits in a training run, when it is a sample of one.
    pub sample: Option<SampleFacts>,
}

/// The bit of a finding kind in [`RolloutFacts::kinds`] (the kind table's).
pub fn kind_bit(kind: FindingKind) -> KindSet {
    kind.bit()
}

/// The finding kinds of an analysis, one bit each. A loophole counts only when the
/// analysis is sure of it (a `possible` one is never counted as a loophole).
pub fn kinds_of(analysis: &Analysis) -> KindSet {
    analysis
        .code
        .findings
        .iter()
        .filter(|f| {
            !(f.kind.family() == crate::model::finding_kinds::Family::Loophole
                && f.severity == crate::analysis::Severity::Possible)
        })
        .fold(0, |bits, f| bits | kind_bit(f.kind))
}

/// What the training figures need of a sample: its step, its group (with the step, its
/// GRPO group: by `uid` where the dump has one, else by prompt text), the training reward
/// stored with it and its response's length and shape (an empty one: an aborted request).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SampleFacts {
    pub step: u32,
    pub group: u32,
    pub score: Option<f64>,
    /// Its `gts` is not the task's `right_exe_result`.
    pub gts_differs: bool,
    /// Its response's length, emptiness and open fence.
    pub shape: ResponseShape,
}

impl SampleFacts {
    /// The facts of a sample's meta and its response (its tokens counted by `tokenizer`,
    /// when one is given).
    pub fn of(m: &SampleMeta, response: &str, tokenizer: Option<&TokenCounter>) -> SampleFacts {
        SampleFacts {
            step: m.step,
            group: m.group,
            // NaN or ±Infinity as written: unknown to every figure.
            score: m.score.filter(|x| x.is_finite()),
            gts_differs: m.gts_differs.is_some(),
            shape: ResponseShape::of(response, tokenizer),
        }
    }

    /// [`SampleFacts::of`] each rollout that is a sample (`None` for the others); with a
    /// tokenizer, `jobs` threads count the tokens (a step of a big run has thousands of
    /// responses, each encoded whole), `counted` told of each batch of rows they counted.
    pub fn of_all(
        rollouts: &[&Rollout],
        tokenizer: Option<&TokenCounter>,
        jobs: usize,
        counted: &(dyn Fn(usize) + Sync),
    ) -> Vec<Option<SampleFacts>> {
        let mut facts: Vec<Option<SampleFacts>> = rollouts
            .iter()
            .map(|r| {
                r.sample
                    .as_deref()
                    .map(|m| SampleFacts::of(m, &r.response, None))
            })
            .collect();
        let Some(tokenizer) = tokenizer else {
            return facts;
        };
        // Each thread counts a part with one `Counting` (pieces remembered across texts).
        let count = |rows: &[&Rollout], facts: &mut [Option<SampleFacts>]| {
            let mut counting = tokenizer.counting();
            for (i, (r, f)) in rows.iter().zip(facts.iter_mut()).enumerate() {
                if let Some(f) = f {
                    f.shape.tokens = counting.count(&r.response);
                }
                if i % 64 == 63 {
                    counted(64);
                }
            }
            counted(rows.len() % 64);
        };
        const SERIAL_BELOW: usize = 64;
        if jobs < 2 || rollouts.len() < SERIAL_BELOW {
            count(rollouts, &mut facts);
            return facts;
        }
        let chunk = rollouts.len().div_ceil(jobs);
        std::thread::scope(|scope| {
            let parts: Vec<_> = rollouts
                .chunks(chunk)
                .zip(facts.chunks_mut(chunk))
                .map(|(rows, facts)| scope.spawn(move || count(rows, facts)))
                .collect();
            for h in parts {
                if let Err(panic) = h.join() {
                    std::panic::resume_unwind(panic);
                }
            }
        });
        facts
    }
}

impl UngradedSample {
    /// A training sample without a verdict (`sample`: its facts, [`SampleFacts::of`];
    /// `kinds`: its analysis' finding kinds).
    pub fn of(
        run: u32,
        r: &Rollout,
        m: &SampleMeta,
        sample: SampleFacts,
        kinds: KindSet,
    ) -> UngradedSample {
        UngradedSample {
            run,
            sample,
            unjoined: m.joined == JoinedBy::Unjoined,
            file: r.source.display().to_string(),
            line: r.line,
            problem: super::text::short_query(&r.query, 80),
            kinds,
        }
    }
}

/// A sample of a training run with no verdict: no task joined (so no test cases), or the
/// grader could not run it. Counted per step, listed with its file and line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UngradedSample {
    pub run: u32,
    pub sample: SampleFacts,
    /// No dataset task matches its prompt.
    pub unjoined: bool,
    pub file: String,
    pub line: usize,
    /// The start of its problem text (or prompt).
    pub problem: String,
    pub kinds: KindSet,
}

/// Graded rollouts of one or more runs, with tasks, functions and wrong names interned.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunSet {
    /// Run names, in the order given.
    pub runs: Vec<String>,
    /// Task queries.
    pub tasks: Vec<String>,
    pub functions: Vec<FunctionKey>,
    pub names: Vec<WrongNameKey>,
    pub rollouts: Vec<RolloutFacts>,
    /// Samples of training runs that have no verdict (see [`UngradedSample`]).
    pub ungraded: Vec<UngradedSample>,
    /// Selected functions the API doc does not know (they get no map row), so the front
    /// ends can say why a map is short.
    pub unknown_selected: std::collections::BTreeSet<String>,
    #[serde(skip)]
    task_index: HashMap<String, u32>,
    #[serde(skip)]
    function_index: HashMap<String, u32>,
    #[serde(skip)]
    name_index: HashMap<WrongNameKey, u32>,
}

/// Whether `text` mentions the qualified name `name` as a whole token.
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .any(|tok| tok == name)
}

/// `mean` / `np.mean` / `numpy.mean` → `np.mean`.
pub fn qualified_numpy(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("numpy.") {
        format!("np.{rest}")
    } else if name.starts_with("np.") {
        name.to_string()
    } else {
        format!("np.{name}")
    }
}

impl RunSet {
    /// Rebuilds the lookup indices (after deserializing a set, which does not carry them).
    pub fn reindex(&mut self) {
        self.task_index = (0..self.tasks.len() as u32)
            .map(|i| (self.tasks[i as usize].clone(), i))
            .collect();
        self.function_index = (0..self.functions.len() as u32)
            .map(|i| (self.functions[i as usize].zwc.clone(), i))
            .collect();
        self.name_index = (0..self.names.len() as u32)
            .map(|i| (self.names[i as usize].clone(), i))
            .collect();
    }

    /// Adds a run (a rollout file) and returns its index.
    pub fn add_run(&mut self, name: &str) -> u32 {
        self.runs.push(name.to_string());
        (self.runs.len() - 1) as u32
    }

    /// The index of a task, adding it when new.
    pub fn task(&mut self, query: &str) -> u32 {
        if let Some(i) = self.task_index.get(query) {
            return *i;
        }
        let i = self.tasks.len() as u32;
        self.tasks.push(query.to_string());
        self.task_index.insert(query.to_string(), i);
        i
    }

    /// The index of a function, adding it when new.
    pub fn function(&mut self, numpy: &str, zwc: &str) -> u32 {
        if let Some(i) = self.function_index.get(zwc) {
            return *i;
        }
        let i = self.functions.len() as u32;
        self.functions.push(FunctionKey {
            numpy: numpy.to_string(),
            zwc: zwc.to_string(),
        });
        self.function_index.insert(zwc.to_string(), i);
        i
    }

    /// The index of a wrong name, adding it when new.
    pub fn name(&mut self, key: WrongNameKey) -> u32 {
        if let Some(i) = self.name_index.get(&key) {
            return *i;
        }
        let i = self.names.len() as u32;
        self.names.push(key.clone());
        self.name_index.insert(key, i);
        i
    }

    /// Adds one graded rollout from its analysis. `selected` are the task's NumPy function
    /// names (`mean`, `linalg.inv`, or bare `det` as the datasets spell linalg functions);
    /// those the API does not know are left out of the map.
    #[allow(clippy::too_many_arguments)]
    pub fn add_analyzed(
        &mut self,
        run: u32,
        query: &str,
        verdict: Verdict,
        analysis: &Analysis,
        api: &ApiMap,
        selected: &[String],
        labels: Option<Vec<String>>,
    ) {
        let task = self.task(query);
        let mut uses = Vec::new();
        let mut zwc_of_use = Vec::new();
        for s in selected {
            let Some((numpy, zwc)) = api.selected_function(s) else {
                self.unknown_selected.insert(s.clone());
                continue;
            };
            let zwc = zwc.to_string();
            let short = api.numpy_short(&zwc).unwrap_or_default();
            // The graph resolves aliases (`import zwc as z`): its zwc-call labels end with
            // the NumPy meaning of the real function called. The zwc name of a NumPy alias
            // of the function (`left_shift` for `bitwise_left_shift`) calls it too.
            let markers: Vec<String> = crate::model::api::same_function_names(short)
                .into_iter()
                .map(|n| format!("‹{n}›"))
                .collect();
            let called_right = analysis.code.graph.nodes.iter().any(|n| {
                n.kind == NodeKind::ZwcCall && markers.iter().any(|m| n.label.ends_with(m))
            });
            let function = self.function(&numpy, &zwc);
            uses.push(FunctionUse {
                function,
                called_right,
                numpy_name: false,
                invented_name: false,
            });
            zwc_of_use.push(zwc);
        }
        let mut wrong = Vec::new();
        for f in &analysis.code.findings {
            if !f.is_wrong_name() {
                continue;
            }
            let key = WrongNameKey {
                kind: f.kind,
                name: f.name.clone(),
                correct: f.suggestion.clone(),
            };
            let name = self.name(key);
            // The function it stood in for: the one its suggestion names; an invented name
            // with no such hint goes to the task's only function, if the code missed it.
            let mut target = f
                .suggestion
                .as_deref()
                .and_then(|s| zwc_of_use.iter().position(|z| mentions(s, z)));
            if target.is_none()
                && f.kind == FindingKind::UnknownZwcName
                && uses.len() == 1
                && !uses[0].called_right
            {
                target = Some(0);
            }
            if let Some(t) = target {
                if f.kind == FindingKind::UnknownZwcName {
                    uses[t].invented_name = true;
                } else {
                    uses[t].numpy_name = true;
                }
            }
            wrong.push((name, target.map(|t| uses[t].function)));
        }
        self.rollouts.push(RolloutFacts {
            run,
            task,
            verdict,
            id: analysis.id.clone(),
            line: analysis.line,
            uses,
            wrong,
            labels,
            reward: None,
            reward_reason: None,
            kinds: kinds_of(analysis),
            sample: None,
        });
    }

    /// Records where the rollout added last sits in its training run.
    pub fn set_last_sample(&mut self, sample: Option<SampleFacts>) {
        if let Some(r) = self.rollouts.last_mut() {
            r.sample = sample;
        }
    }

    /// Records the official RL reward of the rollout added last.
    pub fn set_last_reward(&mut self, reward: Option<u8>, reason: Option<ReasonKind>) {
        if let Some(r) = self.rollouts.last_mut() {
            r.reward = reward;
            r.reward_reason = reason;
        }
    }

    /// Adds finding kinds runs showed (the official checker's, the behaviour runs') to the rollout added last.
    pub fn add_last_kinds(&mut self, kinds: KindSet) {
        if let Some(r) = self.rollouts.last_mut() {
            r.kinds |= kinds;
        }
    }

    /// What the last rollout's grade decided besides its verdict: the official RL reward
    /// and why it disagrees, and the finding kinds the official checker's runs showed, added to the analysis's: a loophole the code's
    /// look hides is counted all the same.
    /// Where a traced run answered a behaviour question, its answer replaces the analysis's
    /// candidates of the kinds it settles (what the program does, not how it looks).
    pub fn set_last_facts(&mut self, facts: &crate::grade::facts::Facts) {
        self.set_last_reward(facts.reward, facts.reason);
        if let Some(r) = self.rollouts.last_mut() {
            r.kinds &= !facts.behaviour_settles;
        }
        self.add_last_kinds(facts.run_kinds());
    }

    /// Adds one graded rollout: analyzes it (the same analysis `sebx analyze` runs) and
    /// records its facts. The task's functions come from `item`, else the rollout.
    pub fn add_rollout(
        &mut self,
        run: u32,
        rollout: &Rollout,
        verdict: Verdict,
        api: &ApiMap,
        item: Option<&DatasetItem>,
        labels: Option<Vec<String>>,
    ) {
        let analysis = analyze_rollout(rollout, api, item);
        self.add_with_analysis(run, rollout, verdict, &analysis, api, item, labels);
    }

    /// Adds one graded rollout with an analysis of its code, which may be another
    /// rollout's with the same code for the same task (training samples share one): the
    /// facts keep this rollout's id and line.
    #[allow(clippy::too_many_arguments)]
    pub fn add_with_analysis(
        &mut self,
        run: u32,
        rollout: &Rollout,
        verdict: Verdict,
        analysis: &Analysis,
        api: &ApiMap,
        item: Option<&DatasetItem>,
        labels: Option<Vec<String>>,
    ) {
        let selected = item
            .map(|i| i.selected_functions.as_slice())
            .filter(|s| !s.is_empty())
            .unwrap_or(&rollout.selected_functions);
        self.add_analyzed(
            run,
            &rollout.query,
            verdict,
            analysis,
            api,
            selected,
            labels,
        );
        if let Some(last) = self.rollouts.last_mut() {
            last.id = rollout.id.clone();
            last.line = rollout.line;
        }
    }

    /// Adds a graded rollout with no analysis (no API doc: no functions, no wrong names).
    pub fn add_bare(
        &mut self,
        run: u32,
        rollout: &Rollout,
        verdict: Verdict,
        labels: Option<Vec<String>>,
    ) {
        let task = self.task(&rollout.query);
        self.rollouts.push(RolloutFacts {
            run,
            task,
            verdict,
            id: rollout.id.clone(),
            line: rollout.line,
            uses: Vec::new(),
            wrong: Vec::new(),
            labels,
            reward: None,
            reward_reason: None,
            kinds: 0,
            sample: None,
        });
    }

    /// Indices of the rollouts of one run, in file order.
    pub fn of_run(&self, run: u32) -> impl Iterator<Item = usize> + '_ {
        self.rollouts
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.run == run)
            .map(|(i, _)| i)
    }
}
