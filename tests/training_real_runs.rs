//! The Training screen and `sebx stats --by step` on a run the size of a real one (issue 30):
//! a seeded generator writes a verl-style dump of 126 tasks, each selecting another zwc
//! function of SE-Bench's API doc (`../shared/data/se-bench/api_doc.jsonl`), over 14 steps
//! (GRPO groups of three; a task is learned at a step of its own, some are forgotten, some
//! never learned, a few are right through a loophole), plus a validation dump that samples
//! each prompt once. The explorer is opened as `sebx FILES` opens it
//! (`tui::explore::open_default`), graded through the real engine (Python runtime
//! required: `sebx runtime install`), and driven by key events through the keymap. Every
//! expected figure comes from the generator's own schedule, not from sebx.

use crate::tui_common;

use crate::isolated;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ratatui::crossterm::event::KeyCode;
use serde_json::{Value, json};

use crate::shared_data;
use sebx::tui::App;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, load_inline};
use tui_common::{drawn, press, type_text};

const TASKS: usize = 126;
const STEPS: u32 = 14;
const GROUP: usize = 3;
const SEED: u64 = 30;
/// Tasks whose right answers call zwc and throw the result away (a hollow-zwc loophole):
/// `(task, every how many steps)` so their loophole rates differ.
const HOLLOW: [(usize, u32); 3] = [(9, 1), (40, 4), (100, 3)];

fn api_doc() -> PathBuf {
    shared_data::shared("se-bench/api_doc.jsonl")
}

/// xorshift64*: the generator's only randomness.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// One task of the generated run.
struct Task {
    /// The NumPy name the task selects (`abs`), and its zwc name.
    numpy: String,
    zwc: String,
    query: String,
    /// The step it is learned at (`None`: never).
    learned: Option<u32>,
    /// Learned, then forgotten two steps later.
    forgotten: bool,
}

/// One sample: (task, step, right, hollow).
#[derive(Clone, Copy)]
struct Sample {
    task: usize,
    step: u32,
    right: bool,
    hollow: bool,
}

struct Run {
    tasks: Vec<Task>,
    samples: Vec<Sample>,
    /// The zwc name of `sum`, which every answer calls.
    sum: String,
}

impl Run {
    /// Whether task `t` is sampled at `step` (half the prompts each step, as a GRPO batch).
    fn present(t: usize, step: u32) -> bool {
        (t + step as usize).is_multiple_of(2)
    }

    fn generate() -> Run {
        let doc =
            std::fs::read_to_string(api_doc()).expect("../shared/data/se-bench/api_doc.jsonl");
        let mut names: Vec<(String, String)> = Vec::new();
        let mut sum = String::new();
        for line in doc.lines().filter(|l| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line).expect("api doc line");
            let (o, c) = (
                v["original_name"]
                    .as_str()
                    .expect("original_name")
                    .to_string(),
                v["curr_name"].as_str().expect("curr_name").to_string(),
            );
            if o == "sum" {
                sum = c.clone();
            }
            if !names.iter().any(|(n, _)| *n == o) {
                names.push((o, c));
            }
        }
        assert!(
            !sum.is_empty() && names.len() >= TASKS,
            "the API doc has sum and {TASKS} functions"
        );
        let mut rng = Rng(SEED.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let tasks: Vec<Task> = names
            .into_iter()
            .take(TASKS)
            .enumerate()
            .map(|(i, (numpy, zwc))| {
                let r = rng.next() % 18;
                // The loophole tasks are learned early, so they have rights to count.
                let hollow = HOLLOW.iter().any(|h| h.0 == i);
                let r = if hollow { 1 } else { r };
                Task {
                    query: format!(
                        "Task {i:03} ({numpy}): return the total of the integers in `values` plus {i}, as an int."
                    ),
                    numpy,
                    zwc,
                    learned: (r < u64::from(STEPS)).then_some(r as u32 + 1),
                    forgotten: i % 9 == 4 && r < 8 && !hollow,
                }
            })
            .collect();
        let mut samples = Vec::new();
        for step in 1..=STEPS {
            for (t, task) in tasks.iter().enumerate() {
                if !Self::present(t, step) {
                    continue;
                }
                let known = task
                    .learned
                    .is_some_and(|l| step >= l && !(task.forgotten && step > l + 2));
                let almost = task.learned == Some(step + 1);
                let hollow = HOLLOW
                    .iter()
                    .any(|&(h, every)| h == t && step.is_multiple_of(every));
                for k in 0..GROUP {
                    // Learned: all right; the step before: one of three (not solved).
                    let right = known || (almost && k == 0);
                    samples.push(Sample {
                        task: t,
                        step,
                        right,
                        hollow: right && hollow,
                    });
                }
            }
        }
        Run {
            tasks,
            samples,
            sum,
        }
    }

