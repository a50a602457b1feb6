# The two commands of the README:
#   make run    install what is missing, build, start the server on the embedded default config
#   make test   install what is missing, build, run every test (unit, integration, fault), then
#               build with AddressSanitizer and UndefinedBehaviorSanitizer and run them all again,
#               then run each libFuzzer target for a bounded time
PRESET ?= release
BUILD := build/$(PRESET)
DATA_DIR ?= var/data

.PHONY: all deps build build-sanitizers build-fuzz run test test-sanitizers test-fuzz unit bench bench-cluster bench-console package clean

all: build

deps:
	@packaging/install-deps.sh
	@packaging/install-tools.sh

build: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake --preset $(PRESET)
	@cmake --build --preset $(PRESET)

run: build
	$(BUILD)/bin/eventsvc serve --data-dir $(DATA_DIR) --bootstrap-key

test: build
	ctest --preset $(PRESET)
	@$(MAKE) --no-print-directory test-sanitizers
	@$(MAKE) --no-print-directory test-fuzz

build-sanitizers: deps
	@test -f build/asan/CMakeCache.txt || cmake --preset asan
	@cmake --build --preset asan

test-sanitizers: build-sanitizers
	ctest --preset asan

build-fuzz: deps
	@test -f build/fuzz/CMakeCache.txt || cmake --preset fuzz
	@cmake --build --preset fuzz

test-fuzz: build-fuzz
	ctest --preset fuzz

unit: build
	ctest --preset unit

# The Debian packages eventsvc and eventsvc-sdk in $(BUILD)/packages, checked by lintian.
package: build
	cd $(BUILD) && cpack -G DEB
	lintian --fail-on error $(BUILD)/packages/*.deb

bench: build
	@packaging/install-deps.sh --bench
	bench/run.sh $(BUILD)

# The browser console in headless Chromium: first load, a 1,000-row result, a 50,000-event histogram.
bench-console: build
	node bench/console.mjs $(BUILD)/bin/eventsvc

bench-cluster: build
	@packaging/install-deps.sh --bench
	bench/cluster.sh $(BUILD)

clean:
	rm -rf build
