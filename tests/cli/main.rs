//! The command line and sessions: exit codes, inputs, labels, sidecars, stats, the suite's own checks (layers, isolation).
//!
//! One test binary for these files (issue 40: a binary per file linked the whole library
//! ~100 times). Every file stays at tests/NAME.rs as the module NAME, run one with
//! `cargo test --test cli NAME::`; the shared helpers are compiled once here and used
//! through `crate::`. Tests share this process: none may change its environment or
//! current folder. Snapshots are named `cli__NAME__SNAPSHOT.snap` in tests/snapshots.

#[path = "../common/demo.rs"]
mod demo_files;
#[path = "../common/isolated.rs"]
mod isolated;
#[path = "../common/live.rs"]
mod live;
#[path = "../common/prop.rs"]
mod prop;
#[path = "../common/shared_data.rs"]
mod shared_data;
#[path = "../tui_common/mod.rs"]
mod tui_common;

#[path = "../cli_context.rs"]
mod cli_context;
#[path = "../exit_codes.rs"]
mod exit_codes;
#[path = "../inputs_matrix.rs"]
mod inputs_matrix;
#[path = "../labels_agreement.rs"]
mod labels_agreement;
#[path = "../labels_cli.rs"]
mod labels_cli;
#[path = "../labels_demo.rs"]
mod labels_demo;
#[path = "../labels_parity.rs"]
mod labels_parity;
#[path = "../labels_store.rs"]
mod labels_store;
#[path = "../labels_taxonomy.rs"]
mod labels_taxonomy;
#[path = "../layers.rs"]
mod layers;
#[path = "../prop_load.rs"]
mod prop_load;
#[path = "../readme_keys.rs"]
mod readme_keys;
#[path = "../reopen_sets.rs"]
mod reopen_sets;
#[path = "../session_agreement.rs"]
mod session_agreement;
#[path = "../sidecar_places.rs"]
mod sidecar_places;
#[path = "../stats_cli.rs"]
mod stats_cli;
#[path = "../stats_map_parity.rs"]
mod stats_map_parity;
#[path = "../test_isolation.rs"]
mod test_isolation;
