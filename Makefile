# wirelab: `make tour` installs everything and runs the tour; `make test` installs everything and
# runs the tests. Two environments, one set of commands:
#   .venv      (Python 3.11) everything but the fly body: the CPU build of torch first (an unpinned
#              torch pulls a multi-GB CUDA build; the CPU wheel is a Python 3.11 file), then the
#              package with its extras;
#   .venv-fly  (Python 3.12, no torch) NeuroMechFly on flygym 2. `wirelab fly ... --body flygym`
#              typed in .venv runs its experiment there (wirelab.fly.envs), one process per run.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TORCH ?= torch==2.13.0
EXTRAS ?= ml,fly-legacy,ray,celegans,parquet,dev
FLY_VENV ?= .venv-fly
FLY_BIN := $(FLY_VENV)/bin
FLY_EXTRAS ?= fly,ray,dev
comma := ,
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))
DOCS_STAMP := $(VENV)/.installed-docs
FLY_STAMP := $(FLY_VENV)/.installed-$(subst $(comma),-,$(FLY_EXTRAS))

.PHONY: tour test check lint typecheck bench sysdeps install fly-env docs dist-check examples clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

$(FLY_STAMP): pyproject.toml
	@py312=$$(bash scripts/find-python312.sh) || exit 1; \
	  test -x $(FLY_BIN)/python || $$py312 -m venv $(FLY_VENV)
	$(FLY_BIN)/python -m pip install -q --upgrade pip
	$(FLY_BIN)/python -m pip install -q -e ".[$(FLY_EXTRAS)]"
	touch $@

fly-env: $(FLY_STAMP)

# Without a Python 3.12 the fly environment is left out with a note: everything else installs,
# and `--body flygym` runs say in one line what to do.
install: sysdeps $(STAMP)
	@if bash scripts/find-python312.sh >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory fly-env; \
	else \
	  bash scripts/find-python312.sh >/dev/null; \
	  echo "note: the fly environment (flygym 2) is not built; the rest of wirelab is installed"; \
	fi

sysdeps:
	@bash scripts/system-deps.sh

tour: install
	$(BIN)/wirelab tour $(TOUR_ARGS)

# The main suite, then the fly tests again in the fly environment (flygym 2 there).
test: install
	$(BIN)/python -m pytest $(PYTEST_ARGS)
	@if [ -x $(FLY_BIN)/python ]; then \
	  echo "$(FLY_BIN)/python -m pytest tests/fly $(PYTEST_ARGS)"; \
	  $(FLY_BIN)/python -m pytest tests/fly $(PYTEST_ARGS); \
	else \
	  echo "note: no fly environment: the flygym 2 tests were not run"; \
	fi

lint:
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts

typecheck:
	$(BIN)/mypy

check: lint typecheck test

# Peer libraries for benchmarks/. torchlogix is installed without its declared dependencies:
# it never imports torchvision or torch-geometric, and pulling torchvision replaces the CPU torch.
bench: install
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m pip install -q --no-deps torchlogix==0.2.2

# The API reference and user's guide (mkdocs.yml, docs/) into site/, offline; --strict: a broken
# reference or link fails the build.
$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e ".[docs]"
	touch $@

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The sdist and wheel built, twine-checked, installed in a clean venv and run outside the repo.
dist-check: $(STAMP)
	PYTHON=$(BIN)/python TORCH="$(TORCH)" bash scripts/check-wheel.sh

# Each example at its CI size (--small), its files under runs/examples/NAME.
examples: install
	@set -e; for f in examples/[0-9]*.py; do \
	  [ -e "$$f" ] || continue; \
	  name=$$(basename $$f .py); \
	  echo "$(BIN)/python $$f --small --out runs/examples/$$name"; \
	  $(BIN)/python $$f --small --out runs/examples/$$name; \
	done

clean:
	rm -rf $(VENV) $(FLY_VENV) .pytest_cache .mypy_cache .ruff_cache site dist build
