# The two commands of the README:
#   make run    install what is missing, build, start the server on the embedded default config
#   make test   install what is missing, build, run every test (unit, integration, fault)
PRESET ?= release
BUILD := build/$(PRESET)
DATA_DIR ?= var/data

.PHONY: all deps build run test unit bench clean

all: build

deps:
	@packaging/install-deps.sh

build: deps
	@test -f $(BUILD)/CMakeCache.txt || cmake --preset $(PRESET)
	@cmake --build --preset $(PRESET)

run: build
	$(BUILD)/bin/eventsvc serve --data-dir $(DATA_DIR) --bootstrap-key

test: build
	ctest --preset $(PRESET)

unit: build
	ctest --preset unit

bench: build
	@packaging/install-deps.sh --bench
	bench/run.sh $(BUILD)

clean:
	rm -rf build
