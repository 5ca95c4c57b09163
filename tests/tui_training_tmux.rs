//! Drives the real binary in tmux on a training run: open a folder of verl step dumps (a
//! copy of the demo's, with its dataset and API doc) → the rows grade → `T` Training
//! screen → the heat-map cell of np.median at step 3 → `enter` lists its four samples.

use crate::tmux_support;

use std::path::Path;

use tmux_support::{
    capture, demo_file, loaded, send, session_name, start_graded_training, status_line, temp_home,
    tmux_missing, wait_for,
};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn training_screen_drills_into_a_function_step_cell() {
    if tmux_missing() {
        return;
    }
    let (dir, home) = temp_home();
    let run = dir.path().join("training");
    copy_dir(&demo_file("training"), &run);
    let name = session_name("sebx-training-test");
    let _session = start_graded_training(&name, dir.path(), &home, &run);
    let list = wait_for(&name, "the dump loaded and graded", |s| {
        // Rows in flight show `grading` in their verdict column (the status bar's note
        // that grading started stays until a key is pressed).
        let rows: Vec<&str> = s.lines().filter(|l| *l != status_line(s)).collect();
        loaded(s)
            && s.contains("59 rollouts")
            && rows.iter().any(|l| l.contains("✓ right"))
            && !rows
                .iter()
                .any(|l| l.contains("grading") || l.contains("unscored"))
    });
    // The list shows each sample's step and stored score.
    assert!(list.contains("step score"), "{list}");

    send(&name, &["T"]);
    let screen = wait_for(&name, "the Training screen", |s| {
        s.contains("zwc function \\ step") && s.contains("median zwc.tesavi")
    });
    assert!(screen.contains("run training/rollout (1/2)"), "{screen}");
    // Rows by NumPy name: cumsum, linalg.det, mean, median, std; columns steps 1, 2, 3.
    send(&name, &["Down", "Down", "Down", "Right", "Right"]);
    let cell = wait_for(&name, "the median cell at step 3", |s| {
        s.contains("np.median (zwc.tesavi) at step 3: 4 samples, 0 right (0.0%), 3 with reward 1")
    });
    assert!(cell.contains("forgotten"), "{cell}");

    send(&name, &["Enter"]);
    let listed = wait_for(&name, "the cell's samples listed", |s| {
        s.contains("np.median at step 3 (4 samples)") && !s.contains("zwc function \\ step")
    });
    let title = listed.lines().next().unwrap_or("");
    assert!(title.contains("4 of 59 rollouts"), "{listed}");
    send(&name, &["q"]);
    let _ = capture(&name);
}
