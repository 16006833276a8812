# QuantFront: the two commands a user needs on a fresh Debian machine.
#   make run   install missing Debian packages, configure, build, open the GUI on the default
#   make test  same, then run every test through ctest
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
NVCC := $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CMAKE_ARGS ?=
# Warnings are errors in every target, so that `make run`, `make build` and `make test` configure
# build/ with the same flags and switching between them rebuilds nothing. (A compiler that warns
# where ours does not: `make run QF_WERROR=OFF BUILD_DIR=build-nowerror`.)
QF_WERROR ?= ON
CMAKE_ARGS += -DQF_WERROR=$(QF_WERROR)
ifneq ($(NVCC),)
CMAKE_ARGS += -DCMAKE_CUDA_COMPILER=$(NVCC)
endif

.PHONY: all deps configure build run test asan fuzz bench clean format format-check package package-check

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j$(JOBS)

run: build
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ -n "$$QT_QPA_PLATFORM" ]; then \
	  ./$(BUILD_DIR)/app/quantfront; \
	else \
	  echo "make run: no display found; running the GUI under xvfb-run (virtual display)"; \
	  xvfb-run -a -s "-screen 0 1600x1000x24" ./$(BUILD_DIR)/app/quantfront; \
	fi

test: build format-check
	@cd $(BUILD_DIR) && ctest --output-on-failure -j$(JOBS)

# The repo's .clang-format over every C++ and CUDA source (Debian's clang-format).
FORMAT_FILES = $(shell git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' 2>/dev/null)
format-check: deps
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files formatted"

format: deps
	@clang-format -i $(FORMAT_FILES)

# The test suite built once with AddressSanitizer + UndefinedBehaviorSanitizer.
asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DQF_SANITIZE=ON -DQF_ENABLE_CUDA=OFF >/dev/null
	@cmake --build build-asan -j$(JOBS)
	@cd build-asan && ctest --output-on-failure -j$(JOBS)

fuzz:
	@./scripts/install-deps.sh --with-tools
	@./scripts/fuzz.sh

bench: build
	@./scripts/bench.sh $(BUILD_DIR)

# The Debian packages (quantfront, quantfront-cli, quantfront-cuda when CUDA is built) in
# $(BUILD_DIR)/; package-check installs them into a fresh Debian 12 root and runs them there.
package: build
	@./scripts/install-deps.sh --with-packaging
	@cd $(BUILD_DIR) && cpack -G DEB
package-check: package
	@./scripts/package-root-check.sh $(BUILD_DIR)

clean:
	@rm -rf $(BUILD_DIR) build-asan build-fuzz
