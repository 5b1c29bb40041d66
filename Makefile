# superwall-bridge: the two front-door commands are `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
PYTHON ?= python3
CC ?= cc
BIN_DEBUG := .build/debug/superwall-bridge
# The release binary (what `make bench` measures and `make dist` ships): the Swift runtime,
# jansson, SQLite, zlib and libstdc++ linked in (STATIC_LIBS below), not position-independent
# (Package.swift says so for the executable alone) and exporting no symbols, so the loader has almost nothing to relocate or look up at start.
# Linked by lld with the functions startup runs placed together (STARTUP_ORDER, written by
# `make startup-order`): scattered, they kept 7.5 MB of code resident at start.
STATIC_LIBS := .build/static-libs
STARTUP_ORDER := scripts/link/startup-order.txt
# The library (libsuperwall_bridge.so) is built by the same command, self-contained the same way:
# -static-stdlib for every link, as SwiftPM applies --static-swift-stdlib to executables only.
SWIFT_STATIC := $(dir $(realpath $(shell command -v $(SWIFT))))../lib/swift_static/linux
# Both are linked against Debian 11's glibc 2.31 (SYSROOT, made by scripts/release/debian11_root.sh), so
# they run on glibc 2.31 and later; GLIBC_COMPAT defines the two symbols newer than 2.31 that the
# static archives name. Hence no packed relocations (DT_RELR needs glibc 2.36's loader). The
# Swift runtime's link flags name libutil, which nothing uses: an empty archive there keeps the
# loader from mapping it at every start.
SYSROOT := .build/debian11-root
GLIBC_COMPAT_DIR := .build/glibc-compat
GLIBC_COMPAT := $(GLIBC_COMPAT_DIR)/glibc_compat.o
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -static-stdlib -Xlinker -L$(SWIFT_STATIC) -Xlinker -L$(CURDIR)/$(STATIC_LIBS) \
	-Xlinker -L$(CURDIR)/$(GLIBC_COMPAT_DIR) -Xswiftc -use-ld=lld -Xlinker --symbol-ordering-file=$(CURDIR)/$(STARTUP_ORDER) -Xlinker --no-warn-symbol-ordering \
	-Xlinker --version-script=$(CURDIR)/scripts/link/exports.map -Xlinker --undefined-version \
	-Xswiftc -Xclang-linker -Xswiftc --sysroot=$(CURDIR)/$(SYSROOT) -Xlinker $(CURDIR)/$(GLIBC_COMPAT)
RELEASE_DEPS = $(STATIC_LIBS)/pkgconfig/jansson.pc $(ICU_DATA) $(GLIBC_COMPAT)
RELEASE_ENV := PKG_CONFIG_PATH=$(CURDIR)/$(STATIC_LIBS)/pkgconfig
BIN_RELEASE := .build/release/superwall-bridge
BENCH_DIR := Benchmarks
BENCH_BIN := $(BENCH_DIR)/bin

.PHONY: embedding-deps embedding-test docs-test all deps build release startup-order check test python-test typescript-deps npm-deps typescript-test browser-deps browser-test demo demo-python demo-typescript bench bench-instructions dist dist-check stress fuzz clean

all: build

# System packages the build needs; installed only when missing (CI and fresh machines).
# jansson is the wire codec, SQLite the store; zlib is AsyncHTTPClient's decompression.
deps:
	@if ! pkg-config --exists jansson sqlite3 zlib 2>/dev/null; then \
		echo "installing libjansson-dev libsqlite3-dev zlib1g-dev"; \
		scripts/install_packages.sh libjansson-dev libsqlite3-dev zlib1g-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

release: deps $(RELEASE_DEPS)
	[ $(BIN_RELEASE) -nt $(ICU_DATA) ] && [ $(BIN_RELEASE) -nt $(GLIBC_COMPAT) ] || rm -f $(BIN_RELEASE) .build/release/libsuperwall_bridge.so
	$(RELEASE_ENV) $(SWIFT) build $(RELEASE_FLAGS) $$(cat $(ICU_FLAGS))

