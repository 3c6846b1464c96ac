//! Workspace-level test helpers (corpus location).
