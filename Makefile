# Liveline: the two commands of the README, and a few more.
SWIFT ?= swift
BIN := .build/debug/liveline

.PHONY: demo test build deps clean

demo: ## Run the flight-tracker story end to end
	@scripts/install-deps.sh demo
	@$(SWIFT) build --product liveline
	@$(BIN) demo

test: ## Build and run every test
	@scripts/install-deps.sh test
	@$(SWIFT) build --build-tests
	@$(SWIFT) test --skip-build

build:
	@scripts/install-deps.sh build
	@$(SWIFT) build

clean:
	rm -rf .build
