//! `cargo +nightly fuzz run sizes_bounded`: see tcplab_core::fuzzing::check_sizes_bounded.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tcplab_core::fuzzing::check_sizes_bounded(data));
