//! The runtime oracle over programs no test was tuned on: seeded mutations
//! (`common/mutate.rs`) of the parity corpus (../shared/data/parity) and of the demo,
//! analyzed statically and then run once each under the tracer (`sebx::grade::trace`) in
//! the grader's Python with the generated zwc. The traced harness runs every test case,
//! each call in its own `try`, so "every time" below means over all the cases. Site by
//! site, no error-level finding may be refuted (its site ran without raising what it
//! claims, in any case), no case may end with an AttributeError or TypeError on a zwc value
//! at a site the tracer does not see, and the crashes on a zwc value (sites that raised
//! every time they ran and ended a case) that are not error-level findings, with the caught
//! failures that have no finding at all, must be none (the bar; a deep run with
//! another seed still finds a few, printed). Sites that ended a case and ran cleanly on another are
//! data-dependent (`mixed`): `possible` is right there, and they are counted apart.
//! Prints what each family found.
//!
//! CI runs 2,400 programs (a couple of minutes); `SEBX_ORACLE_PROGRAMS=20000` is a deep run,
//! `SEBX_ORACLE_SEED` another sample.

use crate::mutate;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use crate::shared_data;
use mutate::{FAMILIES, Generator, Program, Rng};
use sebx::analysis::loopholes::wrapping_constructors;
use sebx::analysis::{FindingKind, Severity};
use sebx::analysis::{analyze_code, extract_last_python_block};
use sebx::grade::engine::Engine;
use sebx::grade::trace::loopholes::settle_loophole;
use sebx::grade::trace::{self, Comparison, Settled, settle::Counts};
use sebx::model::ApiMap;
use sebx::model::finding_kinds::Family;
use sebx::model::rollout::load_rollout_file;

fn programs_wanted() -> usize {
    std::env::var("SEBX_ORACLE_PROGRAMS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(2400)
}

fn seed() -> u64 {
    std::env::var("SEBX_ORACLE_SEED")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(22)
}

/// Seed solutions: (origin, code, cases, selected functions) of every rollout with code.
type SeedSolution = (String, String, Vec<sebx::model::TestCase>, Vec<String>);

/// Lines of the parity corpus whose official run was an endless loop (no use tracing them).
fn endless(data: &Path) -> std::collections::HashSet<usize> {
    let text =
        std::fs::read_to_string(data.join("parity/official_verdicts.jsonl")).expect("verdicts");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["variant"] == "infinite_loop")
        .filter_map(|v| v["line"].as_u64().map(|n| n as usize))
        .collect()
}

fn seeds(path: &Path, name: &str, skip: &std::collections::HashSet<usize>) -> Vec<SeedSolution> {
    let loaded = load_rollout_file(path).expect("rollouts load");
    loaded
        .rollouts
        .iter()
        .filter(|r| !skip.contains(&r.line))
        .filter_map(|r| {
            let block = extract_last_python_block(&r.response)?;
            (!r.test_cases.is_empty()).then(|| {
                (
                    format!("{name}:{}", r.line),
                    block.code,
                    r.test_cases.to_vec(),
                    r.selected_functions.to_vec(),
                )
            })
        })
        .collect()
}

/// `n` programs from `seeds`, the families taken in turn.
fn generate(
    api: &ApiMap,
    seeds: &[SeedSolution],
    n: usize,
    rng: &mut Rng,
) -> Vec<(Program, Vec<String>)> {
    let generator = Generator::new(api);
    let mut out = Vec::new();
    let mut attempts = 0;
    while out.len() < n && attempts < n * 20 {
        attempts += 1;
        let family = FAMILIES[attempts % FAMILIES.len()];
        let (origin, code, cases, selected) = rng.pick(seeds);
        if let Some(p) = generator.mutate(rng, family, code, cases, origin) {
            out.push((p, selected.clone()));
        }
    }
    out
}

#[derive(Default)]
struct FamilyFigures {
    programs: usize,
    traced: usize,
    errors: Counts,
    possible: Counts,
    missed: usize,
    crashes: usize,
    mixed: usize,
    refuted: usize,
    unattributed: usize,
    /// Sure loophole findings (the generated programs are mutations of genuine answers: a
    /// run refutes any that is a false accusation), and how many a run confirmed.
    loopholes: usize,
    loopholes_confirmed: usize,
}

