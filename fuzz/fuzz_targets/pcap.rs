//! `cargo +nightly fuzz run pcap`: see tcplab_core::fuzzing::check_pcap for the property.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| tcplab_core::fuzzing::check_pcap(data));
