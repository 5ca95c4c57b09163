//! The real binary in tmux with a config that rebinds keys (issue 41): the footer, the help
//! and a screen's footer show the new keys, the old keys do nothing, the new ones work.

use crate::tmux_support;
use tmux_support::{
    loaded, sebx_command, send, session_name, start_session, status_line, tmux_missing,
    wait_closed, wait_for,
};

const CONFIG: &str = r#"
[keys]
"x" = "quit"
"q" = "none"
"Z" = "help"
"?" = "none"
"W" = "stats_screen"
"S" = "none"

[keys.stats]
"q" = "none"
"esc" = "none"
"Y" = "close_screen"
"#;

#[test]
fn rebound_keys_show_and_work_and_the_old_ones_do_nothing() {
    if tmux_missing() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(home.path().join("sebx")).expect("config dir");
    std::fs::write(home.path().join("sebx/config.toml"), CONFIG).expect("config");
    let name = session_name("sebx-rebind-test");
    let cmd = sebx_command(home.path(), "");
    let _session = start_session(&name, (120, 30), Some(home.path()), &cmd);
    let screen = wait_for(&name, "the demo loaded", |s| {
        s.contains("1 Response") && loaded(s)
    });
    let footer = status_line(&screen);
    assert!(
        footer.contains("x quit") && footer.contains("Z help"),
        "{footer}"
    );
    assert!(
        !footer.contains("q quit") && !footer.contains("? help"),
        "{footer}"
    );
    // q no longer quits: the help key typed after it still opens the help.
    send(&name, &["q", "Z"]);
    let help = wait_for(&name, "the help", |s| s.contains("Help — keys"));
    let row = help
        .lines()
        .find(|l| l.contains("this help"))
        .expect("the help's own row");
    assert!(row.contains('Z') && !row.contains('?'), "{row}");
    send(&name, &["Escape"]);
    wait_for(&name, "the help closed", |s| !s.contains("Help — keys"));
    // S no longer opens the Stats screen; W does, and its footer says Y closes it.
    send(&name, &["S", "W"]);
    let stats = wait_for(&name, "the stats screen", |s| {
        s.contains("internalization map")
    });
    let footer = status_line(&stats);
    assert!(footer.contains("Y close"), "{footer}");
    assert!(
        !footer.contains("q close") && !footer.contains("esc"),
        "{footer}"
    );
    // q does nothing there: the sort key typed after it still sorts the map. (Esc, unbound
    // too, is checked in tui_rebind_all: in a terminal an Esc followed at once by a key
    // reads as alt and that key.)
    send(&name, &["q", "s"]);
    wait_for(&name, "still on the stats screen, sorted", |s| {
        s.contains("internalization map") && s.contains("most rollouts first")
    });
    // Y closes it, then x quits.
    send(&name, &["Y"]);
    wait_for(&name, "back on the list", |s| {
        !s.contains("internalization map") && s.contains("1 Response")
    });
    send(&name, &["x"]);
    wait_closed(&name, "x quits");
}