$(SYSROOT)/usr/lib/x86_64-linux-gnu/libc_nonshared.a: scripts/release/debian11_root.sh
	scripts/release/debian11_root.sh > /dev/null

$(GLIBC_COMPAT): scripts/link/glibc_compat.c $(SYSROOT)/usr/lib/x86_64-linux-gnu/libc_nonshared.a
	mkdir -p $(dir $@)
	$(CC) --sysroot=$(SYSROOT) -O2 -fPIC -Wall -Wextra -Werror -c -o $@ $<
	rm -f $(GLIBC_COMPAT_DIR)/libutil.a && ar rc $(GLIBC_COMPAT_DIR)/libutil.a

# The ICU data the release link uses instead of Foundation's: without what the bridge never
# reads (scripts/release/trim_icu.py says what and why).
ICU_DATA := .build/icu/icu-data.o
ICU_FLAGS := .build/icu/link-flags
# Made again when the toolchain's ICU changes: data of another ICU version must not be linked.
TOOLCHAIN_ICU := $(dir $(realpath $(shell command -v $(SWIFT))))../lib/swift_static/linux/lib_FoundationICU.a
$(ICU_DATA): scripts/release/trim_icu.py $(TOOLCHAIN_ICU)
	$(PYTHON) scripts/release/trim_icu.py $(ICU_DATA) $(ICU_FLAGS) --archive $(TOOLCHAIN_ICU)

# A folder holding only the static archives, named first in the link's search path through a
# jansson.pc pointing at it, so that every -ljansson, -lsqlite3, -lz and -lstdc++ finds an archive.
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
# Rewrites STARTUP_ORDER from a trace of the release binary's startup (callgrind), then links
# again by it (SwiftPM does not know the link reads the file).
startup-order: release
	$(PYTHON) scripts/release/startup_order.py $(BIN_RELEASE) $(STARTUP_ORDER)
	rm -f $(BIN_RELEASE)
	$(MAKE) --no-print-directory release

$(STATIC_LIBS)/pkgconfig/jansson.pc: | deps
	mkdir -p $(STATIC_LIBS)/pkgconfig
	for lib in jansson sqlite3 z; do ln -sf /usr/lib/$(MULTIARCH)/lib$$lib.a $(STATIC_LIBS)/lib$$lib.a; done
	ln -sf $$($(CC) -print-file-name=libstdc++.a) $(STATIC_LIBS)/libstdc++.a
	sed "s|^libdir=.*|libdir=$(CURDIR)/$(STATIC_LIBS)|" $$(pkg-config --variable=pcfiledir jansson)/jansson.pc > $@

# Swift Testing runs the suites; XCTest, which has none, prints its own "Executed 0 tests"
# first, so the last line here restates the real count plainly. Every bridge the end-to-end
# suites start traces its frames to WIRE_TRACES; the Python suite then runs the conformance
# scenarios from the Python client and checks every traced message against protocol/openrpc.json.
WIRE_TRACES := $(CURDIR)/.build/wire-traces
# The suites' temporary files (data directories, configs, databases): a folder of the
# checkout's own, removed when every suite has passed, instead of thousands of entries left
# in /tmp. Outside the checkout, as tests of the installed clients need.
TEST_TMP := /tmp/superwall-bridge-tests-$(shell printf %s "$(CURDIR)" | cksum | cut -d' ' -f1)
# The clients' suites are what a user's suite built on the toolkits looks like: each runs in a
# temp folder of its own that must be empty when it ends (every data directory, config and
# trace it made removed), or the phase fails listing what was left.
LEAVES_NO_TEMP := $(PYTHON) $(CURDIR)/scripts/check/leaves_no_temp.py --
PY_VENV := .build/python-venv
# The suites that only compute (the rule engine's property tests, the codecs' fuzzing) run
# first, on their own: beside the others they kept the cooperative pool's two threads busy
# for seconds, and the deadlines the other suites assert waited behind them.
COMPUTE_SUITES := RulesTests|FuzzTests|JSONTextTests
# The suite that fills the cooperative pool on purpose, to show the bridge's deadlines hold
# while it is full, runs last and alone: beside it every other test would stall.
BUSY_POOL_SUITES := BusyPoolDeadlineTests
# How many tests of the end-to-end suites run at once. Unbounded, Swift Testing started every
# test together: some 110 bridge processes shared two cores, and an answer a test waits 30 s
# for could take longer. Eight keep the cores busy (the whole phase takes as long) with at
# most a dozen bridges alive, so each test's waits measure its own work, not the crowd's.
TEST_WIDTH := 8

