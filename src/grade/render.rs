//! A readable plain-text rendering of a [`GradeReport`], for `sebx rerun` and logs.

use std::fmt::Write as _;

use crate::grade::report::GradeReport;

/// The report as readable text: verdict, why, static check, each case, stdout/stderr.
pub fn report_text(r: &GradeReport) -> String {
    let mut s = String::new();
    let verdict = r.verdict.map(|v| v.as_str()).unwrap_or("not graded");
    let _ = writeln!(
        s,
        "{}:{}  id {}",
        r.source,
        r.line,
        r.id.as_ref().map(|i| i.0.as_str()).unwrap_or("-")
    );
    let _ = writeln!(s, "verdict: {verdict}");
    let _ = writeln!(s, "why:     {}", r.decided_by);
    if let Some(d) = &r.reward_detail {
        let reward = d.reward.map_or("not scored".to_string(), |x| x.to_string());
        let _ = writeln!(s, "reward:  {reward} (official RL reward)");
        let _ = writeln!(s, "why:     {}", d.decided_by);
        if let Some(reason) = &r.reward_reason {
            let _ = writeln!(s, "differs: {reason}");
        }
        if d.inputs_use_np_array {
            let _ = writeln!(
                s,
                "note:    the test inputs use np.array, which the reward runs as given: no response can get reward 1 on this task"
            );
        }
        if let Some(f) = &d.fragile_reason {
            let _ = writeln!(s, "note:    the reward is fragile: {f}");
        }
    }
    for w in &r.warnings {
        let _ = writeln!(s, "note:    {w}");
    }
    let judged = [("verdict", r.judge_eval.as_ref())].into_iter().chain([(
        "reward",
        r.reward_detail.as_ref().and_then(|d| d.judge_eval.as_ref()),
    )]);
    for (scorer, eval) in judged {
        let Some(eval) = eval else { continue };
        for c in &eval.computed {
            let _ = writeln!(
                s,
                "judge:   the official checker ran printed code ({scorer}): {}",
                c.describe()
            );
        }
        for t in &eval.tampered {
            let _ = writeln!(
                s,
                "judge:   the printed code changed the official checker's state ({scorer}): {}",
                t.describe()
            );
        }
        if let Some(why) = &eval.failed {
            let _ = writeln!(s, "judge:   {why} ({scorer})");
        }
    }
    for f in crate::grade::judge_eval::judge_findings(r) {
        let _ = writeln!(s, "flag:    {}: {}", f.kind.as_str(), f.message);
    }
    let _ = writeln!(s);
    if r.extraction.found {
        let _ = writeln!(
            s,
            "code: {} lines from the last of {} ```python block(s); entry function `{}`",
            r.extraction.code.lines().count(),
            r.extraction.blocks_found,
            r.entry
        );
    } else {
        let _ = writeln!(s, "code: none (no ```python block)");
    }
    if let Some(sc) = &r.static_check {
        let mark = |ok: bool| if ok { "ok  " } else { "FAIL" };
        let _ = writeln!(
            s,
            "static check: {}",
            if sc.passed { "passed" } else { "failed" }
        );
        if let Some(e) = &sc.syntax_error {
            let _ = writeln!(
                s,
                "  FAIL syntax error at line {}, col {}: {}",
                e.line, e.col, e.message
            );
        } else {
            let _ = writeln!(
                s,
                "  {} entry function `{}` found",
                mark(sc.entry_found),
                r.entry
            );
            let calls: Vec<&str> = sc.library_calls.iter().map(|c| c.name.as_str()).collect();
            let _ = writeln!(
                s,
                "  {} zwc calls in the entry function: {}",
                mark(!sc.library_calls.is_empty()),
                if calls.is_empty() {
                    "none".to_string()
                } else {
                    calls.join(", ")
                }
            );
            let _ = writeln!(s, "  {} a return with a value", mark(sc.returns_value));
            let _ = writeln!(
                s,
                "  {} meaningful usage (not only zwc.yitaf)",
                mark(sc.meaningful)
            );
        }
        if let Some(e) = &r.static_error {
            let _ = writeln!(s, "  official text: {e}");
        }
    }
    if let Some(np) = &r.numpy {
        for i in &np.imports {
            let _ = writeln!(
                s,
                "numpy: line {}: {}{}",
                i.line,
                i.text,
                if i.dynamic {
                    " (dynamic; not caught officially)"
                } else {
                    ""
                }
            );
        }
    }
    if !r.cases.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "cases:");
        for c in &r.cases {
            let mark = if c.matched { "✓" } else { "✗" };
            let _ = writeln!(s, "  {mark} #{} {}", c.index + 1, c.input);
            if !c.matched || r.verdict.is_some_and(|v| v != crate::model::Verdict::Right) {
                let _ = writeln!(s, "      expected: {}", c.expected);
                match &c.actual {
                    Some(a) => {
                        let _ = writeln!(s, "      actual:   {a}");
                    }
                    None => {
                        let _ = writeln!(s, "      actual:   (nothing printed)");
                    }
                }
                if let Some(m) = c.comparison.as_ref().and_then(|c| c.mismatch.as_ref()) {
                    let at = if m.path.is_empty() {
                        "the whole value".to_string()
                    } else {
                        m.path.clone()
                    };
                    let _ = writeln!(s, "      differs at {at}: {}", m.reason);
                }
            }
        }
    }
    if let Some(e) = &r.execution {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "run: {:.0} ms{}{}",
            e.elapsed_ms,
            if e.timed_out { ", timed out" } else { "" },
            e.contained
                .as_ref()
                .map(|c| format!(", stopped by sandbox: {c}"))
                .unwrap_or_default()
        );
        let _ = writeln!(s, "--- stdout ---");
        let _ = writeln!(s, "{}", e.stdout.trim_end());
        let _ = writeln!(s, "--- stderr ---");
        let _ = writeln!(s, "{}", e.stderr.trim_end());
    }
    if let Some(e) = r.reward_detail.as_ref().and_then(|d| d.execution.as_ref()) {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "the reward's own run (first block, inputs as given): {:.0} ms{}",
            e.elapsed_ms,
            if e.timed_out { ", timed out" } else { "" }
        );
        let _ = writeln!(s, "--- stdout ---");
        let _ = writeln!(s, "{}", e.stdout.trim_end());
        let _ = writeln!(s, "--- stderr ---");
        let _ = writeln!(s, "{}", e.stderr.trim_end());
    }
    s
}