/// Runs `programs` under the tracer on `engine` (two sessions) and compares each.
fn check(
    engine: &Engine,
    api: &ApiMap,
    programs: &[(Program, Vec<String>)],
    figures: &mut BTreeMap<&'static str, FamilyFigures>,
    problems: &mut Vec<String>,
    gaps: &mut Vec<String>,
) {
    let analyses: Vec<_> = programs
        .iter()
        .map(|(p, selected)| {
            let sel = (!selected.is_empty()).then_some(selected.as_slice());
            analyze_code(&p.code, api, sel, Some(&p.cases), 1)
        })
        .collect();
    let traced: Vec<String> = programs
        .iter()
        .zip(&analyses)
        .map(|((p, _), a)| trace::traced_program(&p.code, &a.entry, &p.cases))
        .collect();
    let outputs: Vec<(String, bool)> = engine
        .pool()
        .run_all(&traced, trace::TRACE_TIMEOUT, 2)
        .into_iter()
        .map(|r| match r {
            Ok(o) => (o.stdout, o.timed_out),
            Err(_) => (String::new(), false),
        })
        .collect();
    assert_eq!(outputs.len(), programs.len());
    for (((p, _), a), (stdout, timed_out)) in programs.iter().zip(&analyses).zip(&outputs) {
        let t = trace::trace_of_output(&p.code, stdout, *timed_out);
        let f = figures.entry(p.family).or_default();
        f.programs += 1;
        if !t.complete {
            if std::env::var_os("SEBX_ORACLE_DEBUG").is_some() {
                eprintln!(
                    "untraced [{} from {}] timed out {timed_out}: {:?}",
                    p.family,
                    p.origin,
                    &stdout[..stdout.len().min(300)]
                );
            }
            continue;
        }
        f.traced += 1;
        let c: Comparison = trace::compare(&a.findings, &t);
        f.errors.merge(&c.errors);
        f.possible.merge(&c.possible);
        f.refuted += c.refuted_errors.len();
        f.missed += c.missed.len();
        f.crashes += c.crashes;
        f.mixed += c.mixed;
        f.unattributed += usize::from(c.unattributed_crash.is_some());
        let tag = format!("[{} from {}]", p.family, p.origin);
        for (finding, why) in &c.refuted_errors {
            problems.push(format!(
                "{tag} refuted error `{}` at {}:{}: {why}\n{}",
                finding.name, finding.line, finding.col, p.code
            ));
        }
        for m in &c.missed {
            // A crash the analysis did not call certain: a recall gap, counted below.
            gaps.push(format!(
                "{tag} missed {} `{}` at {}:{} ({}; {:?})\n{}",
                if m.escaped { "crash" } else { "caught failure" },
                m.site.name,
                m.site.name_line,
                m.site.name_col,
                if m.possible_only {
                    "only possible"
                } else {
                    "no finding"
                },
                m.site.fails.first(),
                p.code
            ));
        }
        if let Some(u) = &c.unattributed_crash {
            problems.push(format!(
                "{tag} crash no traced site raised: {u}\n{}",
                p.code
            ));
        }
        // Precision of the loophole family: a sure finding the run refutes accuses a
        // genuine answer (`hollow_zwc` takes the counterfactual run).
        let sure: Vec<_> = a
            .findings
            .iter()
            .filter(|f| f.kind.family() == Family::Loophole && f.severity != Severity::Possible)
            .collect();
        if sure.is_empty() {
            continue;
        }
        let keep = wrapping_constructors(api, None);
        let counterfactual = sure
            .iter()
            .any(|f| f.kind == FindingKind::HollowZwc)
            .then(|| {
                let program = trace::traced_program_with(&p.code, &a.entry, &p.cases, Some(&keep));
                trace::run_traced(engine, &p.code, &program).expect("counterfactual run")
            });
        for finding in sure {
            f.loopholes += 1;
            let (settled, _) = settle_loophole(finding, &t, counterfactual.as_ref(), &keep);
            match settled {
                Settled::Confirmed => f.loopholes_confirmed += 1,
                Settled::Refuted(why) => problems.push(format!(
                    "{tag} refuted loophole {} `{}` at line {}: {why}\n{}",
                    finding.kind.as_str(),
                    finding.name,
                    finding.line,
                    p.code
                )),
                _ => {}
            }
        }
    }
}

static PARITY_ENGINE: OnceLock<Engine> = OnceLock::new();
static DEMO_ENGINE: OnceLock<Engine> = OnceLock::new();