# The checks and the Swift suites, which need nothing but the toolchain and the packages: the
# loop for a change to the Swift code (docs/contributing.md).
check: deps
	$(PYTHON) scripts/check/check_links.py
	$(PYTHON) scripts/check/check_source_layout.py
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Package.swift
	$(PYTHON) scripts/generate/generate_types.py --check
	$(PYTHON) scripts/generate/generate_demo_config.py --check
	$(PYTHON) scripts/generate/version.py --check
	$(SWIFT) build --build-tests
	rm -rf $(WIRE_TRACES) $(TEST_TMP) && mkdir -p $(TEST_TMP)
	set -o pipefail; TMPDIR=$(TEST_TMP) $(SWIFT) test --skip-build --filter '$(COMPUTE_SUITES)' 2>&1 | tee .build/swift-test.log
	set -o pipefail; TMPDIR=$(TEST_TMP) SUPERWALL_WIRE_TRACES=$(WIRE_TRACES) SUPERWALL_BRIDGE_BIN=$(CURDIR)/$(BIN_DEBUG) $(SWIFT) test --skip-build --experimental-maximum-parallelization-width $(TEST_WIDTH) --skip '$(COMPUTE_SUITES)|$(BUSY_POOL_SUITES)' 2>&1 | tee -a .build/swift-test.log
	set -o pipefail; TMPDIR=$(TEST_TMP) $(SWIFT) test --skip-build --filter '$(BUSY_POOL_SUITES)' 2>&1 | tee -a .build/swift-test.log
	@sed -nE 's/.*Test run with ([0-9]+) tests? in [0-9]+ suites? passed.*/\1/p' .build/swift-test.log | awk '{ sum += $$1 } END { print "Swift: " sum " passed, 0 failed" }'

# Every suite: `check`, then the docs' examples, the library from C, Java and LuaJIT, both
# clients, the paywall page in a browser and a short run of each fuzz target.
test: check
	TMPDIR=$(TEST_TMP) $(MAKE) --no-print-directory docs-test
	TMPDIR=$(TEST_TMP) $(MAKE) --no-print-directory embedding-test
	TMPDIR=$(TEST_TMP) $(MAKE) --no-print-directory python-test
	TMPDIR=$(TEST_TMP) $(MAKE) --no-print-directory typescript-test
	TMPDIR=$(TEST_TMP) $(MAKE) --no-print-directory browser-test
	FUZZ_SEED=1 $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=15
	rm -rf $(TEST_TMP)

# The examples the docs run through, against the debug binary.
docs-test:
	$(PYTHON) docs/examples/minimal_client.py $(BIN_DEBUG) > /dev/null
	$(PYTHON) scripts/check/check_doc_transcripts.py $(BIN_DEBUG)
	PYTHONPATH=clients/python $(PYTHON) docs/examples/computed_window.py $(BIN_DEBUG) > /dev/null
	$(BIN_DEBUG) validate docs/examples/minimal-config.json
	mkdir -p $(TEST_TMP) && echo '{"exports_this_month": 5}' > $(TEST_TMP)/docs-user.json
	$(BIN_DEBUG) explain --config docs/examples/minimal-config.json --user $(TEST_TMP)/docs-user.json export_pdf | grep -q "experiment exp-export: matched"
	@echo "docs: the examples ran"

