//! One integration-test binary (faster to build than one per file).

mod alt;
mod apps;
mod aqm;
mod audit;
mod bad_input;
mod bbr;
mod bench_order;
mod choke_tcpe;
mod common;
mod conservation;
mod delay_cc;
mod determinism;
mod errors;
mod events;
mod fuzz_corpus;
mod modern;
mod pcap;
mod reliability;
mod response;
mod rtt_fairness;
mod sack;
mod schemes;
mod snoop;
mod theorem1;
mod westwood;
mod xcp;
