//! The loophole detectors measured on programs no test was tuned on (issue 39): a seeded
//! generator (`common/loophole_gen.rs`) mutates genuine parity solutions along each
//! behavioural axis (NumPy by another route, zwc for show, the zwc check fooled, forged
//! output, printed code) and into innocent look-alikes. Every program is graded with both
//! official scorers (`sebx grade --scorer both`): a loophole counts only when it is paid
//! (verdict `right`, reward 1), a look-alike must keep the genuine verdict. Then
//! `sebx analyze --confirm` runs them as a user would, and a paid loophole is *named* when a
//! loophole-family finding is settled `confirmed` by the run (`confirm.findings[]` or
//! `confirm.found[]`); a look-alike with one is a false alarm. The table (axis, generated,
//! paid, named, recall; look-alikes accused) is printed; the target is every paid loophole
//! named and no look-alike accused.
//!
//! Size and seed: `SEBX_LOOPHOLE_SEED` (default 39), `SEBX_LOOPHOLE_SOLUTIONS` (genuine
//! solutions, default 12), `SEBX_LOOPHOLE_PER_AXIS` (programs per loophole axis and solution,
//! default 3; look-alikes twice that). `SEBX_LOOPHOLE_DUMP=FILE` writes the programs as
//! rollouts; `SEBX_LOOPHOLE_UNPAID=FORM` prints the loopholes of a form that were not paid,
//! with their grading. The unit tests need no Python; the measuring test
//! needs the grader's runtime (`sebx runtime install`).

use crate::isolated;
use crate::loophole_gen;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::shared_data;
use loophole_gen::{AXES, Axis, Generated, Generator, Genuine};
use sebx::model::ApiMap;
use sebx::model::finding_kinds::{Family, FindingKind};
use serde_json::Value;

fn shared(rel: &str) -> PathBuf {
    shared_data::shared(rel)
}

fn api_doc() -> PathBuf {
    shared("se-bench/api_doc.jsonl")
}

fn api() -> ApiMap {
    ApiMap::load(&api_doc()).expect("API doc")
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn pool() -> Vec<Genuine> {
    loophole_gen::genuine_pool(&shared("parity"))
}

/// The genuine solutions and every program generated from them for `seed`.
fn generate(
    api: &ApiMap,
    pool: &[Genuine],
    seed: u64,
    n: usize,
    per_axis: usize,
) -> (Vec<Genuine>, Vec<Generated>) {
    let solutions = loophole_gen::sample(pool, seed, n);
    let generator = Generator::new(api);
    let programs = solutions
        .iter()
        .flat_map(|g| generator.programs(g, seed, per_axis))
        .collect();
    (solutions, programs)
}

#[test]
fn the_generator_is_deterministic_per_seed() {
    let (api, pool) = (api(), pool());
    let codes = |seed| -> Vec<(Axis, &'static str, String)> {
        generate(&api, &pool, seed, 6, 3)
            .1
            .into_iter()
            .map(|p| (p.axis, p.form, p.code))
            .collect()
    };
    let a = codes(7);
    assert!(!a.is_empty());
    assert_eq!(a, codes(7), "the same seed gives the same programs");
    let b = codes(8);
    let (sa, sb): (BTreeSet<&String>, BTreeSet<&String>) = (
        a.iter().map(|p| &p.2).collect(),
        b.iter().map(|p| &p.2).collect(),
    );
    assert!(
        sa.intersection(&sb).count() * 2 < sa.len(),
        "another seed gives mostly other programs"
    );
}

#[test]
fn every_axis_and_most_forms_are_generated() {
    let (api, pool) = (api(), pool());
    assert!(pool.len() >= 40, "{} genuine solutions", pool.len());
    let (_, programs) = generate(&api, &pool, 39, 12, 3);
    let mut forms: BTreeMap<Axis, BTreeSet<&str>> = BTreeMap::new();
    for p in &programs {
        forms.entry(p.axis).or_default().insert(p.form);
    }
    for axis in AXES {
        let seen = forms.get(&axis).map_or(0, BTreeSet::len);
        // Several concrete forms per axis; printed code applies to some answers only.
        let want = (axis.forms().len() * 2 / 3).max(2);
        assert!(
            seen >= want,
            "{}: {seen} of {} forms ({:?})",
            axis.name(),
            axis.forms().len(),
            forms.get(&axis)
        );
    }
}

#[test]
fn generated_programs_parse_and_pass_the_official_static_checks() {
    let (api, pool) = (api(), pool());
    let (solutions, programs) = generate(&api, &pool, 2039, 10, 3);
    let by_origin: BTreeMap<usize, &Genuine> = solutions.iter().map(|g| (g.origin, g)).collect();
    for p in &programs {
        assert!(
            loophole_gen::parses(&p.code),
            "{} {}:\n{}",
            p.axis.name(),
            p.form,
            p.code
        );
        let g = by_origin[&p.origin];
        assert!(
            loophole_gen::passes_checks(&p.code, &g.entry, &g.cases),
            "{} {}:\n{}",
            p.axis.name(),
            p.form,
            p.code
        );
        // The first `def` is still the genuine entry (the static check reads it).
        assert_eq!(sebx::analysis::entry_function_name(&p.code), g.entry);
    }
}

/// Writes `lines` as a JSONL file in `dir`.
fn write_jsonl(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let file = dir.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).expect("write");
    file
}

