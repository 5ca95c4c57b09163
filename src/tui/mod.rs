//! The terminal explorer. (Stub.)
