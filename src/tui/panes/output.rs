//! The Output pane: stdout, stderr and the traceback, with each traceback line of the
//! program mapped back to the extracted code (or to the test case the harness was running).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{PaneContent, field};
use crate::session::resolve::VerdictSource;
use crate::tui::action::{Action, Scope};
use crate::tui::component::DrawCx;
use crate::tui::entry::{Entry, Score};
use crate::tui::state::DetailView;

/// Where a line of the assembled program comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramLine {
    /// A line of the extracted code (1-based).
    Code(usize),
    /// The call of test case `k` (0-based) in the harness.
    Case(usize),
    /// Other harness lines.
    Harness,
}

/// Maps a 1-based line of the assembled program (code + harness, GRADER.md step 3).
pub fn map_program_line(code: &str, line: usize, cases: usize) -> ProgramLine {
    // The harness starts right after the code, with no newline added.
    let harness_start = code.matches('\n').count() + 1;
    let shared = !code.is_empty() && !code.ends_with('\n');
    if line < harness_start || (line == harness_start && shared) {
        return ProgramLine::Code(line);
    }
    let first_call = harness_start + 4;
    if line >= first_call && line < first_call + cases {
        return ProgramLine::Case(line - first_call);
    }
    ProgramLine::Harness
}

/// The line number in a traceback's `File "...", line N, in f` line.
fn traceback_line(text: &str) -> Option<usize> {
    let t = text.trim_start();
    if !t.starts_with("File \"") {
        return None;
    }
    let after = &t[t.find("\", line ")? + 8..];
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The Output pane of `entry` (from its grade report).
pub fn render(d: &DetailView, cx: &DrawCx<'_>, entry: &Entry) -> PaneContent {
    let theme = cx.theme;
    let mut lines = Vec::new();
    let score = cx.list.selected.and_then(|i| cx.corpus.scores.get(i));
    let Some(report) = score.and_then(Score::report) else {
        // A verdict the file gave (stored in the line, or a correct-trajectories file's).
        let stored = entry.rollout.stored_score.as_ref().filter(|_| {
            score
                .and_then(Score::source)
                .is_some_and(|s| matches!(s, VerdictSource::Stored | VerdictSource::Correct))
        });
        let why = match (score, stored) {
            (_, Some(s)) if d.paper => {
                format!("score stored in the file ({} = {})", s.field, s.raw)
            }
            (_, Some(s)) => format!(
                "score stored in the file ({} = {}){}",
                s.field,
                s.raw,
                cx.keys
                    .key_in(Scope::Main, Action::Regrade)
                    .map_or(String::new(), |k| format!(
                        "; press {k} to regrade and see the output"
                    ))
            ),
            (Some(Score::Grading { .. }), _) => "grading…".to_string(),
            (Some(Score::Failed { why, .. }), _) => format!("grading failed: {why}"),
            _ => "not graded".to_string(),
        };
        lines.push(Line::styled(why, theme.dim));
        return PaneContent::scrolling(lines, true);
    };
    let Some(exec) = &report.execution else {
        lines.push(Line::styled(
            format!("not run: {}", report.decided_by),
            theme.dim,
        ));
        return PaneContent::scrolling(lines, true);
    };
    let mut facts = vec![format!("{:.0} ms", exec.elapsed_ms)];
    if let Some(c) = exec.exit_code {
        facts.push(format!("exit code {c}"));
    }
    if exec.timed_out {
        facts.push("timed out".to_string());
    }
    if let Some(c) = &exec.contained {
        facts.push(format!("stopped by the sandbox: {c}"));
    }
    lines.push(Line::styled(facts.join(" · "), theme.dim));
    lines.push(Line::raw(""));
    lines.push(Line::styled("stdout", theme.heading));
    if exec.stdout.is_empty() {
        lines.push(Line::styled(
            "(empty: that alone makes the verdict exe_error)",
            theme.verdict_exe_error,
        ));
    }
    for l in exec.stdout.lines() {
        lines.push(Line::raw(l.to_string()));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled("stderr", theme.heading));
    if exec.stderr.is_empty() {
        lines.push(Line::styled("(empty)", theme.dim));
    }
    let code = entry.code();
    let code_lines: Vec<&str> = code.lines().collect();
    let cases = entry.rollout.test_cases.len();
    let mut last_code_line = None;
    // A traceback's `File` line is followed by its source line (and 3.11's `^^^` marks):
    // the mapping goes after those.
    let mut pending_note: Option<String> = None;
    for l in exec.stderr.lines() {
        let continues_frame = l.starts_with("    ");
        if !continues_frame && let Some(note) = pending_note.take() {
            lines.push(Line::styled(note, theme.hint));
        }
        let is_error_line = !l.starts_with(' ') && l.contains("Error");
        lines.push(Line::styled(
            l.to_string(),
            if is_error_line {
                theme.error
            } else {
                Style::default()
            },
        ));
        if let Some(n) = traceback_line(l) {
            pending_note = Some(match map_program_line(code, n, cases) {
                ProgramLine::Code(c) => {
                    last_code_line = Some(c);
                    format!(
                        "    ↳ code line {c}: {}",
                        code_lines.get(c - 1).map_or("", |s| s.trim())
                    )
                }
                ProgramLine::Case(k) => format!("    ↳ test harness, calling case {}", k + 1),
                ProgramLine::Harness => "    ↳ test harness".to_string(),
            });
        }
    }
    if let Some(note) = pending_note {
        lines.push(Line::styled(note, theme.hint));
    }
    if let Some(c) = last_code_line {
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled("The error is raised at code line ", theme.dim),
            Span::styled(c.to_string(), theme.title),
            Span::styled(
                if d.paper {
                    "."
                } else {
                    " (see the Code pane)."
                },
                theme.dim,
            ),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(field(
        "decided by",
        report.decided_by.clone(),
        theme.dim,
        Style::default(),
    ));
    PaneContent::scrolling(lines, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_lines_map_to_code_and_cases() {
        let code = "def f(x):\n    return x\n";
        // line 3: import zwc, 4: if, 5: test_cases, 6: result_list, 7..: calls
        assert_eq!(map_program_line(code, 2, 2), ProgramLine::Code(2));
        assert_eq!(map_program_line(code, 3, 2), ProgramLine::Harness);
        assert_eq!(map_program_line(code, 7, 2), ProgramLine::Case(0));
        assert_eq!(map_program_line(code, 8, 2), ProgramLine::Case(1));
        assert_eq!(map_program_line(code, 9, 2), ProgramLine::Harness);
        // Without a final newline the last code line is shared with `import zwc`.
        assert_eq!(map_program_line("x = 1", 1, 1), ProgramLine::Code(1));
        assert_eq!(map_program_line("x = 1", 5, 1), ProgramLine::Case(0));
        assert_eq!(
            traceback_line("  File \"/tmp/x/main.py\", line 12, in solve"),
            Some(12)
        );
    }
}