# The bridge in-process, through libsuperwall_bridge.so (the debug build; `make dist` builds the
# self-contained one): a C program driving two bridges at once, the quick start from Java
# through a JNI shim, built with Debian's OpenJDK 17 (without its perf data, which the JVM
# writes to /tmp whatever TMPDIR says), from LuaJIT's FFI with no C at all,
# taking each message with superwall_bridge_receive, and the packages' launcher (the command
# line run inside the library) serving a client. The Python suite runs every conformance
# scenario through it too.
LIB_DEBUG := .build/debug/libsuperwall_bridge.so
EMBEDDING_BUILD := .build/embedding
JAVA17 := /usr/lib/jvm/java-17-openjdk-amd64

embedding-deps:
	@if [ ! -x $(JAVA17)/bin/javac ] || ! command -v luajit >/dev/null; then \
		echo "installing openjdk-17-jdk-headless luajit"; \
		scripts/install_packages.sh --no-install-recommends openjdk-17-jdk-headless luajit; \
	fi

embedding-test: embedding-deps
	$(SWIFT) build --product superwall_bridge
	mkdir -p $(EMBEDDING_BUILD)/java $(TEST_TMP)
	$(CC) -O1 -Wall -Wextra -Werror -Iembedding/include -o $(EMBEDDING_BUILD)/two-bridges embedding/c/two_bridges.c \
		-L$(dir $(LIB_DEBUG)) -lsuperwall_bridge -Wl,-rpath,$(CURDIR)/$(dir $(LIB_DEBUG)) -lpthread
	$(EMBEDDING_BUILD)/two-bridges $(TEST_TMP)/two-bridges
	$(JAVA17)/bin/javac -J-XX:-UsePerfData -Xlint:all -Werror -d $(EMBEDDING_BUILD)/java embedding/java/com/superwall/bridge/SuperwallBridge.java embedding/java/QuickStart.java
	$(CC) -O1 -Wall -Wextra -Werror -shared -fPIC -I$(JAVA17)/include -I$(JAVA17)/include/linux -Iembedding/include \
		-o $(EMBEDDING_BUILD)/java/libsuperwall_bridge_jni.so embedding/java/superwall_bridge_jni.c \
		-L$(dir $(LIB_DEBUG)) -lsuperwall_bridge -Wl,-rpath,$(CURDIR)/$(dir $(LIB_DEBUG))
	$(JAVA17)/bin/java -XX:-UsePerfData -Djava.library.path=$(EMBEDDING_BUILD)/java -cp $(EMBEDDING_BUILD)/java QuickStart
	rm -rf $(TEST_TMP)/luajit && luajit embedding/lua/quick_start.lua $(LIB_DEBUG) $(TEST_TMP)/luajit
	$(CC) -O1 -Wall -Wextra -Werror -Iembedding/include -o $(EMBEDDING_BUILD)/superwall-bridge embedding/launcher/main.c \
		-L$(dir $(LIB_DEBUG)) -lsuperwall_bridge -Wl,-rpath,$(CURDIR)/$(dir $(LIB_DEBUG))
	$(EMBEDDING_BUILD)/superwall-bridge --version | grep -qF "superwall-bridge $$(cat VERSION)"
	$(PYTHON) docs/examples/minimal_client.py $(EMBEDDING_BUILD)/superwall-bridge > /dev/null
	$(EMBEDDING_BUILD)/superwall-bridge validate docs/examples/minimal-config.json > /dev/null