#[test]
fn generated_programs_agree_with_the_tracer() {
    let data = shared_data::shared_data();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/demo");
    let parity_api = ApiMap::load(&data.join("se-bench/api_doc.jsonl")).expect("api doc");
    let demo_api = ApiMap::load(&demo.join("api_doc.jsonl")).expect("demo api doc");
    let parity_engine = PARITY_ENGINE
        .get_or_init(|| Engine::start(&parity_api, 2).unwrap_or_else(|e| panic!("{e:#}")));
    let demo_engine =
        DEMO_ENGINE.get_or_init(|| Engine::start(&demo_api, 2).unwrap_or_else(|e| panic!("{e:#}")));

    let n = programs_wanted();
    let mut rng = Rng::new(seed());
    let skip = endless(&data);
    assert_eq!(skip.len(), 127, "the corpus's infinite_loop variants");
    let parity_seeds = seeds(&data.join("parity/rollouts.jsonl"), "parity", &skip);
    let none = Default::default();
    let mut demo_seeds = seeds(&demo.join("rollouts.jsonl"), "demo", &none);
    demo_seeds.extend(seeds(&demo.join("rollouts_run2.jsonl"), "demo2", &none));
    // The demo is small: a sixth of the programs.
    let demo_programs = generate(&demo_api, &demo_seeds, n / 6, &mut rng);
    let parity_programs = generate(
        &parity_api,
        &parity_seeds,
        n - demo_programs.len(),
        &mut rng,
    );

    let mut figures = BTreeMap::new();
    let mut problems = Vec::new();
    let mut gaps = Vec::new();
    let started = std::time::Instant::now();
    check(
        parity_engine,
        &parity_api,
        &parity_programs,
        &mut figures,
        &mut problems,
        &mut gaps,
    );
    check(
        demo_engine,
        &demo_api,
        &demo_programs,
        &mut figures,
        &mut problems,
        &mut gaps,
    );

    let mut total = FamilyFigures::default();
    eprintln!(
        "{:<11} {:>8} {:>7}  {:>23}  {:>23}  {:>6} {:>6} {:>7}",
        "family",
        "programs",
        "traced",
        "errors conf/ref/unrch",
        "possible conf/ref/unrch",
        "missed",
        "mixed",
        "unattr"
    );
    for (family, f) in &figures {
        eprintln!(
            "{:<11} {:>8} {:>7}  {:>7} {:>7} {:>7}  {:>7} {:>7} {:>7}  {:>6} {:>6} {:>7}",
            family,
            f.programs,
            f.traced,
            f.errors.confirmed,
            f.errors.refuted,
            f.errors.not_reached,
            f.possible.confirmed,
            f.possible.refuted,
            f.possible.not_reached,
            f.missed,
            f.mixed,
            f.unattributed
        );
        total.programs += f.programs;
        total.traced += f.traced;
        total.errors.merge(&f.errors);
        total.possible.merge(&f.possible);
        total.missed += f.missed;
        total.crashes += f.crashes;
        total.mixed += f.mixed;
        total.unattributed += f.unattributed;
        total.loopholes += f.loopholes;
        total.loopholes_confirmed += f.loopholes_confirmed;
    }
    eprintln!(
        "sure loophole findings on generated programs: {} ({} confirmed by a run, none refuted)",
        total.loopholes, total.loopholes_confirmed
    );
    eprintln!(
        "all: {} programs, {} traced, errors {} confirmed / {} refuted / {} not reached, possible {} / {} / {}, {} missed, {} mixed, {} unattributed, in {:.1?}",
        total.programs,
        total.traced,
        total.errors.confirmed,
        total.errors.refuted,
        total.errors.not_reached,
        total.possible.confirmed,
        total.possible.refuted,
        total.possible.not_reached,
        total.missed,
        total.mixed,
        total.unattributed,
        started.elapsed()
    );
    if let Some(path) = std::env::var_os("SEBX_ORACLE_REPORT") {
        let all: Vec<&String> = problems.iter().chain(&gaps).collect();
        let text: Vec<&str> = all.iter().map(|s| s.as_str()).collect();
        std::fs::write(path, text.join("\n---\n")).expect("report written");
    }
    if !problems.is_empty() {
        let shown: Vec<_> = problems.iter().take(40).collect();
        panic!(
            "{} disagreements with the tracer (first {}):\n{}",
            problems.len(),
            shown.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n---\n")
        );
    }
    // The oracle really ran: enough programs, nearly all traced, every family present,
    // and crashes the analysis calls certain seen as such.
    assert!(total.programs >= n.min(2000), "{} programs", total.programs);
    assert!(
        total.traced * 100 >= total.programs * 95,
        "{} of {} traced",
        total.traced,
        total.programs
    );
    assert_eq!(figures.len(), FAMILIES.len());
    assert!(
        total.errors.confirmed >= total.programs / 10,
        "{} confirmed",
        total.errors.confirmed
    );
    assert!(total.possible.refuted > 0 && total.possible.confirmed > 0);
    // Recall: the crashes error-level findings caught.
    for g in gaps.iter().take(30) {
        eprintln!("gap: {g}\n---");
    }
    eprintln!(
        "{} crashes on zwc values; {} gaps (crashes not error-level findings, caught failures without one); {} mixed (data-dependent sites, not gaps)",
        total.crashes,
        gaps.len(),
        total.mixed
    );
    assert!(
        total.crashes >= total.programs / 10,
        "{} crashes",
        total.crashes
    );
    // The bar: none missed. Deep runs with other seeds still find a few (the
    // closing note of issue 22 lists their kinds); they fail here and print them.
    assert!(
        gaps.is_empty(),
        "{} of {} crashes on zwc values are not error-level findings (first ones printed above)",
        gaps.len(),
        total.crashes
    );
}
