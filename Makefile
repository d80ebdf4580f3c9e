# Liveline: the two commands of the README, and a few more.
SWIFT ?= swift
BIN := .build/debug/liveline
# A test run still going after this many seconds is stopped, printing where each thread was.
TEST_DEADLINE ?= 900
# Every suite runs in one parallel phase. The browser suites take a slot each (LivelineTesting's
# TestBrowsers.withSlot: an flock'd file per slot, LIVELINE_BROWSER_SLOTS, default 2, across test
# processes) before they start Chromium or Firefox, so the browsers never crowd the 2 cores the
# timing-sensitive network tests share with them; a test that gets no slot within its bound fails
# naming the holders.
# (LivelineHTTPServerTests left the old serial list: its "wait forever" was its tests waiting without a
# deadline for a handler whose connection the server had closed as idle while the test waited,
# tens of seconds, for one of the two cooperative threads that other suites held in blocking I/O.
# Its waits now have deadlines and its servers' client timeouts are out of the way.)
# (HTTP2ConnectResolutionTests left it too: the connect's resolve timeout was a task on the same
# two cooperative threads, so it fired late while they were held; it is a Dispatch timer now.)
# LIVELINE_REQUIRE_SERVERS=1: a PostgreSQL or browser suite whose server is missing fails, naming
# what to install, instead of skipping.

.PHONY: demo test build deps clean fuzz

demo: ## Run the flight-tracker story end to end
	@scripts/install-deps.sh demo
	@$(SWIFT) build --product liveline
	@$(BIN) demo

# Every `liveline serve` the tests start checks its answers against /openapi.json (checkAnswers).
test: export LIVELINE_CHECK_ANSWERS := true
test: ## Build and run every test (the store's PostgreSQL half on a throw-away server)
	@scripts/install-deps.sh test
	@$(SWIFT) build --build-tests
	@LIVELINE_REQUIRE_SERVERS=1 scripts/with-postgres.sh scripts/with-deadline.sh $(TEST_DEADLINE) $(SWIFT) test --skip-build
	@scripts/check-readme-examples.sh
	@scripts/check-ios-sources.sh
	@node --test clients/react-native/test/*.test.js

# libFuzzer (with AddressSanitizer) over every parser, FUZZ_SECONDS each; see docs/fuzzing.md.
# libFuzzer ships with the Swift toolchain: nothing beyond the build's packages is needed.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= json voltra-json voltra-base64 layout-form pem-key simulator service
FUZZ_BIN := Fuzz/.build/debug/liveline-fuzz

fuzz: ## Fuzz every parser for FUZZ_SECONDS each; crashes go to Fuzz/.work/artifacts/
	@scripts/install-deps.sh build
	@$(SWIFT) build --package-path Fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
	@mkdir -p Fuzz/.work/artifacts
	@failed=""; for t in $(FUZZ_TARGETS); do \
	  mkdir -p Fuzz/.work/corpus/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=0} FUZZ_TARGET=$$t $(FUZZ_BIN) Fuzz/.work/corpus/$$t Fuzz/Corpus/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 -max_len=65536 \
	    -detect_leaks=0 -print_final_stats=1 -artifact_prefix=Fuzz/.work/artifacts/$$t- >Fuzz/.work/$$t.log 2>&1 \
	    || { tail -n 40 Fuzz/.work/$$t.log; echo "fuzz: $$t FAILED: input in Fuzz/.work/artifacts/, log Fuzz/.work/$$t.log"; failed="$$failed $$t"; }; \
	  grep -E "^stat::number_of_executed_units" Fuzz/.work/$$t.log; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed"; exit 1; fi

build:
	@scripts/install-deps.sh build
	@$(SWIFT) build

clean:
	rm -rf .build