    fn expected(t: usize) -> (i64, i64) {
        (3 + t as i64, 5 + t as i64)
    }

    fn dataset_line(&self, t: usize) -> String {
        let (a, b) = Self::expected(t);
        json!({
            "query": self.tasks[t].query,
            "function_name": "def solve(values):",
            "selected_functions": [self.tasks[t].numpy],
            "test_cases": [{"input": "values=[1, 2]", "output": a.to_string()},
                           {"input": "values=[5]", "output": b.to_string()}],
            "example": {"input": "values=[1, 2]", "output": a.to_string()},
            "right_exe_result": format!("{a}#{b}"),
        })
        .to_string()
    }

    fn prompt(&self, t: usize) -> String {
        format!(
            "user\nSolve with zwc.\n\n### Problem\n{}\n\n### Function to Complete\ndef solve(values):\nassistant\n",
            self.tasks[t].query
        )
    }

    fn response(&self, s: &Sample) -> String {
        let (sum, t) = (&self.sum, s.task);
        let body = if s.hollow {
            format!("    zwc.{sum}(values)\n    return sum(values) + {t}")
        } else if s.right {
            format!("    return int(zwc.{sum}(values)) + {t}")
        } else {
            format!("    return int(zwc.{sum}(values)) + {t} + 1")
        };
        format!(
            "<think>\nadd {t}\n</think>\n```python\nimport zwc\n\ndef solve(values):\n{body}\n```"
        )
    }

    /// Writes the dataset, `exp/rollout/{step}.jsonl` and `exp/validation/{step}.jsonl`
    /// (steps 0, 7 and 14, each prompt once, all right from step 7 on); returns
    /// (dataset, the `exp` folder).
    fn write(&self, dir: &Path) -> (PathBuf, PathBuf) {
        let dataset = dir.join("train.jsonl");
        let lines: Vec<String> = (0..TASKS).map(|t| self.dataset_line(t)).collect();
        std::fs::write(&dataset, lines.join("\n") + "\n").expect("dataset");
        let exp = dir.join("exp");
        let rollout = exp.join("rollout");
        std::fs::create_dir_all(&rollout).expect("mkdir");
        for step in 1..=STEPS {
            let text: String = self
                .samples
                .iter()
                .filter(|s| s.step == step)
                .map(|s| {
                    let (a, b) = Self::expected(s.task);
                    json!({"input": self.prompt(s.task), "output": self.response(s),
                           "gts": format!("{a}#{b}"), "score": if s.right { 1.0 } else { 0.0 },
                           "step": step})
                    .to_string()
                        + "\n"
                })
                .collect();
            std::fs::write(rollout.join(format!("{step}.jsonl")), text).expect("step file");
        }
        let validation = exp.join("validation");
        std::fs::create_dir_all(&validation).expect("mkdir");
        for step in [0u32, 7, 14] {
            let text: String = (0..TASKS)
                .map(|t| {
                    let right = step >= 7;
                    let s = Sample {
                        task: t,
                        step,
                        right,
                        hollow: false,
                    };
                    let (a, b) = Self::expected(t);
                    json!({"input": self.prompt(t), "output": self.response(&s),
                           "gts": format!("{a}#{b}"), "score": if right { 1.0 } else { 0.0 },
                           "step": step})
                    .to_string()
                        + "\n"
                })
                .collect();
            std::fs::write(validation.join(format!("{step}.jsonl")), text).expect("step file");
        }
        (dataset, exp)
    }

