# SchemaRouter: the two README commands are `make run` and `make test`.
# Each creates .venv and installs what it needs on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
SR := $(BIN)/sr
STAMP := $(VENV)/.stamp-install

.PHONY: setup run test check lint typecheck golden golden-check bench freeze verify generate schemas llm-setup llm-smoke llm-test clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

## The main job: compile the frozen specs, run the full experiment with the reference agent, print the gate verdict.
run: $(STAMP)
	$(SR) compile
	$(SR) run

## The test command: lint, type-check, the test suite, and the frozen data checks.
test: $(STAMP) check
	$(BIN)/python -m pytest
	$(SR) verify --all --history

check: lint typecheck

lint: $(STAMP)
	$(BIN)/ruff check schemarouter compiler runtime tests
	$(BIN)/ruff format --check schemarouter compiler runtime tests

typecheck: $(STAMP)
	$(BIN)/mypy -p schemarouter -p compiler -p runtime