# The Python client: type-checked (mypy --strict), then its suite against the debug binary,
# in a virtualenv under .build.
python-test: $(PY_VENV)/bin/pytest
	$(PY_VENV)/bin/pip install -q --no-deps --force-reinstall ./clients/python
	cd clients/python && $(CURDIR)/$(PY_VENV)/bin/mypy --strict superwall_bridge
	SUPERWALL_BRIDGE=$(CURDIR)/$(BIN_DEBUG) SUPERWALL_BRIDGE_LIBRARY=$(CURDIR)/$(LIB_DEBUG) SUPERWALL_WIRE_TRACES=$(WIRE_TRACES) \
		$(LEAVES_NO_TEMP) $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider clients/python/tests
	SUPERWALL_BRIDGE=$(CURDIR)/$(BIN_DEBUG) $(LEAVES_NO_TEMP) $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider docs/examples/test_integration_example.py docs/examples/test_app_with_the_plugin.py
	SUPERWALL_BRIDGE=$(CURDIR)/$(BIN_DEBUG) $(PY_VENV)/bin/python docs/examples/hot_reload.py > /dev/null

# The TypeScript client: built by Debian's TypeScript compiler (npm's registry is out of
# reach), tested by Node's own runner against the debug binary, conformance scenarios included.
typescript-deps:
	@if ! command -v tsc >/dev/null; then \
		echo "installing node-typescript"; \
		scripts/install_packages.sh --no-install-recommends node-typescript; \
	fi

# npm packs the TypeScript package in `make dist` (nothing is fetched from a registry).
npm-deps:
	@if ! command -v npm >/dev/null; then \
		echo "installing npm"; \
		scripts/install_packages.sh --no-install-recommends npm; \
	fi

