//! The real binary in tmux on a run of a few thousand rollouts: a word that occurs in
//! exactly k rollouts gives exactly k (while nearly every rollout holds its letters in
//! order, which a fuzzy match would take) and the first is selected; `:` goes to a file
//! line; `]` lands on the same task in the next run; a second `/` for the word finds it again;
//! ctrl-c quits from the step-range box.

use crate::tmux_support;
use std::path::Path;

use serde_json::json;
use tmux_support::{
    loaded, quoted, sebx_command, send, send_text, session_name, start_session, status_line,
    tmux_missing, wait_closed, wait_for,
};

const ROLLOUTS: usize = 3000;
const TASKS: usize = 50;
const WORD: &str = "quetzal";

/// Whether rollout `i` (0-based) of the big run mentions [`WORD`].
fn has_word(i: usize) -> bool {
    i % 431 == 17
}

fn line(task: usize, response: &str, verdict: &str) -> String {
    json!({
        "query": format!("Task {task}: return the mean of `x` for batch {task}."),
        "response": response,
        "test_cases": [{"input": "x=[1, 2]", "output": "1.5"}],
        "right_exe_result": "1.5",
        "selected_functions": ["mean"],
        // Stored verdicts: nothing is graded while the test runs.
        "verdict": verdict,
    })
    .to_string()
}

fn write_runs(dir: &Path) {
    let mut big = Vec::with_capacity(ROLLOUTS);
    for i in 0..ROLLOUTS {
        // "quiet zeal" holds q-u-e-t-z-a-l in order: a fuzzy search would match it.
        let word = if has_word(i) { WORD } else { "quiet zeal" };
        let response = format!(
            "Answer {i}, written with {word}.\n```python\nimport zwc\n\ndef solve(x):\n    return zwc.kocito(x)\n```\n"
        );
        big.push(line(i % TASKS, &response, "right"));
    }
    std::fs::write(dir.join("run1.jsonl"), big.join("\n") + "\n").expect("write run1");
    let small: Vec<String> = (0..TASKS)
        .map(|t| {
            line(
                t,
                "```python\nimport zwc\n\ndef solve(x):\n    return zwc.mean(x)\n```\n",
                "exe_error",
            )
        })
        .collect();
    std::fs::write(dir.join("run2.jsonl"), small.join("\n") + "\n").expect("write run2");
}

fn title(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
}

/// The list row marked selected (`▶`).
fn selected_row(screen: &str) -> Option<&str> {
    screen.lines().find(|l| l.starts_with("│▶"))
}

#[test]
fn search_counts_truly_goto_line_and_next_run() {
    if tmux_missing() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let dir = tempfile::tempdir().expect("tempdir");
    write_runs(dir.path());
    let k = (0..ROLLOUTS).filter(|i| has_word(*i)).count();
    let first_line = (0..ROLLOUTS).find(|i| has_word(*i)).expect("some") + 1;
    let total = ROLLOUTS + TASKS;
    let name = session_name("sebx-search-test");
    let cmd = sebx_command(
        home.path(),
        &format!(
            "{} {}",
            quoted(&dir.path().join("run1.jsonl")),
            quoted(&dir.path().join("run2.jsonl"))
        ),
    );
    let session = start_session(&name, (140, 40), Some(home.path()), &cmd);
    wait_for(&name, "both runs loaded", |s| {
        loaded(s) && title(s).contains(&format!("{total} rollouts"))
    });

    send(&name, &["/"]);
    send_text(&name, WORD);
    let found = wait_for(&name, "the search's answer", |s| {
        let status = status_line(s);
        status.contains(WORD)
            && !status.contains('…')
            && title(s).contains(&format!(" of {total} rollouts"))
    });
    assert!(
        title(&found).contains(&format!("{k} of {total} rollouts")),
        "exactly the {k} rollouts with the word: {}",
        title(&found)
    );
    assert!(
        status_line(&found).contains("any case"),
        "the prompt says how it matches: {}",
        status_line(&found)
    );
    assert!(
        title(&found).contains(&format!("row 1/{k} line {first_line} ")),
        "the first match is selected: {}",
        title(&found)
    );
    assert!(selected_row(&found).is_some(), "{found}");
    send(&name, &["Enter"]);

    // A second `/` for the same word finds the same rollouts (the last pattern is offered
    // selected: typing replaces it instead of appending to it).
    send(&name, &["/"]);
    send_text(&name, WORD);
    send(&name, &["Enter"]);
    let again = wait_for(&name, "the second search, for the word alone", |s| {
        let status = status_line(s);
        status.contains("next match")
            && status.contains(&format!(" {WORD} "))
            && !status.contains(&format!("{WORD}{WORD}"))
            && title(s).contains(&format!(" of {total} rollouts"))
    });
    assert!(
        title(&again).contains(&format!("{k} of {total} rollouts")),
        "{}",
        title(&again)
    );

    // Clear the search (the selection stays), then go to a line of the big run.
    send(&name, &["Escape"]);
    wait_for(&name, "the search cleared", |s| {
        !title(s).contains(&format!(" of {total} rollouts"))
            && title(s).contains(&format!("line {first_line} "))
    });
    send(&name, &[":"]);
    send_text(&name, "1234");
    wait_for(&name, "the go-to prompt", |s| {
        status_line(s).contains("1234")
    });
    send(&name, &["Enter"]);
    let at = wait_for(&name, "line 1234 selected", |s| {
        title(s).contains(&format!("row 1234/{total} line 1234 "))
    });
    assert!(
        selected_row(&at).is_some_and(|r| r.contains("run1")),
        "{at}"
    );

    // `]`: the same task (1233 % 50 = 33) in the next run, on its line 34.
    send(&name, &["]"]);
    let next = wait_for(&name, "the task in run2", |s| {
        title(s).contains(" line 34 ") && status_line(s).contains("same task in run run2")
    });
    assert!(
        selected_row(&next).is_some_and(|r| r.contains("run2")),
        "{next}"
    );

    // Ctrl-C quits from a text box too (the step range's used to swallow it).
    send(&name, &["#"]);
    send_text(&name, "1");
    wait_for(&name, "the step-range box", |s| {
        status_line(s).contains("steps: 7")
    });
    send(&name, &["C-c"]);
    wait_closed(&name, "ctrl-c in the step-range box did not quit");
    drop(session);
}
