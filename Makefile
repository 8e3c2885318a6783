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

# CMAKE_ARGS=-DATTNLAB_REPORTS_ONLY=ON (with its own BUILD): the report tool alone, no CUDA.
CMAKE_ARGS  ?=
# A build counts as configured once CMake has written its build file, not its cache: a failed
# configure leaves a cache, which is removed so that the next run starts afresh.
BUILD_FILE  := $(if $(GENERATOR),build.ninja,Makefile)
$(BUILD)/$(BUILD_FILE):
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCH) $(CMAKE_ARGS) \
	  || { rm -f $(BUILD)/CMakeCache.txt; exit 1; }

configure: $(BUILD)/$(BUILD_FILE)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The README's test command: CPU tests everywhere, GPU tests (label gpu) where a GPU exists,
# reported as skipped elsewhere (attnlab-gpu-gate skips each in milliseconds); then how many
# were skipped and why, in one line, rather than only ctest's list of them.
test: build
	@rc=0; ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) || rc=$$?; \
	if ! why=$$($(BUILD)/bin/attnlab-gpu-gate /bin/true); then \
	  echo "attnlab: $$(ctest --test-dir $(BUILD) -N -L gpu | sed -n 's/^Total Tests: //p') GPU tests (label gpu), $$why"; fi; \
	exit $$rc

test-cpu: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L cpu

test-gpu: build
	ctest --test-dir $(BUILD) --output-on-failure -L gpu

# The targets that run on a GPU (make reproduce but for its dry run) ask the driver for one
# first (scripts/gpu-check: one line, and exit 3 where there is none), before the build, which
# takes minutes in a fresh clone. make itself then exits 2, as for any failed command, after
# "make: *** [...] Error 3".
define gpu_then_build
@scripts/gpu-check
@$(MAKE) --no-print-directory build
endef

# make experiment PHASE=4 [SHAPES="throughput 1x8x1024x128:causal"] [ARGS="--seed 7"]: the
# record, then its report rendered beside it (scripts/experiment), whose path it prints last.
experiment:
	$(gpu_then_build)
	@if [ -z "$(PHASE)" ]; then \
	  echo "attnlab: set PHASE, e.g. make experiment PHASE=4; phases:"; \
	  $(BUILD)/bin/attnlab-phases; exit 2; fi
	@$(BUILD)/bin/attnlab-phases --check '$(PHASE)'
	BUILD=$(BUILD) scripts/experiment '$(PHASE)' $(foreach s,$(SHAPES),--shape $(s)) $(ARGS)

# make profile PHASE=4 [SHAPES=...] [ARGS=...] [NCU_SET=full]: the experiment with every CUPTI
# metric group, then each shape's launch under Nsight Compute (scripts/profile.sh); the
# .ncu-rep files, ncu's values and the CUPTI-ncu difference land in the same run record.
NCU_SET     ?=
.PHONY: profile
profile:
	$(gpu_then_build)
	@if [ -z "$(PHASE)" ]; then \
	  echo "attnlab: set PHASE, e.g. make profile PHASE=4; phases:"; \
	  $(BUILD)/bin/attnlab-phases; exit 2; fi
	@$(BUILD)/bin/attnlab-phases --check '$(PHASE)'
	BUILD=$(BUILD) NCU_SET=$(NCU_SET) scripts/profile.sh $(PHASE) $(foreach s,$(SHAPES),--shape $(s)) $(ARGS)

# make ab A=5 B=cudnn [SHAPES=...] [ARGS="--pairs 600 --blocks 10 --seed 7"]: A and B in one process
# on one GPU, paired and interleaved in independent blocks per shape (attnlab-ab): median of
# per-pair ratios t_B / t_A (A's speed-up over B) with a hierarchical bootstrap interval over
# blocks, then pairs; record under $(RESULTS)/ab/.
# make profile-ab A=5 B=cudnn [SHAPES=...]: each one's launch under Nsight Compute, its cycle
# ratio beside the newest A/B record's of the pair (scripts/profile-ab).
.PHONY: ab profile-ab
ab:
	$(gpu_then_build)
	@if [ -z "$(A)" ] || [ -z "$(B)" ]; then \
	  echo "attnlab: set A and B, e.g. make ab A=5 B=cudnn; phases:"; \
	  $(BUILD)/bin/attnlab-phases; exit 2; fi
	$(BUILD)/bin/attnlab-ab --a '$(A)' --b '$(B)' $(foreach s,$(SHAPES),--shape $(s)) --results-dir $(RESULTS) $(ARGS)

