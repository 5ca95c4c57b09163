//! The Stats and Compare screens show what `sebx stats` and `sebx compare` print, on the
//! same files, with the explorer opened the way `sebx FILES...` opens it
//! (`tui::explore::open_default`) and grading what no source knows. The screens' figures
//! come from the session's reports: their JSON must equal the commands' JSON, and the
//! drawn lines (accuracy with its interval, pass@k at `sebx stats`' default k, the official
//! RL reward with its disagreements, McNemar) must be the commands' figures. A run with
//! three samples of a task makes the default k 1 and 3 (a screen with k of its own shows
//! 2); `--label-seed 7` and `--seed 7` make the seed matter.

use crate::tui_common;

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

use sebx::grade::runs::{fmt_p, interval, pass_value, pct};
use sebx::session::CacheFlags;
use sebx::tui::Action;
use sebx::tui::explore::{ExploreArgs, open_default};
use sebx::tui::inline::{drain_inline, load_inline};
use tui_common::{
    API_DOC, CODE_INV_TYPO, CODE_MEAN_BAD, CODE_MEAN_OK, CODE_SPREAD_OK, Q_INV, Q_MEAN, Q_SPREAD,
    draw, reports_a_with_rewards, rollout_line, run_a, screen,
};

const SEED: u64 = 7;

struct Fixture {
    dir: tempfile::TempDir,
    files: Vec<PathBuf>,
}

/// Run A with its rewards (scored file), run B unscored with three samples of one task.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str| dir.path().join(n);
    let said = |how: &str, code: &str| format!("{how}\n\n```python\n{code}```\n");
    let run_b = [
        rollout_line(Q_MEAN, &said("My solution:", CODE_MEAN_OK), None),
        rollout_line(Q_MEAN, &said("Try this:", CODE_MEAN_BAD), None),
        rollout_line(Q_MEAN, &said("Here it is:", CODE_MEAN_OK), None),
        rollout_line(Q_INV, &said("My solution:", CODE_INV_TYPO), None),
        rollout_line(Q_SPREAD, &said("My solution:", CODE_SPREAD_OK), None),
    ]
    .join("\n")
        + "\n";
    std::fs::write(p("run_a.jsonl"), run_a()).expect("run a");
    std::fs::write(p("run_b.jsonl"), run_b).expect("run b");
    std::fs::write(p("run_a.scored.jsonl"), reports_a_with_rewards()).expect("scored");
    std::fs::write(p("api_doc.jsonl"), API_DOC).expect("api doc");
    let files = [
        "run_a.jsonl",
        "run_b.jsonl",
        "run_a.scored.jsonl",
        "api_doc.jsonl",
    ]
    .map(p)
    .to_vec();
    Fixture { dir, files }
}

fn sebx(f: &Fixture) -> Command {
    let mut c = Command::cargo_bin("sebx").expect("binary");
    c.env_remove("SEBX_API_DOC")
        .env("SEBX_SCORE_CACHE", f.dir.path().join("cache"))
        .env("SEBX_DATA_DIR", f.dir.path().join("data"))
        .env("SEBX_ANNOTATOR", "tester");
    c
}

