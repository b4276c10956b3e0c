# The two commands of README.md:
#   make reproduce   – set up everything, reproduce every experiment of seed 000 (figures + report);
#                      PAPER=ho2011 for another paper, `make reproduce-all` for every paper
#   make test        – set up everything, run every test (cargo + pytest)
# Plus: make bench (speed figures), make schema (JSON Schema for editors).

PY        ?= python3
comma     := ,
VENV      := .venv
VPY       := $(VENV)/bin/python
STAMP     := $(VENV)/.deps-stamp
BUILT     := $(VENV)/.built-stamp
RUST_SRC  := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml
PAPER     ?= kalampoukas97
OUT       ?= out/$(PAPER)
PAPERS    := $(notdir $(patsubst %/reproduce.toml,%,$(wildcard scenarios/*/reproduce.toml)))

FUZZ_SECONDS ?= 60
# Stop a target after this many executions as well (-1: only the time limit).
FUZZ_RUNS ?= -1
FUZZ_TARGETS ?= scenario_toml scenario_json units pcap run_bounded sizes_bounded

.PHONY: golden-update fuzz fuzz-merge reproduce reproduce-all test test-rust test-python bench bench-ab bench-drift bench-mg1ps bench-ns3 bench-ns3-fct bench-ns3-vegas bench-ns3-algo bench-sweep kernel-compare crosscheck-ns2 schema develop clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "maturin>=1.5,<2" "pytest>=8" "hypothesis>=6" polars pyarrow matplotlib "typer>=0.12,<0.29" rich tomli-w pandas distributed nbformat nbclient ipykernel "scapy>=2.5" ruff
	touch $@

# Python sources are installed editable: only Rust changes need a rebuild.
$(BUILT): $(STAMP) $(RUST_SRC)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release -q
	touch $@

develop: $(BUILT)

reproduce: $(BUILT)
	$(VENV)/bin/tcplab reproduce $(PAPER) --out $(OUT)

# Every paper with a manifest under scenarios/ (out/PAPER each).
reproduce-all: $(BUILT)
	set -e; for p in $(PAPERS); do $(VENV)/bin/tcplab reproduce $$p --out out/$$p; done

test: $(BUILT) test-rust test-python

# Gates first: formatting and clippy (every warning an error) over the whole workspace.
test-rust:
	cargo fmt --all --check
	cargo clippy --release --workspace --all-targets -q -- -D warnings
	cargo test --release -p tcplab-core

# The golden test's fingerprints (tests/golden/): rewrite them after a change that moves
# results on purpose, and say what moved and why in CHANGELOG.md. ONLY=06_red_ecn picks one.
golden-update: $(BUILT)
	$(VPY) tests/golden/golden.py --update $(foreach s,$(subst $(comma), ,$(ONLY)),--only $(s))

test-python: $(BUILT)
	$(VENV)/bin/ruff check python tests bench examples
	$(VENV)/bin/pytest -q

# Speed figures (docs/performance.md): scenarios a-e, each in a child process, plus the
# peak-RSS check. `make bench QUICK=1` (or TCPLAB_BENCH_QUICK=1) runs shorter simulations.
bench:
	cargo build --release -q -p tcplab-core --bin tcplab-bench
	./target/release/tcplab-bench $(if $(QUICK),--quick)

# Old against new, alternating in one run (docs/performance.md, "Single-thread speed, side
# by side"): `make bench-ab OLD=5e512fb [SCENARIO="b 20"] [ROUNDS=21]` builds OLD in
# target/ab/ and the working tree, pins every run to one core, fails on unequal fingerprints.
bench-ab:
	$(PY) bench/ab.py $(foreach r,$(or $(OLD),HEAD),--old $(r)) --scenario "$(or $(SCENARIO),b 20)" --rounds $(or $(ROUNDS),21)

# The drift guard (docs/performance.md, "Drift guard"): bench b 20 against the pinned
# reference revision, 11 rounds, so that small costs cannot add up unseen.
BENCH_REF := fb5da9f
bench-drift:
	$(PY) bench/ab.py --old $(BENCH_REF) $(if $(OLD),$(foreach r,$(OLD),--old $(r))) --scenario "b 20" --rounds 11

# Flow completion times against M/G/1 processor sharing (docs/workloads.md): writes its table
# there. About 10 s.
bench-mg1ps: $(BUILT)
	$(VPY) bench/mg1ps.py --write

# tcplab next to ns-3 (PyPI `ns3`, in its own venv under target/) on scenarios a-d: speed per
# packet, goodputs, and the a/b cross-check. Never part of `make test`.
NS3_VENV := target/ns3-venv
$(NS3_VENV)/.stamp:
	$(PY) -m venv $(NS3_VENV)
	$(NS3_VENV)/bin/python -m pip install -q ns3
	touch $@

bench-ns3: $(NS3_VENV)/.stamp
	cargo build --release -q -p tcplab-core --bin tcplab-bench
	$(NS3_VENV)/bin/python bench/ns3_compare.py $(if $(QUICK),--quick)

# Flow completion times against ns-3 on the same flow list (docs/workloads.md, "Against ns-3:
# DCTCP on one bottleneck"): DCTCP at 10 Gb/s, web-search sizes at 50 % load, 2 520 flows; ns-3
# runs them three times (ns-3.44's TcpDctcp and two diagnostic variants). Writes its tables
# there. About 6 min. NS3=stock picks ns-3 runs (stock,floor,floor-ack); ALONE=1000,50000 runs
# single flows alone instead (nothing written).
bench-ns3-fct: $(NS3_VENV)/.stamp $(BUILT)
	$(NS3_VENV)/bin/python bench/ns3_fct.py $(if $(NS3),--ns3 $(NS3)) $(if $(ALONE),--alone $(ALONE),--write)

# tcplab's Vegas against ns-3's TcpVegas on 1, 4 and 16 flows (docs/performance.md).
bench-ns3-vegas: $(NS3_VENV)/.stamp
	cargo build --release -q -p tcplab-core --bin tcplab-bench
	$(NS3_VENV)/bin/python bench/ns3_compare.py --vegas $(if $(QUICK),--quick)

# Today's TCP and AQMs (CUBIC, SACK, DCTCP, CoDel, FQ-CoDel, PIE), Westwood+/Scalable,
# HighSpeed TCP and RED against ns-3 (docs/performance.md, "Today's TCP and AQMs against ns-3"). CASES=a,b,... picks.
# PRR_RFC=1: ns-3 with an RFC 6937 PRR instead of ns-3.44's TcpPrrRecovery (points 5 and 9 there).
bench-ns3-algo: $(NS3_VENV)/.stamp
	cargo build --release -q -p tcplab-core --bin tcplab-bench
	$(NS3_VENV)/bin/python bench/ns3_compare.py --algo $(or $(CASES),default) $(if $(QUICK),--quick) $(if $(PRR_RFC),--prr-rfc)

# Serial vs parallel: N independent runs on every core (binary pool and tcplab.sweep).
bench-sweep: $(BUILT)
	cargo build --release -q -p tcplab-core --bin tcplab-bench
	$(VPY) bench/sweep_speedup.py

# tcplab next to this machine's Linux kernel (docs/crosscheck.md): namespaces, veth, htb +
# pfifo, real TCP connections sampled with `ss -tin`, side-by-side tables and cwnd plots in
# out/kernel/. Needs root (prints SKIPPED and exits 0 otherwise); about 5 min, each run <= 60 s.
# QUICK=1: 8-s runs; ONLY=cubic2,twoway picks presets; REPEAT=3 runs the kernel side 3 times.
# Never part of `make test`.
kernel-compare: $(BUILT)
	$(VPY) bench/kernel_compare.py $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) $(if $(REPEAT),--repeat $(REPEAT))

# tcplab next to ns-2.35 (Debian's `ns2`, installed here when missing and root; else one line
# saying how) on bench/ns2/*.toml, seeds 1..3 (docs/crosscheck.md, "ns-2.35").
# ONLY=newreno2,xcp4 picks scenarios; SEEDS=N; QUICK=1: one seed, at most 30 simulated s;
# MATCH=1: tcplab as written and ns-2 configured to match it (default: profile = "ns2").
# JSON=FILE saves every number. RANDOM=N: N generated scenarios (GEN_SEED=S, default 1) with
# ns-2 at its own defaults and statistical verdicts, 5 seeds each. Never part of `make test`.
crosscheck-ns2: $(BUILT)
	$(VPY) bench/ns2_compare.py $(if $(RANDOM),--random $(RANDOM) --gen-seed $(or $(GEN_SEED),1)) $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) $(if $(SEEDS),--seeds $(SEEDS)) $(if $(MATCH),--match) $(if $(JSON),--json $(JSON))

schema: $(BUILT)
	$(VENV)/bin/tcplab schema > docs/scenario.schema.json

clean:
	rm -rf $(VENV) target out

# Fuzz each target for FUZZ_SECONDS or FUZZ_RUNS executions, whichever comes first, one
# after another at the lowest priority (nightly + `cargo install cargo-fuzz`; docs/reliability.md).
# New inputs go to fuzz/corpus-work/TARGET (not checked in), crashes to fuzz/artifacts/TARGET;
# `make fuzz-merge` replaces the checked-in fuzz/corpus/TARGET by an edge-minimal subset of it
# and corpus-work/TARGET (-use_counters=0 keeps it to a few hundred files),
# which `make test` replays (tests/it/fuzz_corpus.rs).
fuzz:
	set -e; cd fuzz; for t in $(FUZZ_TARGETS); do mkdir -p corpus-work/$$t; \
	  nice -n 19 cargo +nightly fuzz run -O $$t corpus-work/$$t corpus/$$t -- \
	    -max_total_time=$(FUZZ_SECONDS) -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=10 -print_final_stats=1; done

fuzz-merge:
	set -e; cd fuzz; for t in $(FUZZ_TARGETS); do rm -rf corpus-min/$$t; mkdir -p corpus-min/$$t corpus-work/$$t; \
	  cargo +nightly fuzz run -O $$t corpus-min/$$t corpus/$$t corpus-work/$$t -- \
	    -merge=1 -use_counters=0 -max_len=4096; \
	  rm -rf corpus/$$t; mv corpus-min/$$t corpus/$$t; done