profile-ab:
	$(gpu_then_build)
	@if [ -z "$(A)" ] || [ -z "$(B)" ]; then \
	  echo "attnlab: set A and B, e.g. make profile-ab A=5 B=cudnn; phases:"; \
	  $(BUILD)/bin/attnlab-phases; exit 2; fi
	@$(BUILD)/bin/attnlab-phases --check '$(A)'
	@$(BUILD)/bin/attnlab-phases --check '$(B)'
	BUILD=$(BUILD) scripts/profile-ab '$(A)' '$(B)' $(foreach s,$(SHAPES),--shape $(s)) --results-dir $(RESULTS) $(ARGS)

# make calibrate [ARGS="--launch 132x1x1:512x1x1:1x1x1:157696"]: what this GPU sustains (wgmma,
# ex2, FFMA, DRAM and shared-memory reads) and the launch floors of phases 5 and d4
# (attnlab-calibrate), recorded under $(RESULTS)/calibration/<stamp>-<sha>/calibration.json; the
# run reports' speed-of-light floors read it (copy it to reports/<gpu>/calibration/ to commit).
.PHONY: calibrate report-calibration
calibrate:
	$(gpu_then_build)
	$(BUILD)/bin/attnlab-calibrate --results-dir $(RESULTS) $(ARGS)

# make timeline PHASE=5|d4 [SHAPES=...] [ARGS="--sm 3 --launches 51 --cold"]: a warp-role timeline of
# each shape from the phase's stamped kernels (attnlab-timeline; never the timed launches):
# record and Chrome trace, then the report and picture of one SM that attnlab-report renders from
# the record (scripts/timeline), under $(RESULTS)/timeline/<phase>/. The tensor pipe divides by
# this GPU's newest calibration under $(RESULTS)/calibration/ or reports/<gpu>/calibration/, where
# there is one (else by the architecture's ceiling, which the report flags). A phase
# without stamps is refused by attnlab-timeline, which names the phases that have them.
.PHONY: timeline
timeline:
	$(gpu_then_build)
	@test -n "$(PHASE)" || { echo "attnlab: set PHASE to a phase with timeline stamps, e.g. make timeline PHASE=5"; exit 2; }
	BUILD=$(BUILD) scripts/timeline '$(PHASE)' $(or $(SHAPES),@seed) -- --out $(RESULTS)/timeline $(ARGS)

# make timeline-cost [ARGS="--policies 'global global:8'"]: each stamp policy of the timeline
# (ATTNLAB_TIMELINE_STAMPS, with :k every k-th work item, ATTNLAB_TIMELINE_SAMPLE) built in turn
# and timed against the normal build, at phase 5's and d4's seed shapes and
# 16x16x2048x64:causal (scripts/timeline-cost): one line per record, the records under
# $(RESULTS)/timeline-cost/<policy>-<k>/.
.PHONY: timeline-cost
timeline-cost:
	$(gpu_then_build)
	BUILD=$(BUILD) scripts/timeline-cost --out $(RESULTS)/timeline-cost $(ARGS)

# Reports: run records rendered to markdown and gnuplot figures (attnlab-report; see
# reports/README.md). Only the report tool is built for these, not the CUDA phases; where no
# CUDA Toolkit is found (scripts/find-cuda), it is built alone, host C++ only, in
# build-reports/ (-DATTNLAB_REPORTS_ONLY=ON), as reports/README.md does by hand.
RUN         ?=
A           ?=
B           ?=
RESULTS     ?= results
H100        := reports/h100
# Evaluated once, and only by the targets that use it (the idiom caches the $(shell)).
HAVE_CUDA    = $(eval HAVE_CUDA := $(shell scripts/find-cuda >/dev/null 2>&1 && echo yes))$(HAVE_CUDA)
REPORTS_ONLY = $(if $(findstring ATTNLAB_REPORTS_ONLY,$(CMAKE_ARGS)),yes)
REPORT_BUILD = $(if $(or $(HAVE_CUDA),$(REPORTS_ONLY)),$(BUILD),build-reports)
REPORT       = $(REPORT_BUILD)/bin/attnlab-report

.PHONY: report-tool report compare notebook progression reports-h100

report-tool:
	@$(if $(or $(HAVE_CUDA),$(REPORTS_ONLY)),true,echo "attnlab: no CUDA Toolkit found (scripts/find-cuda): building the report tool alone in build-reports/ (-DATTNLAB_REPORTS_ONLY=ON)")
	@$(MAKE) --no-print-directory configure BUILD=$(REPORT_BUILD) \
	  CMAKE_ARGS="$(CMAKE_ARGS) $(if $(or $(HAVE_CUDA),$(REPORTS_ONLY)),,-DATTNLAB_REPORTS_ONLY=ON)"
	cmake --build $(REPORT_BUILD) -j $(JOBS) --target attnlab-report