fn json(cmd: &mut Command) -> Value {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

#[test]
fn the_stats_and_compare_screens_show_what_sebx_stats_and_compare_print() {
    let f = fixture();
    let args = ExploreArgs {
        paths: f.files.clone(),
        cache: CacheFlags {
            no_cache: false,
            cache_dir: Some(f.dir.path().join("cache")),
        },
        label_seed: Some(SEED),
        ..ExploreArgs::default()
    };
    let (mut session, backend) = open_default(&args).expect("opens");
    let backend = backend.expect("the grader's Python runtime (sebx runtime install)");
    load_inline(&mut session.app, &session.sources);
    drain_inline(&mut session.app, Some(backend.as_ref()));
    let app = &mut session.app;
    app.update(&Action::StatsScreen);
    drain_inline(app, None);
    let r = app.stats.result.clone().expect("figures computed");
    assert_eq!(r.ungraded, 0, "every row graded");

    // The command, after the explorer: it reads the verdicts the explorer graded.
    let stats = json(
        sebx(&f)
            .args([
                "stats",
                "--format",
                "json",
                "-q",
                "--seed",
                &SEED.to_string(),
            ])
            .args(&f.files),
    );
    let report = serde_json::to_value(&r.report).expect("report serializes");
    let cli_runs = stats["runs"].as_array().expect("runs");
    assert_eq!(cli_runs.len(), 2, "{stats}");
    for field in ["runs", "functions", "wrong_names", "labels"] {
        assert_eq!(report[field], stats[field], "the screen's {field}");
    }
    // `sebx stats`' default k: 1 and the largest sample count (run B's three).
    assert_eq!(
        cli_runs[1]["pass_at_k"]
            .as_object()
            .expect("pass@k")
            .keys()
            .collect::<Vec<_>>(),
        ["1", "3"]
    );

    let text = screen(&draw(app, 200, 60));
    for run in cli_runs {
        let name = run["name"].as_str().expect("name");
        let rollouts = run["rollouts"].as_u64().expect("rollouts");
        let ci = run["accuracy_ci95"]
            .as_array()
            .map(|c| interval((c[0].as_f64().expect("low"), c[1].as_f64().expect("high"))))
            .unwrap_or_default();
        let pass = |k: &str| run["pass_at_k"][k].as_f64();
        let reward = &run["reward"];
        let rewarded = reward["rewarded"].as_u64().expect("rewarded");
        // Never a mean over a subset: `–` with how many are unknown, else the mean.
        let reward_text = match reward["reward_mean"].as_f64() {
            _ if rewarded == 0 => String::new(),
            mean => {
                let of = match mean {
                    Some(mean) => format!("{mean:.3}"),
                    None => format!("– (unknown for {} of {rollouts})", reward["reward_unknown"]),
                };
                let rv = &reward["reward_vs_verdict"];
                let differ = rv["reward_1_not_right"].as_u64().expect("1, not right")
                    + rv["reward_0_right"].as_u64().expect("0, right");
                let differ = if differ > 0 {
                    format!(" · {differ} reward ≠ verdict")
                } else {
                    String::new()
                };
                format!(" · RL reward {of}{differ}")
            }
        };
        let want = format!(
            "{rollouts} rollouts · {} tasks · acc {} {ci} (95% CI, bootstrap over tasks) · pass@1 {}{reward_text}",
            run["tasks"],
            pct(run["accuracy"].as_f64().expect("accuracy")),
            pass_value(pass("1")),
        );
        assert!(
            text.contains(&want),
            "{name}: `{want}` not on the Stats screen:\n{text}"
        );
        // The pass@k line: every k `sebx stats` has a value for, and no other.
        let ks: Vec<String> = run["pass_at_k"]
            .as_object()
            .expect("pass@k")
            .iter()
            .filter_map(|(k, v)| v.as_f64().map(|v| format!("{k} {}", pass_value(Some(v)))))
            .collect();
        let want = format!("pass@k {}  tasks by accuracy", ks.join(" · "));
        assert!(
            text.contains(&want),
            "{name}: `{want}` not on the Stats screen:\n{text}"
        );
    }
    assert!(
        text.contains(" reward ≠ verdict"),
        "run A's rewards disagree with two verdicts:\n{text}"
    );

    // Compare: run A against run B, the same report as `sebx compare`.
    app.update(&Action::Cancel);
    app.update(&Action::CompareScreen);
    drain_inline(app, None);
    let r = app.stats.result.clone().expect("figures computed");
    let compare = serde_json::to_value(r.compare.as_ref().expect("two runs")).expect("json");
    let cli = json(
        sebx(&f)
            .args([
                "compare",
                "--format",
                "json",
                "-q",
                "--seed",
                &SEED.to_string(),
            ])
            .args(&f.files),
    );
    for field in [
        "a",
        "b",
        "pairs",
        "matrix",
        "mcnemar",
        "task_test",
        "tasks",
        "functions",
        "reward_a",
        "reward_b",
    ] {
        assert_eq!(compare[field], cli[field], "the Compare screen's {field}");
    }
    let m = &cli["mcnemar"];
    let want = format!(
        "McNemar exact: A right & B not {}, A not & B right {}, p = {}",
        m["a_right_b_wrong"],
        m["a_wrong_b_right"],
        fmt_p(m["p_value"].as_f64().expect("p"))
    );
    let text = screen(&draw(app, 200, 60));
    assert!(
        text.contains(&want),
        "`{want}` not on the Compare screen:\n{text}"
    );
}
