# attnlab porcelain over CMake. `make help` lists targets and the registered phases.
BUILD       ?= build
BUILD_TYPE  ?= Release
CUDA_ARCH   ?= 90a
PHASE       ?=
SHAPES      ?=
ARGS        ?=
JOBS        ?= $(shell nproc)
GENERATOR   := $(if $(shell command -v ninja 2>/dev/null),-G Ninja,)

.PHONY: all build configure test test-cpu test-gpu experiment help setup clean

all: build

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The README's test command: CPU tests everywhere, GPU tests (label gpu) where a GPU exists,
# reported as skipped elsewhere.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-cpu: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L cpu

test-gpu: build
	ctest --test-dir $(BUILD) --output-on-failure -L gpu

# make experiment PHASE=4 [SHAPES="throughput 1x8x1024x128:causal"] [ARGS="--seed 7"]
experiment: build
	@if [ -z "$(PHASE)" ]; then \
	  echo "attnlab: set PHASE, e.g. make experiment PHASE=4; phases:"; \
	  $(BUILD)/bin/attnlab-phases; exit 2; fi
	@$(BUILD)/bin/attnlab-phases --check '$(PHASE)'
	$(BUILD)/bin/attnlab-phase-$(PHASE) $(foreach s,$(SHAPES),--shape $(s)) $(ARGS)

help: build
	@echo "attnlab targets:"
	@echo "  make setup                      install the Debian packages the build needs"
	@echo "  make                            build (into $(BUILD)/)"
	@echo "  make test                       CPU tests, and GPU tests where a GPU exists"
	@echo "  make experiment PHASE=<id> [SHAPES=\"spec ...\"] [ARGS=\"...\"]"
	@echo "                                  run one phase's experiment, write results/<id>/.../run.json"
	@echo "  $(BUILD)/bin/attnlab-phase-<id> --help   every experiment option"
	@echo "phases:"
	@$(BUILD)/bin/attnlab-phases

setup:
	scripts/setup

clean:
	rm -rf $(BUILD)