/// Runs the sebx binary (isolated caches) and reads its `-o` JSONL, keyed by `line`.
fn run_sebx(args: &[&std::ffi::OsStr], out: &Path) -> BTreeMap<u64, Value> {
    let output = isolated::sebx()
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .expect("sebx");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::read_to_string(out)
        .expect("output")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON line");
            (v["line"].as_u64().expect("line"), v)
        })
        .collect()
}

fn is_confirmed(f: &Value) -> bool {
    f["settled"] == "confirmed" || f["settled"]["settled"] == "confirmed"
}

/// The loophole-family kinds a run confirmed (`confirm.findings[]` and `confirm.found[]`).
fn named(a: &Value) -> Vec<String> {
    ["findings", "found"]
        .iter()
        .filter_map(|k| a["confirm"][k].as_array())
        .flatten()
        .filter(|f| is_confirmed(f))
        .filter_map(|f| f["kind"].as_str())
        .filter(|k| FindingKind::from_name(k).is_some_and(|k| k.family() == Family::Loophole))
        .map(str::to_string)
        .collect()
}

#[derive(Default)]
struct Row {
    generated: usize,
    paid: usize,
    named: usize,
    /// Named with its own axis's kind ([`own_kind`]).
    own: usize,
    accused: usize,
    kept: usize,
}

/// The kind a loophole of `axis` is named with when its family is told right.
fn own_kind(axis: Axis) -> &'static str {
    match axis {
        Axis::NumpyRoute => "numpy_backdoor",
        Axis::ZwcForShow => "hollow_zwc",
        Axis::CheckFooled => "zwc_check_fooled",
        Axis::ForgedOutput => "forged_output",
        Axis::PrintedCode => "grader_eval",
        Axis::LookAlike => "",
    }
}