# make report RUN=results/4/<run>: <run>/report.md and <run>/plots/
report: report-tool
	@if [ -z "$(RUN)" ]; then echo "attnlab: set RUN, e.g. make report RUN=results/4/<run>"; exit 2; fi
	$(REPORT) run $(RUN)

# make report-calibration RUN=results/calibration/<run>: <run>/report.md of a calibration record
report-calibration: report-tool
	@if [ -z "$(RUN)" ]; then echo "attnlab: set RUN, e.g. make report-calibration RUN=results/calibration/<run>"; exit 2; fi
	$(REPORT) calibration $(RUN)
# make compare A=<run dir> B=<run dir>: B against A, SAME / FASTER / SLOWER per shape
compare: report-tool
	@if [ -z "$(A)" ] || [ -z "$(B)" ]; then echo "attnlab: set A and B, e.g. make compare A=results/1/<run> B=results/4/<run>"; exit 2; fi
	$(REPORT) compare $(A) $(B)

# make notebook [RESULTS=results]: $(RESULTS)/NOTEBOOK.md and $(RESULTS)/index.jsonl
notebook: report-tool
	$(REPORT) notebook $(RESULTS)

# make progression [RESULTS=results]: $(RESULTS)/progression/report.md and plots
progression: report-tool
	$(REPORT) progression $(RESULTS) $(RESULTS)/progression

# make reports: every committed board re-rendered from its records (reports/<board>/, kept by
# scripts/evidence: current records only, gzip-compressed; superseded ones named in
# reports/<board>/archive.jsonl with the commit that holds them).
.PHONY: reports reports-h200
reports: reports-h100 reports-h200 reports-sweeps

# Every published-figures file: an A/B report of an FP8 pair shows the FP8 ones beside its TFLOPS.
PUBLISHED   := $(foreach f,$(sort $(wildcard reports/published/*.json)),--published $(f))

# Everything under reports/h100/ from the committed records in reports/h100/records/.
# Phase records are <records>/<phase>/<run>/; paired A/B records <records>/ab/<A>-vs-<B>/<run>/.
H100_AB     := $(sort $(dir $(wildcard $(H100)/records/ab/*/*/run.json $(H100)/records/ab/*/*/run.json.gz)))
H100_CAL    := $(sort $(dir $(wildcard $(H100)/calibration/*/calibration.json $(H100)/calibration/*/calibration.json.gz)))
reports-h100: report-tool
	$(if $(H100_CAL),$(REPORT) calibration $(H100_CAL))
	$(REPORT) run $(filter-out $(H100)/records/ab/%,$(wildcard $(H100)/records/*/*/))
	$(if $(H100_AB),$(REPORT) ab $(H100_AB) $(PUBLISHED))
	$(REPORT) notebook $(H100)/records --out $(H100)
	$(REPORT) progression $(H100)/records $(H100)/progression --published reports/published/fa3_h100_sxm.json
	$(REPORT) readme-table $(H100)/records README.md --progression $(H100)/progression
	$(foreach d,$(wildcard $(H100)/timeline/*/*/),$(REPORT) timeline $(d) &&) true
	$(MAKE) --no-print-directory board-spread PHASE=cudnn

# Everything under reports/h200/: the paired A/B records of the device sessions lent an H200,
# each rendered beside its record, and per pair every measurement of each shape across its
# records (records/ab/<A>-vs-<B>/report.md: the runs of one commit on one GPU combined); the
# warp-role timelines (timeline/<phase>/<run>/).
H200        := reports/h200
H200_PAIRS  := $(sort $(dir $(wildcard $(H200)/records/ab/*/*/run.json.gz)))
H200_CAL    := $(sort $(dir $(wildcard $(H200)/calibration/*/calibration.json $(H200)/calibration/*/calibration.json.gz)))
H200_RUNS   := $(filter-out $(H200)/records/ab/%,$(wildcard $(H200)/records/*/*/))
reports-h200: report-tool
	$(if $(H200_CAL),$(REPORT) calibration $(H200_CAL))
	$(if $(H200_RUNS),$(REPORT) run $(H200_RUNS))
	$(if $(H200_PAIRS),$(REPORT) ab $(H200_PAIRS) $(PUBLISHED))
	$(foreach p,$(sort $(dir $(patsubst %/,%,$(H200_PAIRS)))),$(REPORT) ab $(filter $(p)%,$(H200_PAIRS)) --across $(p) $(PUBLISHED) &&) true
	$(foreach d,$(wildcard $(H200)/timeline/*/*/),$(REPORT) timeline $(d) &&) true