    /// (right, samples) of task `t` per step.
    fn tally(&self, t: usize) -> BTreeMap<u32, (usize, usize)> {
        let mut out: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
        for s in self.samples.iter().filter(|s| s.task == t) {
            let e = out.entry(s.step).or_default();
            e.0 += usize::from(s.right);
            e.1 += 1;
        }
        out
    }

    /// The first step at which at least half of the task's samples are right.
    fn first_solved(&self, t: usize) -> Option<u32> {
        self.tally(t)
            .into_iter()
            .find(|(_, (r, n))| 2 * r >= *n)
            .map(|(s, _)| s)
    }

    fn last_accuracy(&self, t: usize) -> f64 {
        let (_, (r, n)) = self.tally(t).into_iter().next_back().expect("sampled");
        r as f64 / n as f64
    }

    fn loophole_rate(&self, t: usize) -> f64 {
        let mine: Vec<&Sample> = self.samples.iter().filter(|s| s.task == t).collect();
        mine.iter().filter(|s| s.hollow).count() as f64 / mine.len() as f64
    }

    /// The heat map's NumPy name of task `t` (`np.abs`).
    fn numpy(&self, t: usize) -> String {
        format!("np.{}", self.tasks[t].numpy)
    }

    /// Tasks by NumPy name, then stably by `key` (the map's order: ties by name).
    fn order_by<K: PartialOrd>(&self, key: impl Fn(usize) -> K) -> Vec<String> {
        let mut ts: Vec<usize> = (0..TASKS).collect();
        ts.sort_by_key(|&t| self.numpy(t));
        ts.sort_by(|&a, &b| key(a).partial_cmp(&key(b)).expect("comparable"));
        ts.into_iter().map(|t| self.numpy(t)).collect()
    }

    /// The zero-advantage groups at `step`: tasks whose samples there all scored the same.
    fn zero_groups(&self, step: u32) -> BTreeSet<usize> {
        (0..TASKS)
            .filter(|&t| {
                let g: Vec<bool> = self
                    .samples
                    .iter()
                    .filter(|s| s.task == t && s.step == step)
                    .map(|s| s.right)
                    .collect();
                g.len() >= 2 && g.iter().all(|r| *r == g[0])
            })
            .collect()
    }
}

/// The explorer on the generated run, as `sebx exp --dataset train.jsonl --api-doc DOC`
/// opens it (runs `exp/rollout` and `exp/validation`), every sample graded.
fn explorer(dir: &Path, width: u16, height: u16) -> (Run, App) {
    let run = Run::generate();
    let (dataset, exp) = run.write(dir);
    let mut args = ExploreArgs {
        paths: vec![exp],
        ..isolated::explore_args()
    };
    args.context.api_doc = Some(api_doc());
    args.context.dataset = vec![dataset];
    let (session, _backend) = tui_common::open_graded(&args, width, height);
    let app = session.app;
    (run, app)
}

fn map_names(app: &App) -> Vec<String> {
    let map = app.training.map().expect("a heat map");
    map.rows.iter().map(|r| r.2.clone()).collect()
}

