//! Drives the real binary in tmux on a training run that is still being written (issue 30):
//! the demo's run with steps 1 and 2 written is opened; step 3 is then written in two goes,
//! the first ending in the middle of a line. The list takes in the whole lines, leaves the
//! half line alone (no bad line), takes it once finished, grades the new samples, and the
//! Training screen shows step 3's cell with the figures of the demo's own step 3.

use crate::tmux_support;

use tmux_support::{
    capture, demo_file, loaded, send, session_name, start_graded_training, status_line, temp_home,
    tmux_missing, wait_for,
};

/// Every row graded: no row still shows `grading` or `unscored`.
fn all_graded(screen: &str) -> bool {
    let status = status_line(screen);
    screen
        .lines()
        .filter(|l| *l != status)
        .all(|l| !l.contains("grading") && !l.contains("unscored"))
}

/// The demo's training run with its steps 1 and 2 written, in `dir/rollout`.
fn demo_steps_1_and_2(dir: &std::path::Path) -> std::path::PathBuf {
    let run = dir.join("rollout");
    std::fs::create_dir_all(&run).expect("mkdir");
    for step in [1, 2] {
        let file = format!("{step}.jsonl");
        std::fs::copy(
            demo_file(&format!("training/rollout/{file}")),
            run.join(&file),
        )
        .expect("copy");
    }
    run
}

#[test]
fn a_step_written_while_open_is_listed_graded_and_on_the_training_screen() {
    if tmux_missing() {
        return;
    }
    let (dir, home) = temp_home();
    let run = demo_steps_1_and_2(dir.path());
    let name = session_name("sebx-follow-test");
    let _session = start_graded_training(&name, dir.path(), &home, &run);
    wait_for(&name, "steps 1 and 2 loaded and graded", |s| {
        loaded(s) && s.contains("33 rollouts") && all_graded(s)
    });
    let screen = wait_for(&name, "the run followed", |s| {
        status_line(s).contains("following")
    });
    assert!(!screen.contains("bad lines"), "{screen}");

    // Step 3 (16 samples) written in two goes, the first cut inside line 9.
    let step3 = std::fs::read_to_string(demo_file("training/rollout/3.jsonl")).expect("step 3");
    let cut = step3
        .match_indices('\n')
        .nth(7)
        .map(|(i, _)| i + 1 + 40)
        .expect("16 lines");
    let path = run.join("3.jsonl");
    std::fs::write(&path, &step3[..cut]).expect("write");
    let screen = wait_for(&name, "the 8 whole lines listed", |s| {
        s.contains("41 rollouts")
    });
    assert!(
        !screen.contains("bad lines"),
        "the half line is no bad line:\n{screen}"
    );
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        f.write_all(&step3.as_bytes()[cut..]).expect("append");
    }
    let screen = wait_for(&name, "step 3 listed and graded", |s| {
        s.contains("49 rollouts") && all_graded(s)
    });
    assert!(!screen.contains("bad lines"), "{screen}");

    // The Training screen: rows by NumPy name (cumsum, linalg.det, mean, median, std),
    // columns steps 1, 2, 3; step 3's median cell has the demo's figures.
    send(&name, &["T"]);
    wait_for(&name, "the Training screen", |s| {
        s.contains("zwc function \\ step") && s.contains("median zwc.tesavi")
    });
    send(&name, &["Down", "Down", "Down", "Right", "Right"]);
    wait_for(&name, "the median cell at step 3", |s| {
        s.contains("np.median (zwc.tesavi) at step 3: 4 samples, 0 right (0.0%), 3 with reward 1")
    });
    send(&name, &["q", "q"]);
    let _ = capture(&name);
}

#[test]
fn a_step_rewritten_while_open_replaces_its_rows_and_says_so() {
    if tmux_missing() {
        return;
    }
    let (dir, home) = temp_home();
    let run = demo_steps_1_and_2(dir.path());
    let name = session_name("sebx-rewrite-test");
    let _session = start_graded_training(&name, dir.path(), &home, &run);
    wait_for(&name, "steps 1 and 2 loaded, graded and followed", |s| {
        loaded(s)
            && s.contains("33 rollouts")
            && all_graded(s)
            && status_line(s).contains("following")
    });
    // The run resumed from step 1 writes step 2 again: the same samples in another order.
    let step2 = std::fs::read_to_string(demo_file("training/rollout/2.jsonl")).expect("step 2");
    let mut lines: Vec<&str> = step2.lines().collect();
    lines.reverse();
    std::fs::write(run.join("2.jsonl"), lines.join("\n") + "\n").expect("rewrite");
    let said = format!(
        "step 2 rewritten (resumed run): {} samples re-read",
        lines.len()
    );
    let screen = wait_for(&name, "the rewrite said", |s| s.contains(&said));
    assert!(
        screen.contains("33 rollouts"),
        "replaced, not added:\n{screen}"
    );
    let screen = wait_for(&name, "the re-read rows graded", all_graded);
    assert!(screen.contains("33 rollouts"), "{screen}");
    assert!(!screen.contains("bad lines"), "{screen}");
    send(&name, &["q"]);
    let _ = capture(&name);
}
