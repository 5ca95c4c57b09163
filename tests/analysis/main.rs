//! Analysis and its oracles: extraction, names, graphs, findings, loopholes, behaviour, the zwc runtime.
//!
//! One test binary for these files (issue 40: a binary per file linked the whole library
//! ~100 times). Every file stays at tests/NAME.rs as the module NAME, run one with
//! `cargo test --test analysis NAME::`; the shared helpers are compiled once here and used
//! through `crate::`. Tests share this process: none may change its environment or
//! current folder. Snapshots are named `analysis__NAME__SNAPSHOT.snap` in tests/snapshots.

#[path = "../common/isolated.rs"]
mod isolated;
#[path = "../common/loophole_gen.rs"]
mod loophole_gen;
#[path = "../common/mutate.rs"]
mod mutate;
#[path = "../common/prop.rs"]
mod prop;
#[path = "../common/shared_data.rs"]
mod shared_data;
#[path = "../tui_common/mod.rs"]
mod tui_common;

#[path = "../analysis_cli.rs"]
mod analysis_cli;
#[path = "../analysis_findings.rs"]
mod analysis_findings;
#[path = "../analysis_graph.rs"]
mod analysis_graph;
#[path = "../analysis_names.rs"]
mod analysis_names;
#[path = "../analysis_oracle.rs"]
mod analysis_oracle;
#[path = "../analysis_oracle_confirm.rs"]
mod analysis_oracle_confirm;
#[path = "../analysis_parity.rs"]
mod analysis_parity;
#[path = "../behaviour.rs"]
mod behaviour;
#[path = "../loophole_generated.rs"]
mod loophole_generated;
#[path = "../loopholes.rs"]
mod loopholes;
#[path = "../prop_analysis.rs"]
mod prop_analysis;
#[path = "../prop_pyvalue.rs"]
mod prop_pyvalue;
#[path = "../verdict_sources.rs"]
mod verdict_sources;
#[path = "../wrong_names_agree.rs"]
mod wrong_names_agree;
#[path = "../zwc_runtime.rs"]
mod zwc_runtime;