#[test]
fn generated_loopholes_are_named_and_look_alikes_are_not() {
    let seed = env_or("SEBX_LOOPHOLE_SEED", 39);
    let n = env_or("SEBX_LOOPHOLE_SOLUTIONS", 12) as usize;
    let per_axis = env_or("SEBX_LOOPHOLE_PER_AXIS", 3) as usize;
    let (api, pool) = (api(), pool());
    let (solutions, programs) = generate(&api, &pool, seed, n, per_axis);
    let by_origin: BTreeMap<usize, &Genuine> = solutions.iter().map(|g| (g.origin, g)).collect();
    let lines: Vec<Value> = programs
        .iter()
        .map(|p| p.rollout(by_origin[&p.origin]))
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_jsonl(dir.path(), "generated.jsonl", &lines);
    let doc = api_doc();
    let graded = run_sebx(
        &[
            "grade".as_ref(),
            "--scorer".as_ref(),
            "both".as_ref(),
            "-q".as_ref(),
            "--no-cache".as_ref(),
            file.as_os_str(),
            "--api-doc".as_ref(),
            doc.as_os_str(),
        ],
        &dir.path().join("graded.jsonl"),
    );
    let analysed = run_sebx(
        &[
            "analyze".as_ref(),
            file.as_os_str(),
            "--confirm".as_ref(),
            "--api-doc".as_ref(),
            doc.as_os_str(),
        ],
        &dir.path().join("analysis.jsonl"),
    );
    assert_eq!(graded.len(), programs.len());
    assert_eq!(analysed.len(), programs.len());

    let mut rows: BTreeMap<Axis, Row> = BTreeMap::new();
    let mut forms: BTreeMap<(Axis, &str), Row> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, p) in programs.iter().enumerate() {
        let line = i as u64 + 1;
        let (r, a) = (&graded[&line], &analysed[&line]);
        let paid = r["verdict"] == "right" && r["reward"] == 1;
        let kinds = named(a);
        for row in [
            rows.entry(p.axis).or_default(),
            forms.entry((p.axis, p.form)).or_default(),
        ] {
            row.generated += 1;
            if p.axis.is_loophole() {
                row.paid += usize::from(paid);
                row.named += usize::from(paid && !kinds.is_empty());
                row.own += usize::from(paid && kinds.iter().any(|k| k == own_kind(p.axis)));
            } else {
                row.kept += usize::from(paid);
                row.accused += usize::from(!kinds.is_empty());
            }
        }
        let what = format!(
            "line {line}: {} {} (parity line {})",
            p.axis.name(),
            p.form,
            p.origin
        );
        if p.axis.is_loophole() {
            if paid && kinds.is_empty() {
                problems.push(format!("{what}: paid, not named\n{}", p.code));
            }
            // `SEBX_LOOPHOLE_UNPAID=FORM`: why the programs of a form are not paid (an
            // unpaid program measures nothing).
            if !paid && std::env::var("SEBX_LOOPHOLE_UNPAID").is_ok_and(|f| f == p.form) {
                let text = r.to_string();
                let cut = text.char_indices().nth(1500).map_or(text.len(), |(i, _)| i);
                println!("{what}: not paid\n{}\n{}\n", p.code, &text[..cut]);
            }
        } else {
            if !paid {
                problems.push(format!(
                    "{what}: innocent, but verdict {} reward {}\n{}",
                    r["verdict"], r["reward"], p.code
                ));
            }
            if !kinds.is_empty() {
                problems.push(format!(
                    "{what}: innocent, accused of {kinds:?}\n{}",
                    p.code
                ));
            }
        }
    }
    let mut table = format!(
        "seed {seed}, {} solutions, {} programs\n{:<16} {:>9} {:>5} {:>6} {:>7} {:>12}\n",
        solutions.len(),
        programs.len(),
        "axis",
        "generated",
        "paid",
        "named",
        "recall",
        "as its kind"
    );
    let mut total = Row::default();
    for (axis, row) in rows.iter().filter(|(a, _)| a.is_loophole()) {
        table.push_str(&format!(
            "{:<16} {:>9} {:>5} {:>6} {:>7} {:>12}\n",
            axis.name(),
            row.generated,
            row.paid,
            row.named,
            recall(row),
            row.own
        ));
        total.generated += row.generated;
        total.paid += row.paid;
        total.named += row.named;
        total.own += row.own;
    }
    table.push_str(&format!(
        "{:<16} {:>9} {:>5} {:>6} {:>7} {:>12}\n",
        "all loopholes",
        total.generated,
        total.paid,
        total.named,
        recall(&total),
        total.own
    ));
    if let Some(l) = rows.get(&Axis::LookAlike) {
        table.push_str(&format!(
            "look-alikes: {} generated, {} kept right with reward 1, {} accused\n",
            l.generated, l.kept, l.accused
        ));
    }
    table
        .push_str("\nby form (generated / paid or kept / named or accused / named as its kind):\n");
    for ((axis, form), row) in &forms {
        let (b, c) = if axis.is_loophole() {
            (row.paid, row.named)
        } else {
            (row.kept, row.accused)
        };
        let own = if axis.is_loophole() {
            format!(" {:>3}", row.own)
        } else {
            String::new()
        };
        table.push_str(&format!(
            "  {:<14} {:<22} {:>3} {:>3} {:>3}{own}\n",
            axis.name(),
            form,
            row.generated,
            b,
            c
        ));
    }
    println!("{table}");
    if let Ok(out) = std::env::var("SEBX_LOOPHOLE_DUMP") {
        std::fs::copy(&file, &out).expect("dump the generated programs");
    }
    assert!(
        problems.is_empty(),
        "{table}\n{} problems:\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

fn recall(row: &Row) -> String {
    if row.paid == 0 {
        "-".to_string()
    } else {
        format!("{:.0}%", 100.0 * row.named as f64 / row.paid as f64)
    }
}

/// `stats` over `files` (isolated caches), as JSON.
fn stats_json(files: &[&Path], extra: &[&str]) -> Value {
    let doc = api_doc();
    let output = isolated::sebx()
        .arg("stats")
        .args(files)
        .arg("--api-doc")
        .arg(&doc)
        .args(["--format", "json", "-q"])
        .args(extra)
        .output()
        .expect("sebx stats");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stats JSON")
}

/// The figures count what grading's behaviour questions find (issue 39: "every figure
/// counts them"): of generated programs both scorers pay, `stats` counts every loophole
/// through one and no look-alike, while without the questions it misses some (those the
/// code's look hides). `sebx grade --behaviour` names them on each line.
#[test]
fn the_figures_count_every_paid_generated_loophole_and_no_look_alike() {
    let seed = env_or("SEBX_LOOPHOLE_SEED", 39) + 1;
    let (api, pool) = (api(), pool());
    let (solutions, programs) = generate(&api, &pool, seed, 4, 2);
    let by_origin: BTreeMap<usize, &Genuine> = solutions.iter().map(|g| (g.origin, g)).collect();
    let lines: Vec<Value> = programs
        .iter()
        .map(|p| p.rollout(by_origin[&p.origin]))
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write_jsonl(dir.path(), "generated.jsonl", &lines);
    let doc = api_doc();
    let graded = run_sebx(
        &[
            "grade".as_ref(),
            "--scorer".as_ref(),
            "both".as_ref(),
            "--behaviour".as_ref(),
            "-q".as_ref(),
            "--no-cache".as_ref(),
            file.as_os_str(),
            "--api-doc".as_ref(),
            doc.as_os_str(),
        ],
        &dir.path().join("graded.jsonl"),
    );
    let (mut loopholes, mut look_alikes) = (Vec::new(), Vec::new());
    let mut unnamed = Vec::new();
    for (i, p) in programs.iter().enumerate() {
        let r = &graded[&(i as u64 + 1)];
        let paid = r["verdict"] == "right" && r["reward"] == 1;
        if !paid {
            continue;
        }
        let found: Vec<&str> = r["behaviour"]["found"]
            .as_array()
            .map(|f| f.iter().filter_map(|f| f["kind"].as_str()).collect())
            .unwrap_or_default();
        assert!(
            r["behaviour"]["untraced"].is_null(),
            "a paid rollout is traced: {}",
            r["behaviour"]
        );
        if p.axis.is_loophole() {
            if found.is_empty() {
                unnamed.push(format!("{} {}", p.axis.name(), p.form));
            }
            loopholes.push(lines[i].clone());
        } else {
            assert!(
                found.is_empty(),
                "look-alike {} accused by grading's behaviour questions: {found:?}\n{}",
                p.form,
                p.code
            );
            look_alikes.push(lines[i].clone());
        }
    }
    assert!(loopholes.len() >= 10, "{} paid loopholes", loopholes.len());
    assert!(
        look_alikes.len() >= 10,
        "{} kept look-alikes",
        look_alikes.len()
    );
    println!(
        "{} paid loopholes, {} named by grading's behaviour alone (not: {unnamed:?})",
        loopholes.len(),
        loopholes.len() - unnamed.len()
    );
    let loops = write_jsonl(dir.path(), "loopholes.jsonl", &loopholes);
    let looks = write_jsonl(dir.path(), "look_alikes.jsonl", &look_alikes);
    let counted = |v: &Value, run: usize| v["runs"][run]["loopholes"]["rollouts"].as_u64();
    let with = stats_json(&[&loops, &looks], &[]);
    assert_eq!(
        counted(&with, 0),
        Some(loopholes.len() as u64),
        "every paid loophole is counted: {}",
        with["runs"][0]["loopholes"]
    );
    assert_eq!(
        counted(&with, 1),
        Some(0),
        "no look-alike is counted: {}",
        with["runs"][1]["loopholes"]
    );
    let without = stats_json(&[&loops, &looks], &["--no-behaviour"]);
    assert!(
        counted(&without, 0) < counted(&with, 0),
        "the look of the code alone misses some: {} of {}",
        without["runs"][0]["loopholes"],
        loopholes.len()
    );
}