# make reports-sweeps: every committed multi-GPU sweep, reports/<gpu>-x<N>/ (records/, sweeps/<id>/
# with its manifest, progression/): the progression and each sweep's board spread (a sweep's
# many runs keep their records, not a report each: `make report RUN=...` renders one).
SWEEP_DIRS = $(wildcard reports/*-x*/)
.PHONY: reports-sweeps
reports-sweeps: report-tool
	$(foreach d,$(SWEEP_DIRS),$(REPORT) progression $(d)records $(d)progression && \
	  $(foreach s,$(wildcard $(d)sweeps/*/),$(REPORT) boards $(d)records $(notdir $(patsubst %/,%,$(s))) $(s) &&) true;)

# make board-spread PHASE=cudnn: one phase's spread across the boards of the H100 folder, each
# board's newest run record and its newest side of an A/B record, into $(H100)/boards/<phase>/.
.PHONY: board-spread
board-spread: report-tool
	@test -n "$(PHASE)" || { echo "make board-spread: name the phase, e.g. PHASE=cudnn" >&2; exit 2; }
	$(REPORT) boards $(H100)/records any $(H100)/boards/$(PHASE) --phase $(PHASE)

# README.md's results table (between its attnlab:results markers) from the committed records:
# every phase and baseline at the seed shapes, each figure from the record the progression takes.
.PHONY: readme-results
readme-results: report-tool
	$(REPORT) readme-table $(H100)/records README.md --progression $(H100)/progression

# make reproduce RUN=<run dir> [DRY_RUN=1] [DEVICE=N] [RESULTS=results]: re-run a recorded run
# (phase or SDPA backend, shapes, seed, regimes, stopping rule, options) with the current
# build, write a new record under $(RESULTS), name every difference in the environment, then
# compare the two (scripts/reproduce --help). DRY_RUN=1 prints the command and runs nothing.
DRY_RUN     ?=
DEVICE      ?=
.PHONY: reproduce
reproduce:
	@if [ -z "$(RUN)" ]; then echo "attnlab: set RUN, e.g. make reproduce RUN=reports/h100/records/5/<run>"; exit 2; fi
	$(if $(DRY_RUN),,$(gpu_then_build))
	scripts/reproduce --build $(BUILD) --results $(RESULTS) $(if $(DEVICE),--device $(DEVICE)) \
	  $(if $(DRY_RUN),--dry-run) $(RUN)

# make sweep [PHASES="1 4"] [SHAPES="spec ..."] [ARGS="..."] [BOARD_PHASES="5 d4 cudnn"]: every phase and the PyTorch SDPA
# baseline over the sweep shapes (scripts/sweep.sh says which and why), then the progression.
PHASES      ?=
RESULTS     ?= results
.PHONY: sweep baseline
sweep:
	$(gpu_then_build)
	BUILD=$(BUILD) RESULTS=$(RESULTS) PHASES="$(PHASES)" SHAPES="$(SHAPES)" ARGS="$(ARGS)" \
	  scripts/sweep.sh

# make sweep-slurm [GRES=gpu:1] [SBATCH_ARGS="--partition=..."] [DRY_RUN=1]: the sweep as a Slurm
# job array, one array task per phase and shape group, and a dependent collect job
# (scripts/sweep_slurm.sh); make sweep-collect SWEEP=results/sweeps/<id>: the collect step by hand.
.PHONY: sweep-slurm sweep-collect
sweep-slurm:
	BUILD=$(BUILD) RESULTS=$(RESULTS) PHASES="$(PHASES)" SHAPES="$(SHAPES)" ARGS="$(ARGS)" \
	  scripts/sweep_slurm.sh $(if $(DRY_RUN),--dry-run)
sweep-collect:
	BUILD=$(BUILD) scripts/sweep_slurm.sh --collect $(SWEEP)

# make baseline [SHAPES="spec ..."] [ARGS="--backends cudnn,flash"]: PyTorch SDPA's records,
# results/sdpa-<backend>/ (experiments/baselines/sdpa_baseline.py; needs python3 with torch).
# The script asks attnlab-sdpa-import, built here first, for its shapes, each output's check and
# the graph regime's stopping rule, and ends by running it on the raw measurements (the record).
baseline:
	@scripts/gpu-check
	@$(MAKE) --no-print-directory configure
	cmake --build $(BUILD) -j $(JOBS) --target attnlab-sdpa-import
	python3 experiments/baselines/sdpa_baseline.py --importer $(BUILD)/bin/attnlab-sdpa-import --results-dir $(RESULTS) $(foreach s,$(SHAPES),--shape $(s)) $(ARGS)

help:
	@echo "attnlab targets:"
	@echo "  make setup [OPTIONAL=\"pkg ...\"|all]  install the Debian packages the build and tests need,"
	@echo "                                  and the optional ones named (docker/packages.txt)"
	@echo "  make                            build (into $(BUILD)/)"
	@echo "  make test                       CPU tests, and GPU tests where a GPU exists"
	@echo "  make experiment PHASE=<id> [SHAPES=\"spec ...\"] [ARGS=\"...\"]"
	@echo "                                  run one phase's experiment: results/<id>/<run>/run.json, report.md"
	@echo "  $(BUILD)/bin/attnlab-phase-<id> --help   every experiment option"
	@echo "  make profile PHASE=<id> [NCU_SET=full]  the experiment, then each shape under ncu;"
	@echo "                                  CUPTI and ncu values side by side in its run.json"
	@echo "  make ab A=<id> B=<id> [SHAPES=...] [ARGS=...]  A and B paired and interleaved in one"
	@echo "                                  process: ratio t_B/t_A with interval, results/ab/<A>-vs-<B>/"
	@echo "  make profile-ab A=<id> B=<id> [SHAPES=...]  both launches under ncu, cycle ratio beside the lab's"
	@echo "  make calibrate [ARGS=...]       measure this GPU's rates and launch floors (speed of light),"
	@echo "                                  write results/calibration/<stamp>-<sha>/calibration.json"
	@echo "  make timeline PHASE=5|d4 [SHAPES=...] [ARGS=...]  warp-role timeline of the phase's"
	@echo "                                  stamped build: record, trace, PNG, results/timeline/<id>/"
	@echo "  make timeline-cost [ARGS=...]   the timeline's overhead under each stamp policy,"
	@echo "                                  one line per record, results/timeline-cost/<policy>-<k>/"
	@echo "  make report RUN=<run dir>       render <run dir>/report.md and plots"
	@echo "  make report-calibration RUN=<calibration dir>  render a calibration record's report.md"
	@echo "  make compare A=<run> B=<run>    B against A per shape: SAME, FASTER or SLOWER"
	@echo "  make notebook [RESULTS=results] NOTEBOOK.md and index.jsonl of every run"
	@echo "  make progression [RESULTS=results]  every phase compared, each shape from its newest ok record"
	@echo "  make sweep [PHASES=\"...\"] [SHAPES=...] [ARGS=...]  every phase and the SDPA baseline"
	@echo "                                  over S = 512..8192 at D = 64, 128; then the progression"
	@echo "                                  (one worker per GPU: GPUS=\"0 1\" or every visible GPU)"
	@echo "  make sweep-slurm [GRES=gpu:1] [DRY_RUN=1]  the sweep as a Slurm job array + collect job"
	@echo "  make sweep-collect SWEEP=results/sweeps/<id>  a Slurm sweep's manifest and progression"
	@echo "  make baseline [SHAPES=...] [ARGS=...]  PyTorch SDPA (cuDNN, flash, efficient) records"
	@echo "  make reports                    re-render every committed board (reports/<board>/) and the README's table"
	@echo "  make reports-h100               re-render everything under reports/h100/ and the README's table"
	@echo "  make readme-results             README.md's results table from reports/h100/records"
	@echo "  make board-spread PHASE=cudnn   one phase's spread across the H100 folder's boards"
	@echo "  make reproduce RUN=<run dir> [DRY_RUN=1]  re-run a record with this build, compare"
	@echo "  docker/run.sh <target> [VAR=...]  any target in the docker/ image (GPUs, results/ mounted)"
	@if [ -x $(BUILD)/bin/attnlab-phases ]; then echo "phases:"; $(BUILD)/bin/attnlab-phases; \
	 else echo "phases: make builds $(BUILD)/bin/attnlab-phases, which lists them from the registry (their ATTNLAB_PHASE declarations in kernels/phase_*)"; fi

# make setup [OPTIONAL="gnuplot-nox ccache" | OPTIONAL=all]: the required packages, and the
# optional ones named (docker/packages.txt says what each is for).
OPTIONAL    ?=
setup:
	scripts/setup $(if $(OPTIONAL),--with '$(OPTIONAL)')

clean:
	rm -rf $(BUILD)
