//! Drives the real binary in tmux: open the demo → `S` stats screen → pick a function →
//! `enter` lists its failures (as annotator `ana`, whose demo labels show) → `C` compare screen → a cell's pairs → quit.

use crate::tmux_support;
use tmux_support::{
    loaded, sebx_command, send, session_name, start_session, tmux_missing, wait_for,
};

#[test]
fn stats_screen_drills_into_a_function() {
    if tmux_missing() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let name = session_name("sebx-stats-test");
    let cmd = sebx_command(home.path(), "--annotator ana");
    let _session = start_session(&name, (100, 30), Some(home.path()), &cmd);
    wait_for(&name, "the demo loaded", |s| {
        s.contains("1 Response") && loaded(s)
    });

    send(&name, &["S"]);
    let stats = wait_for(&name, "the stats screen with the map", |s| {
        s.contains("internalization map of rollouts") && s.contains("np.clip")
    });
    // The demo's run 1: 36 rollouts over 13 tasks; np.clip (0 of 3 right) comes first.
    assert!(stats.contains("36 rollouts · 13 tasks"), "{stats}");
    // ana labelled every failure of run 1 (the demo's seeded labels), none of run 2's: the
    // figure over both runs as the list says it, then run 1's, each naming its scope.
    assert!(
        stats.contains("your labels: 24 of 31 failures labelled in 2 runs"),
        "{stats}"
    );
    assert!(
        stats.contains("24 of 24 failures labelled in run rollouts, all of them"),
        "{stats}"
    );
    let first_row = stats
        .lines()
        .find(|l| l.contains('▸') && l.contains("np."))
        .unwrap_or("");
    assert!(
        first_row.contains("np.clip"),
        "lowest accuracy first: {stats}"
    );

    send(&name, &["Enter"]);
    let list = wait_for(&name, "the list of np.clip's failures", |s| {
        s.contains("failures of np.clip") && !s.contains("internalization map")
    });
    // The title counts the rows shown: np.clip's three failures in run 1.
    let title = list.lines().next().unwrap_or("");
    assert!(title.contains("3 of 52"), "{list}");

    send(&name, &["c", "C"]);
    wait_for(&name, "the compare screen", |s| {
        s.contains("A: rollouts   B: rollouts_run2") && s.contains("p = 0.2891")
    });
    // Cursor starts on right→right; enter lists its pairs.
    send(&name, &["Enter"]);
    wait_for(&name, "the right→right pairs", |s| {
        s.contains("4 pairs: right in A, right in B")
    });
    send(&name, &["Escape", "Escape", "q"]);
}