/// At 80×24: `/` and a zwc name selects that function and its course line shows; the NumPy
/// name does too; `s` sorts the map (the header says how) in the generator's orders; the
/// columns are step ranges of one span with whole labels; `z` lists the column's
/// zero-advantage groups and `enter` opens one's samples in the list.
#[test]
fn the_training_screen_on_a_run_of_126_functions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (run, mut app) = explorer(dir.path(), 80, 24);
    press(&mut app, KeyCode::Char('T'));
    assert!(app.training.open && app.training.result.is_some());
    let names = map_names(&app);
    assert_eq!(names.len(), TASKS, "a row per function");
    assert_eq!(names, run.order_by(|_| 0), "by NumPy name at first");

    // Bins: 14 steps do not fit 80 columns one by one; the columns are pairs of steps,
    // every label whole.
    let screen = drawn(&app);
    let header = screen
        .lines()
        .find(|l| l.contains("zwc function"))
        .expect("the map's header");
    let labels: Vec<&str> = header
        .split_whitespace()
        .filter(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))
        .collect();
    assert_eq!(
        labels,
        ["1-2", "3-4", "5-6", "7-8", "9-10", "11-12", "13-14"],
        "{screen}"
    );

    // `/` and the zwc name of a function far down the map (one no other name contains).
    let unique = |t: usize| {
        (0..TASKS).filter(|&u| u != t).all(|u| {
            !run.tasks[u].zwc.contains(&run.tasks[t].zwc)
                && !run.tasks[u].numpy.contains(&run.tasks[t].numpy)
        })
    };
    let t = (110..TASKS)
        .find(|&t| unique(t))
        .expect("a function with a name of its own");
    let zwc = format!("zwc.{}", run.tasks[t].zwc);
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, &zwc);
    let status = drawn(&app).lines().last().unwrap_or_default().to_string();
    assert!(
        status.contains(&zwc) && status.contains("NumPy or zwc name"),
        "the box shows what is typed: {status}"
    );
    press(&mut app, KeyCode::Enter);
    let row = app.training.cell.0;
    assert_eq!(
        map_names(&app)[row],
        run.numpy(t),
        "the function typed is selected"
    );
    let screen = drawn(&app);
    let selected = screen
        .lines()
        .find(|l| l.contains('▸'))
        .expect("the selected row is in sight");
    assert!(selected.contains(&zwc), "{screen}");
    let course = screen
        .lines()
        .find(|l| l.contains("over the run: "))
        .unwrap_or_else(|| panic!("no course line:\n{screen}"));
    let want = match run.first_solved(t) {
        None => "over the run: never solved".to_string(),
        Some(s) if run.last_accuracy(t) >= 0.5 => format!("learned: solved from step {s},"),
        Some(s) => format!("forgotten: solved at step {s},"),
    };
    assert!(course.contains(&want), "{course} (wanted {want})");
    // Its NumPy name finds it too (from the top), and `m` moves to the next match.
    press(&mut app, KeyCode::Char('g'));
    press(&mut app, KeyCode::Char('/'));
    type_text(&mut app, &run.numpy(t));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.training.cell.0, row);
    // `m`: the next function whose name holds the text, wrapping (`np.abs` is in
    // `np.absolute` too).
    let typed = run.numpy(t);
    let hits: Vec<usize> = map_names(&app)
        .iter()
        .enumerate()
        .filter(|(_, n)| n.contains(&typed))
        .map(|(i, _)| i)
        .collect();
    let next = hits.iter().copied().find(|&i| i > row).unwrap_or(hits[0]);
    press(&mut app, KeyCode::Char('m'));
    assert_eq!(app.training.cell.0, next);
    // The course line is drawn for the last row and the first alike.
    for key in [KeyCode::Char('G'), KeyCode::Char('g')] {
        press(&mut app, key);
        assert!(drawn(&app).contains("over the run: "));
    }

    // `s` cycles the order; the highlighted function stays highlighted.
    let orders: [(&str, Vec<String>); 4] = [
        (
            "by first step solved",
            run.order_by(|t| run.first_solved(t).unwrap_or(u32::MAX)),
        ),
        (
            "by last-step accuracy",
            run.order_by(|t| run.last_accuracy(t)),
        ),
        ("by loophole rate", run.order_by(|t| -run.loophole_rate(t))),
        ("by NumPy name", run.order_by(|_| 0)),
    ];
    for (label, want) in orders {
        let before = map_names(&app)[app.training.cell.0].clone();
        press(&mut app, KeyCode::Char('s'));
        assert_eq!(map_names(&app), want, "{label}");
        assert_eq!(map_names(&app)[app.training.cell.0], before);
        assert!(drawn(&app).contains(label), "the header says {label}");
    }
    let loopholes = run.order_by(|t| -run.loophole_rate(t));
    let hollow: Vec<String> = HOLLOW.iter().map(|&(t, _)| run.numpy(t)).collect();
    assert_eq!(
        loopholes[..3].iter().collect::<BTreeSet<_>>(),
        hollow.iter().collect::<BTreeSet<_>>(),
        "the loophole order leads with the hollow answers"
    );

    // `z` on the column of steps 5-6 lists its zero-advantage groups.
    let map = app.training.map().expect("map");
    let col = map
        .bins
        .iter()
        .position(|b| *b == (5, 6))
        .expect("steps 5-6");
    press(&mut app, KeyCode::Char('g'));
    for _ in 0..col {
        press(&mut app, KeyCode::Right);
    }
    press(&mut app, KeyCode::Char('z'));
    let groups = app.training.zero_groups();
    let want: Vec<(u32, String)> = [5, 6]
        .into_iter()
        .flat_map(|s| {
            let mut v: Vec<(u32, String)> = run
                .zero_groups(s)
                .into_iter()
                .map(|t| (s, run.tasks[t].query.clone()))
                .collect();
            v.sort();
            v
        })
        .collect();
    let mut got: Vec<(u32, String)> = groups.iter().map(|(s, g)| (*s, g.task.clone())).collect();
    got.sort();
    assert_eq!(
        got.iter()
            .map(|(s, q)| (*s, q[..8].to_string()))
            .collect::<Vec<_>>(),
        want.iter()
            .map(|(s, q)| (*s, q[..8].to_string()))
            .collect::<Vec<_>>()
    );
    assert!(groups.iter().all(|(_, g)| g.samples == GROUP));
    let screen = drawn(&app);
    assert!(
        screen.contains(&format!(
            "{} zero-advantage groups at steps 5–6",
            groups.len()
        )),
        "{screen}"
    );
    // The third group's samples, in the list.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    let (step, group) = groups[2].clone();
    press(&mut app, KeyCode::Enter);
    assert!(!app.training.open, "enter closes the screen onto the list");
    let shown: Vec<usize> = app.list.rows().collect();
    assert_eq!(shown.len(), GROUP, "the group's samples");
    for i in &shown {
        let e = &app.corpus.entries[*i];
        let m = e.rollout.sample.as_deref().expect("a sample");
        assert_eq!((m.step, m.group), (step, group.group));
        assert!(e.rollout.query.starts_with(&group.task[..8]));
        assert!(e.rollout.source.ends_with(format!("rollout/{step}.jsonl")));
    }
    let label = app
        .list
        .filters
        .rows
        .as_ref()
        .expect("a filter")
        .label
        .clone();
    assert!(label.contains("zero advantage"), "{label}");
}

