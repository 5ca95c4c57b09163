//! Warm, sandboxed Python workers that run assembled programs. (Stub.)
