//! What a request brings, checked before an operation acts on it: bodies (`decode`: read in one
//! pass by `one_pass` when they fit, else checked against their schema by `strict`), JSON Merge
//! Patch (`merge_patch`), query parameters (`params`) and idempotency keys (`idempotency`).

pub mod decode;
pub mod idempotency;
pub mod merge_patch;
pub mod one_pass;
pub mod params;
pub mod strict;
pub mod whole;

#[cfg(test)]
mod agreement;