/// `sebx stats --by step`: the JSON lists each step's zero-advantage groups (their task,
/// samples and score), the text lists them in a table, and the validation run, one sample
/// per prompt, reads n/a (JSON null) instead of 0/126.
#[test]
fn stats_by_step_lists_the_zero_advantage_groups() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = Run::generate();
    let (dataset, exp) = run.write(dir.path());
    let stats = |args: &[&str]| {
        let out = isolated::assert_sebx()
            .arg("stats")
            .arg(&exp)
            .arg("--dataset")
            .arg(&dataset)
            .arg("--api-doc")
            .arg(api_doc())
            .args(["--by", "step", "-q"])
            .args(args)
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let report: Value = serde_json::from_str(&stats(&["--format", "json"])).expect("json");
    let steps = report["steps"].as_array().expect("steps");
    let rollout: Vec<&Value> = steps.iter().filter(|s| s["run"] == "exp/rollout").collect();
    assert_eq!(rollout.len(), STEPS as usize);
    for s in &rollout {
        let step = s["step"].as_u64().expect("step") as u32;
        let want = run.zero_groups(step);
        let listed = s["zero_variance_detail"].as_array().expect("the groups");
        assert_eq!(s["zero_variance_groups"].as_u64(), Some(want.len() as u64));
        let tasks: BTreeSet<usize> = listed
            .iter()
            .map(|g| {
                let task = g["task"].as_str().expect("task");
                assert_eq!(g["samples"], GROUP, "{g}");
                let t: usize = task[5..8].parse().expect("Task NNN");
                // All right or all wrong, as the generator scored them.
                let right = run
                    .samples
                    .iter()
                    .any(|x| x.task == t && x.step == step && x.right);
                assert_eq!(
                    g["score"].as_f64(),
                    Some(if right { 1.0 } else { 0.0 }),
                    "{g}"
                );
                assert_eq!(g["right"], if right { GROUP } else { 0 }, "{g}");
                t
            })
            .collect();
        assert_eq!(tasks, want, "step {step}");
    }
    let validation: Vec<&Value> = steps
        .iter()
        .filter(|s| s["run"] == "exp/validation")
        .collect();
    assert_eq!(validation.len(), 3);
    for s in validation {
        assert_eq!(s["groups"], TASKS);
        assert!(s["zero_variance_groups"].is_null(), "n/a: {s}");
        assert_eq!(s["zero_variance_detail"], json!([]));
    }

    let text = stats(&[]);
    assert!(text.contains("Zero-advantage groups"), "{text}");
    let row = |run_name: &str, step: &str| {
        text.lines()
            .find(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.first() == Some(&run_name) && w.get(1) == Some(&step)
            })
            .unwrap_or_else(|| panic!("no {run_name} step {step} row:\n{text}"))
            .to_string()
    };
    assert!(row("exp/validation", "7").contains(" n/a "), "{text}");
    assert!(!row("exp/validation", "7").contains("0/126"), "{text}");
    let z5 = run.zero_groups(5).len();
    assert!(
        row("exp/rollout", "5").contains(&format!(" {z5}/")),
        "{text}"
    );
}