typescript-test: typescript-deps
	$(PYTHON) scripts/generate/generate_types.py --check
	cd clients/typescript && rm -rf dist && tsc -p .
	cd clients/typescript && SUPERWALL_BRIDGE=$(CURDIR)/$(BIN_DEBUG) $(LEAVES_NO_TEMP) node --test dist/test/*.test.js
	cd clients/typescript && SUPERWALL_BRIDGE=$(CURDIR)/$(BIN_DEBUG) $(LEAVES_NO_TEMP) node --test dist/examples/app.test.js

# The paywall page runtime in a real browser: the stand-in page in Debian's headless Chromium,
# driven by selenium from PyPI. A browser that cannot start fails the test, saying why.
browser-deps:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
		echo "installing chromium chromium-driver"; \
		scripts/install_packages.sh chromium chromium-driver; \
	fi
	@if ! command -v xvfb-run >/dev/null || ! /usr/bin/python3 -c "import PyQt5.QtWebEngineWidgets" 2>/dev/null; then \
		echo "installing python3-pyqt5.qtwebengine xvfb xauth"; \
		scripts/install_packages.sh --no-install-recommends python3-pyqt5.qtwebengine xvfb xauth; \
	fi

browser-test: browser-deps $(PY_VENV)/bin/pytest
	$(PY_VENV)/bin/pip install -q "selenium>=4.20,<5"
	$(PY_VENV)/bin/pip install -q --no-deps --force-reinstall ./clients/python
	cd Tests/Browser && SUPERWALL_BRIDGE=$(CURDIR)/$(BIN_DEBUG) $(LEAVES_NO_TEMP) $(CURDIR)/$(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider -s .

$(PY_VENV)/bin/pytest:
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/pip install -q "pytest>=8,<10" "jsonschema>=4.18,<5" "mypy>=1.10,<2"

# `make demo CLIENT=typescript` tells the same story from the TypeScript client.
CLIENT ?= python
demo: build demo-$(CLIENT)

demo-python: browser-deps $(PY_VENV)/bin/pytest
	$(PY_VENV)/bin/pip install -q "selenium>=4.20,<5"
	$(PY_VENV)/bin/python scripts/demo.py $(if $(VERBOSE),--verbose) $(BIN_DEBUG)

demo-typescript: typescript-deps
	cd clients/typescript && rm -rf dist && tsc -p .
	node clients/typescript/dist/examples/demo.js $(CURDIR)/$(BIN_DEBUG)

$(BENCH_BIN)/driver: $(BENCH_DIR)/driver.c | $(BENCH_BIN)
	$(CC) -O2 -Wall -Wextra -o $@ $< -lpthread -lm

$(BENCH_BIN)/echo-server: $(BENCH_DIR)/echo_server.c | $(BENCH_BIN)
	$(CC) -O2 -Wall -Wextra -o $@ $< $$(pkg-config --cflags --libs jansson)

# B15: the library in-process beside the executable over pipes (both from `make release`).
$(BENCH_BIN)/inprocess-bench: $(BENCH_DIR)/inprocess_bench.c embedding/include/superwall_bridge.h | $(BENCH_BIN)
	$(CC) -O2 -Wall -Wextra -Iembedding/include -o $@ $< -ldl -lpthread

$(BENCH_BIN):
	mkdir -p $@

$(BENCH_BIN)/bench-config.json: $(BENCH_DIR)/generate_config.py | $(BENCH_BIN)
	$(PYTHON) $< $@ 1000 2000

# The rules benchmark's peer, the Python package common-expression-language, in a virtualenv.
$(BENCH_DIR)/.venv/bin/python:
	$(PYTHON) -m venv $(BENCH_DIR)/.venv
	$(BENCH_DIR)/.venv/bin/pip install -q common-expression-language==0.10.0

# B12's config: 3,000 campaigns, 16 MB, just under the default --max-config-size.
$(BENCH_BIN)/bench-config-16mb.json: $(BENCH_DIR)/generate_config.py | $(BENCH_BIN)
	$(PYTHON) $< $@ 3000 6000

bench: deps release $(BENCH_BIN)/driver $(BENCH_BIN)/echo-server $(BENCH_BIN)/inprocess-bench $(BENCH_BIN)/bench-config.json $(BENCH_BIN)/bench-config-16mb.json $(BENCH_DIR)/.venv/bin/python
	$(BENCH_BIN)/driver --peer $(BENCH_BIN)/echo-server --bridge $(BIN_RELEASE) --config $(CURDIR)/$(BENCH_BIN)/bench-config.json \
		--large-config $(CURDIR)/$(BENCH_BIN)/bench-config-16mb.json
	$(BENCH_BIN)/inprocess-bench --bridge $(BIN_RELEASE) --library $(dir $(BIN_RELEASE))libsuperwall_bridge.so
	$(PYTHON) $(BENCH_DIR)/rules_bench.py run --bridge $(dir $(BIN_RELEASE))rules-benchmark --peer-python $(BENCH_DIR)/.venv/bin/python
	$(BENCH_DIR)/.venv/bin/pip install -q "pytest>=8,<10"
	$(BENCH_DIR)/.venv/bin/pip install -q --no-deps --force-reinstall ./clients/python
	$(BENCH_DIR)/.venv/bin/python $(BENCH_DIR)/fixture_bench.py --bridge $(BIN_RELEASE) --echo $(BENCH_BIN)/echo-server
	$(BENCH_DIR)/.venv/bin/python $(BENCH_DIR)/replay_bench.py --bridge $(BIN_RELEASE)

# Instructions per call, counted by callgrind (repeatable whatever the machine does): startup,
# configure of the 1,000-campaign config, and register / getPresentationResult on it.
bench-instructions: deps release $(BENCH_BIN)/bench-config.json
	@command -v valgrind >/dev/null || scripts/install_packages.sh valgrind
	$(PYTHON) $(BENCH_DIR)/instructions.py --bridge $(BIN_RELEASE) --config $(CURDIR)/$(BENCH_BIN)/bench-config.json

# The self-contained binary: the release build, stripped, with its checksum, its size by
# component (from the link map) and a check that it runs from an empty folder with nothing
# but the C runtime; the library for in-process use and its header, checked the same way
# (docs/embedding.md); then the packages that carry the binary, a Python platform wheel and an
# npm tarball (scripts/release/package.py).
DIST := .build/dist

dist: deps $(RELEASE_DEPS) $(PY_VENV)/bin/pytest typescript-deps npm-deps
	mkdir -p $(DIST)
	rm -f $(BIN_RELEASE)
	$(RELEASE_ENV) $(SWIFT) build $(RELEASE_FLAGS) $$(cat $(ICU_FLAGS)) --product superwall-bridge -Xlinker -Map=$(CURDIR)/$(DIST)/link.map
	strip -o $(DIST)/superwall-bridge $(BIN_RELEASE)
	cd $(DIST) && sha256sum superwall-bridge > superwall-bridge.sha256
	$(PYTHON) scripts/release/dist_sizes.py $(DIST)/link.map $(DIST)/superwall-bridge
	scripts/release/dist_check.sh $(DIST)/superwall-bridge
	$(RELEASE_ENV) $(SWIFT) build $(RELEASE_FLAGS) $$(cat $(ICU_FLAGS)) --product superwall_bridge
	strip -o $(DIST)/libsuperwall_bridge.so .build/release/libsuperwall_bridge.so
	cp embedding/include/superwall_bridge.h $(DIST)/
	scripts/release/dist_library_check.sh $(DIST)/libsuperwall_bridge.so $(DIST)/superwall_bridge.h embedding/c/two_bridges.c
	rm -rf $(DIST)/package && mkdir -p $(DIST)/package/bin $(DIST)/package/lib
	cp $(DIST)/libsuperwall_bridge.so $(DIST)/package/lib/
	clang --sysroot=$(SYSROOT) -fuse-ld=lld -O2 -no-pie -Wall -Wextra -Werror -Iembedding/include -s \
		-o $(DIST)/package/bin/superwall-bridge embedding/launcher/main.c -L$(DIST)/package/lib -lsuperwall_bridge \
		-Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib:$$ORIGIN'
	scripts/release/dist_check.sh $(DIST)/package/bin/superwall-bridge
	cd clients/typescript && rm -rf dist && tsc -p .
	$(PY_VENV)/bin/pip install -q "setuptools>=68" "wheel>=0.42"
	$(PY_VENV)/bin/python scripts/release/package.py --binary $(DIST)/package/bin/superwall-bridge --library $(DIST)/package/lib/libsuperwall_bridge.so --typescript-build clients/typescript/dist --out $(DIST)

# The packages installed as a user would (offline, no Swift toolchain on PATH) running the
# READMEs' quick starts, and the Python client's suite against the packaged binary and library;
# then the same on Debian 11 (glibc 2.31, Python 3.9), with a C host of the library besides.
dist-check: dist
	$(PYTHON) scripts/release/dist_install_check.py $(DIST)
	$(PY_VENV)/bin/pip install -q --no-deps --force-reinstall ./clients/python
	SUPERWALL_BRIDGE=$(CURDIR)/$(DIST)/package/bin/superwall-bridge SUPERWALL_BRIDGE_LIBRARY=$(CURDIR)/$(DIST)/package/lib/libsuperwall_bridge.so \
		$(LEAVES_NO_TEMP) $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider clients/python/tests
	scripts/release/debian11_check.sh $(DIST)

# The hostile client replayed (about 20 minutes; not part of make test): framing lies, seeded
# fuzzing, back-pressure under an RSS ceiling, oversized inputs, signals, one large batch, the
# library's close, closed handles and fork, planted files, and a 10-minute soak with
# resets (what history costs). Prints a table.
stress: release
	$(PYTHON) Tests/Stress/stress.py $(BIN_RELEASE) --library $(CURDIR)/.build/release/libsuperwall_bridge.so

# Coverage-guided fuzzing (libFuzzer with AddressSanitizer) of the rule pipeline, the regular
# expressions, the JSON text decoder and the framing, each target for FUZZ_SECONDS on its seed
# corpus (Tests/Fuzz/corpus) and what earlier runs found; `make test` runs each for 15 s.
# A crash or a broken oracle keeps its input in $(FUZZ_DIR)/artifacts and fails.
FUZZ_DIR := .build/fuzz
FUZZ_SECONDS ?= 60
fuzz:
	Tests/Fuzz/build.sh $(FUZZ_DIR)
	Tests/Fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

clean:
	rm -rf .build $(BENCH_BIN) $(BENCH_DIR)/.venv
