//! The graph as data: nodes (parameters, bindings, calls, returns) with the kind of value
//! each holds, and edges "computed from". What the walk produces and every view reads.

use serde::{Deserialize, Serialize};

/// What a value is at run time, as far as the code tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// A `zwc.ZWCArray` (refuses NumPy methods).
    ZwcArray,
    /// A plain NumPy ndarray (from `zwc.rfx`, or `.T`).
    NumpyArray,
    /// A plain Python value (list, string, dict…).
    Python,
    /// A single number (Python or NumPy scalar; zwc leaves NumPy scalars unwrapped).
    Scalar,
    /// A tuple or list of ZWCArrays (`zwc.meshgrid`, `zwc.unique(..., return_counts=True)`).
    ZwcTuple,
    /// A tuple of NumPy arrays (`zwc.rfx.eig`…).
    NumpyTuple,
    Unknown,
}

impl ValueKind {
    /// Short label for text output.
    pub fn label(self) -> &'static str {
        match self {
            ValueKind::ZwcArray => "ZWCArray",
            ValueKind::NumpyArray => "ndarray",
            ValueKind::Python => "python",
            ValueKind::Scalar => "number",
            ValueKind::ZwcTuple => "(ZWCArr)",
            ValueKind::NumpyTuple => "(ndarr)",
            ValueKind::Unknown => "?",
        }
    }
}

/// What a graph node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Param,
    /// An assignment target (plain, augmented, unpacking, loop or comprehension target).
    Assign,
    /// A call of a zwc function (real or not).
    ZwcCall,
    /// A call of a helper function defined in the code.
    HelperCall,
    /// Any other call.
    Call,
    Return,
}

impl NodeKind {
    pub fn label(self) -> &'static str {
        match self {
            NodeKind::Param => "param",
            NodeKind::Assign => "assign",
            NodeKind::ZwcCall => "zwc call",
            NodeKind::HelperCall => "helper",
            NodeKind::Call => "call",
            NodeKind::Return => "return",
        }
    }
}

/// One node of the dependency graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphNode {
    pub id: usize,
    /// The function (subgraph) it belongs to.
    pub function: String,
    pub kind: NodeKind,
    /// `x`, `zwc.kocito ‹mean›`, `len()`, `return`…
    pub label: String,
    /// 1-based line and column in the extracted code.
    pub line: usize,
    pub col: usize,
    /// 1-based line in the response.
    pub response_line: usize,
    pub value: ValueKind,
    /// A zwc call whose value flows into a `return` of its function.
    pub reaches_return: bool,
    /// A zwc call whose result nothing uses.
    pub unused: bool,
    /// The entry's only library call: the static check's verdict hinges on it.
    pub hinge: bool,
    /// A zwc call: the zwc name it calls, qualified (`zwc.kocito`, also through an alias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zwc: Option<String>,
    /// A call of a real zwc function: its NumPy meaning (`mean`, `linalg.inv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numpy: Option<String>,
    #[serde(skip)]
    pub offset: usize,
}

/// "`to` is computed from `from`".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphEdge {
    pub from: usize,
    pub to: usize,
    /// A helper's return flowing into the call of that helper.
    pub link: bool,
}

/// One function's subgraph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionInfo {
    pub name: String,
    pub params: Vec<String>,
    /// 1-based line of the `def` in the extracted code.
    pub line: usize,
    pub is_entry: bool,
    #[serde(skip)]
    pub offset: usize,
}

/// The dependency graph of a solution.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepGraph {
    pub functions: Vec<FunctionInfo>,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
}
