# wirelab: `make tour` installs everything and runs the tour; `make test` installs everything and
# runs the tests. Both create .venv with the CPU build of torch first (an unpinned torch pulls a
# multi-GB CUDA build), then install the package with its extras.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH ?= torch==2.13.0
EXTRAS ?= fly,ray,celegans,parquet,dev
comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: tour test check lint typecheck bench sysdeps install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

install: sysdeps $(STAMP)

sysdeps:
	@bash scripts/system-deps.sh

tour: install
	$(BIN)/wirelab tour $(TOUR_ARGS)

test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint:
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck:
	$(BIN)/mypy

check: lint typecheck test

# Peer libraries for benchmarks/. torchlogix is installed without its declared dependencies:
# it never imports torchvision or torch-geometric, and pulling torchvision replaces the CPU torch.
bench: install
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m pip install -q --no-deps torchlogix==0.2.2

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
