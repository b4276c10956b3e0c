//! Closed-form models from the seed papers, as pure functions. Each is tested against the
//! paper's own worked numbers.

pub mod kalampoukas97;
