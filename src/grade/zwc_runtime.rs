//! Generating the zwc package from the user's API mapping. (Stub.)
