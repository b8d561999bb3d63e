//! What a request brings, checked before an operation acts on it: strict bodies
//! (`strict`), JSON Merge Patch (`merge_patch`) and idempotency keys (`idempotency`).

pub mod idempotency;
pub mod merge_patch;
pub mod strict;
