//! The dependency graph of a solution: which value is computed from which, for the entry
//! function and the helpers next to it, with the kind of value each one is (ZWCArray,
//! NumPy ndarray from `zwc.rfx`, plain Python, number). One walk over the parsed code
//! builds the graph and finds the `array_method` misuses (NumPy methods, attributes and
//! operators on a ZWCArray), since those need the kinds the walk infers.
//!
//! Its parts, each depending only on those listed after it:
//! - `statements`: [`GraphBuilder`], the walk of functions, bindings, returns and control
//!   flow;
//! - `expressions`: the walk of expressions, which adds the nodes calls and bindings make;
//! - `findings`: the misuses the walk reports, and how sure each is (guards, `try`);
//! - `truth`: conditions the kinds decide (`hasattr`/`isinstance` of a sure ZWCArray);
//! - `kinds`: kind inference, rules on kinds and syntax alone, and [`EntryArgs`], the
//!   kinds the test cases pass to the entry function;
//! - `numpy_functions`: what NumPy functions give, by name (reductions, ufuncs, shapes);
//! - `finish`: passes over the walked graph (module-level nodes dropped; zwc calls that
//!   reach a return, or that nothing uses);
//! - `dep_graph`: the graph as data ([`DepGraph`]), what every view reads.

mod dep_graph;
mod expressions;
mod findings;
mod finish;
mod kinds;
mod numpy_functions;
mod statements;
mod truth;

pub use dep_graph::{DepGraph, FunctionInfo, GraphEdge, GraphNode, NodeKind, ValueKind};
pub use kinds::EntryArgs;
pub use statements::GraphBuilder;
