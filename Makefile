# The two commands of README.md:
#   make reproduce   – set up everything, reproduce every experiment of seed 000 (figures + report)
#   make test        – set up everything, run every test (cargo + pytest)
# Plus: make bench (speed figures), make schema (JSON Schema for editors).

PY        ?= python3
VENV      := .venv
VPY       := $(VENV)/bin/python
STAMP     := $(VENV)/.deps-stamp
BUILT     := $(VENV)/.built-stamp
RUST_SRC  := $(shell find crates -name '*.rs' -o -name Cargo.toml) Cargo.toml pyproject.toml
OUT       ?= out/kalampoukas97

.PHONY: reproduce test test-rust test-python bench schema develop clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "maturin>=1.5,<2" "pytest>=8" "hypothesis>=6" polars pyarrow matplotlib typer rich tomli-w pandas distributed nbformat nbclient ipykernel
	touch $@

# Python sources are installed editable: only Rust changes need a rebuild.
$(BUILT): $(STAMP) $(RUST_SRC)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop --release -q
	touch $@

develop: $(BUILT)

reproduce: $(BUILT)
	$(VENV)/bin/tcplab reproduce kalampoukas97 --out $(OUT)

test: $(BUILT) test-rust test-python

test-rust:
	cargo test --release -p tcplab-core

test-python: $(BUILT)
	$(VENV)/bin/pytest -q

bench:
	cargo run --release -p tcplab-core --bin tcplab-bench

schema: $(BUILT)
	$(VENV)/bin/tcplab schema > docs/scenario.schema.json

clean:
	rm -rf $(VENV) target out
