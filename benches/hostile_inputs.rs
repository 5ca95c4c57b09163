//! Analysis and the printed-value comparison on hostile inputs of about 100 KB: deep
//! expression chains, 10,000-part attribute chains, deep brackets, long `elif` chains, a
//! huge flat list. Prints each input's CPU time against the bound (50 ms for a
//! 100 KB program) and fails when one exceeds it. No test asserts a time; this does.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use sebx::analysis::analyze_code;
use sebx::grade::compare::compare_printed;
use sebx::model::{ApiMap, TestCase};

const BOUND: Duration = Duration::from_millis(50);

fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// A body repeated until the program is about `bytes` long.
fn sized(make: impl Fn(usize) -> String, bytes: usize) -> String {
    let mut n = 16;
    while make(n).len() < bytes {
        n *= 2;
    }
    let (mut lo, mut hi) = (n / 2, n);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if make(mid).len() < bytes {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    make(hi)
}

fn main() -> ExitCode {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    let api = match ApiMap::load(&data.join("se-bench/api_doc.jsonl")) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cannot load the API doc: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    let cases = vec![TestCase {
        input: "a=[1, 2]".into(),
        output: "1.5".into(),
    }];
    let wrap = |body: String| format!("import zwc\ndef solve(a):\n    return {body}\n");
    let size = 100 * 1024;
    let programs: Vec<(&str, String)> = vec![
        (
            "`+` chain",
            sized(
                |n| wrap(format!("zwc.kocito({})", vec!["a"; n].join(" + "))),
                size,
            ),
        ),
        (
            "`**` chain",
            sized(|n| wrap(vec!["a"; n].join(" ** ")), size),
        ),
        (
            "unary `-` chain",
            sized(|n| wrap(format!("zwc.kocito({}a)", "-".repeat(n))), size),
        ),
        (
            "attribute chain",
            sized(
                |n| wrap(format!("zwc.{}", vec!["kocito"; n].join("."))),
                size,
            ),
        ),
        (
            "nested calls",
            sized(
                |n| wrap(format!("{}a{}", "zwc.kocito(".repeat(n), ")".repeat(n))),
                size,
            ),
        ),
        (
            "nested lists",
            sized(
                |n| wrap(format!("{}a{}", "[".repeat(n), "]".repeat(n))),
                size,
            ),
        ),
        (
            "subscript chain",
            sized(|n| wrap(format!("a{}", "[0]".repeat(n))), size),
        ),
        (
            "`elif` chain",
            sized(
                |n| {
                    format!(
                        "import zwc\ndef solve(a):\n    if a:\n        pass\n{}    return zwc.kocito(a)\n",
                        "    elif a:\n        pass\n".repeat(n)
                    )
                },
                size,
            ),
        ),
        (
            "many statements",
            sized(
                |n| {
                    format!(
                        "import zwc\ndef solve(a):\n{}    return a\n",
                        "    a = zwc.kocito(a)\n".repeat(n)
                    )
                },
                size,
            ),
        ),
        (
            "many functions",
            sized(
                |n| {
                    format!(
                        "import zwc\n{}",
                        (0..n)
                            .map(|i| format!("def f{i}(a):\n    return zwc.kocito(a)\n"))
                            .collect::<String>()
                    )
                },
                size,
            ),
        ),
        (
            "many helper calls",
            sized(
                |n| {
                    format!(
                        "import zwc\ndef h(a):\n    return zwc.kocito(a)\ndef solve(a):\n{}    return a\n",
                        "    a = h(zwc.kocito(a))\n".repeat(n)
                    )
                },
                size,
            ),
        ),
        (
            "broken `+` chain",
            sized(
                |n| wrap(format!("zwc.kocito({} +)", vec!["a"; n].join(" + "))),
                size,
            ),
        ),
    ];
    let printed: Vec<(&str, String)> = vec![
        ("printed `1+1+…`", sized(|n| vec!["1"; n].join("+"), size)),
        (
            "printed `x.a.a…`",
            sized(|n| format!("x{}", ".a".repeat(n)), size),
        ),
        (
            "printed flat list",
            sized(|n| format!("[{}]", vec!["1.5"; n].join(", ")), size),
        ),
        (
            "printed NumPy matrix",
            sized(|n| format!("[{}]", vec!["[1. 2. 3.]"; n].join("\n ")), size),
        ),
        ("printed `inf` text", sized(|n| "inf".repeat(n), size)),
        (
            "printed `:` text",
            sized(|n| format!("'{}'", ":".repeat(n)), size),
        ),
    ];
    let mut worst = Duration::ZERO;
    let mut over = Vec::new();
    for (name, code) in &programs {
        let t = thread_cpu_time();
        let a = analyze_code(code, &api, None, Some(&cases), 1);
        let took = thread_cpu_time().saturating_sub(t);
        println!(
            "analysis   {name:<22} {:>6} KB  {:>8.2} ms  ({:.2}x the bound; {} findings)",
            code.len() / 1024,
            took.as_secs_f64() * 1e3,
            took.as_secs_f64() / BOUND.as_secs_f64(),
            a.findings.len()
        );
        worst = worst.max(took);
        if took > BOUND {
            over.push(*name);
        }
    }
    for (name, text) in &printed {
        let t = thread_cpu_time();
        let c = compare_printed(text, "[1.5]");
        let took = thread_cpu_time().saturating_sub(t);
        println!(
            "comparison {name:<22} {:>6} KB  {:>8.2} ms  ({:.2}x the bound; matched {})",
            text.len() / 1024,
            took.as_secs_f64() * 1e3,
            took.as_secs_f64() / BOUND.as_secs_f64(),
            c.matched
        );
        worst = worst.max(took);
        if took > BOUND {
            over.push(*name);
        }
    }
    println!(
        "hostile_inputs: worst {:.2} ms against a bound of {} ms",
        worst.as_secs_f64() * 1e3,
        BOUND.as_millis()
    );
    if !over.is_empty() {
        eprintln!("over the bound: {over:?}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