/// Before any verdict is in, the Training screen says `–` for what needs one (it used to
/// show an earlier step's figure as the last step's, or 0.0%), and a validation run reads
/// n/a for zero-advantage groups.
#[test]
fn nothing_graded_reads_a_dash_and_validation_groups_read_na() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = Run::generate();
    let (dataset, exp) = run.write(dir.path());
    let mut args = ExploreArgs {
        paths: vec![exp],
        ..isolated::explore_args()
    };
    args.context.api_doc = Some(api_doc());
    args.context.dataset = vec![dataset];
    let (mut session, _backend) = open_default(&args).expect("opens");
    load_inline(&mut session.app, &session.sources);
    // No grading backend: nothing is graded.
    drain_inline(&mut session.app, None);
    let app = &mut session.app;
    app.update(&sebx::tui::Action::Resize {
        width: 120,
        height: 40,
    });
    press(app, KeyCode::Char('T'));
    let screen = drawn(app);
    let accuracy = screen
        .lines()
        .find(|l| l.contains("accuracy "))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(accuracy.contains("– at the last step"), "{screen}");
    assert!(!screen.contains("0.0%"), "{screen}");
    // The validation run: one sample per prompt.
    press(app, KeyCode::Char('u'));
    let screen = drawn(app);
    assert!(screen.contains("run exp/validation"), "{screen}");
    assert!(screen.contains("zero-advantage groups n/a"), "{screen}");
}
