# Thumela: the two commands a newcomer needs are `make run` and `make test`.
# Everything either of them needs (Go tools, npm packages, Chromium) is installed by the
# targets below into the project (bin/, web/node_modules) or, for Chromium, with apt-get.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT     := $(abspath .)
BIN      := $(ROOT)/bin
export GOBIN := $(BIN)
export PATH := $(BIN):$(PATH)
export GOFLAGS := -mod=readonly

# Pinned tool versions (see ../shared/TOOLCHAIN.md for what is known to work offline here).
PROTOC_GEN_GO_VERSION      := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
PROTOC_GEN_CONNECT_GO_VERSION := v1.21.1
BUF_VERSION                := v1.75.0
GOLANGCI_LINT_VERSION      := v2.15.0

BUF      := $(BIN)/buf
GOLANGCI_LINT := $(BIN)/golangci-lint
SERVICES := identity profiles paymentmethods fees transfers notifications cashout
BINARIES := $(SERVICES) bff thumela-dev
# Every Go module of the workspace (go.work).
GO_MODULES := proto services/platform $(addprefix services/,$(SERVICES)) bff deploy/devstack deploy/kubernetes/validate

.PHONY: help
help: ## List the targets.
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-18s %s\n", $$1, $$2}'

# ---------------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------------

# buf is built from its Go module: the npm package's lockfile cannot be installed with `npm ci`
# here (some of its platform packages are missing from the registry).
$(BIN)/buf:
	go install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION)
# golangci-lint is built from its Go module too, with the Go toolchain of this workspace.
$(BIN)/golangci-lint:
	go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
$(BIN)/protoc-gen-go:
	go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
$(BIN)/protoc-gen-go-grpc:
	go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)
$(BIN)/protoc-gen-connect-go:
	go install connectrpc.com/connect/cmd/protoc-gen-connect-go@$(PROTOC_GEN_CONNECT_GO_VERSION)
web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: tools
tools: $(BIN)/buf $(BIN)/golangci-lint $(BIN)/protoc-gen-go $(BIN)/protoc-gen-go-grpc $(BIN)/protoc-gen-connect-go web/node_modules/.package-lock.json ## Install the pinned code generators and npm packages.

.PHONY: chromium
chromium: ## Install Debian's Chromium for the browser tests when it is missing.
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# ---------------------------------------------------------------------------------------------
# Code generation and checks
# ---------------------------------------------------------------------------------------------

.PHONY: generate
generate: tools ## Regenerate Go (proto/gen/go) and TypeScript (web/src/gen) from proto/.
	$(BUF) format -w
	$(BUF) generate

.PHONY: check-generated
check-generated: generate ## Fail when regenerating changes anything that is committed.
	@if [ -n "$$(git status --porcelain -- proto web/src/gen)" ]; then \
	  git status --porcelain -- proto web/src/gen; \
	  echo "generated code is stale: run 'make generate' and commit the result"; exit 1; fi

.PHONY: lint
lint: tools ## buf lint and format, go vet, golangci-lint (.golangci.yml), TypeScript type check.
	$(BUF) lint
	$(BUF) format -d --exit-code
	@# A contract change that breaks wire or JSON compatibility with main's last commit fails
	@# here, so it is made on purpose (buf.yaml's breaking rules; docs/decisions.md, Contracts).
	@if git rev-parse --verify --quiet main >/dev/null; then $(BUF) breaking --against '.git#branch=main'; \
	else echo "buf breaking: no local branch main to compare with; skipped"; fi
	@for m in $(GO_MODULES); do (cd $$m && go vet ./...); done
	@# golangci-lint in every Go module, with the one config (.golangci.yml): errcheck, gosec,
	@# staticcheck, revive, ... and depguard's import boundaries between the services.
	@for m in $(GO_MODULES); do echo "golangci-lint $$m"; (cd $$m && $(GOLANGCI_LINT) run --config $(ROOT)/.golangci.yml ./...); done
	cd web && npm run --silent typecheck
	cd web && npm run --silent lint

# ---------------------------------------------------------------------------------------------
# Build and run
# ---------------------------------------------------------------------------------------------

.PHONY: build-go
build-go: ## Build every binary into bin/.
	@for s in $(SERVICES); do go build -o $(BIN)/$$s ./services/$$s/cmd/$$s; done
	go build -o $(BIN)/bff ./bff/cmd/bff
	go build -o $(BIN)/thumela-dev ./deploy/devstack/cmd/thumela-dev

.PHONY: build-web
build-web: web/node_modules/.package-lock.json ## Build the web client into web/dist.
	cd web && npm run --silent build

.PHONY: build
build: build-go build-web ## Build everything.

.PHONY: run
run: tools build ## Bring the whole stack up on http://localhost:8080 (Ctrl-C stops it).
	$(BIN)/thumela-dev

# `make traces`: the stack of `make run` with thumela-dev's own trace viewer: it receives every
# process's spans over OTLP/HTTP on 127.0.0.1:4318 and serves a search and waterfall UI (and a
# JSON API) on TRACES_ADDR, both on 127.0.0.1 only, in memory (the newest 2,000 traces).
# Ctrl-C stops everything. See docs/operations.md, "Locally: make traces".
TRACES_ADDR ?= 127.0.0.1:16686
.PHONY: traces
traces: tools build ## Run the stack with a local trace viewer on http://127.0.0.1:16686.
	$(BIN)/thumela-dev -traces $(TRACES_ADDR)

# ---------------------------------------------------------------------------------------------
# Benchmarks
# ---------------------------------------------------------------------------------------------

# The PostgreSQL the throw-away bench stack (and pgbench) use: TEST_DATABASE_URL, else
# DATABASE_URL, else the local server. BENCH_FLAGS passes flags to thumela-bench, e.g.
# BENCH_FLAGS='-duration 30s'.
BENCH_DATABASE_URL ?= $(or $(TEST_DATABASE_URL),$(DATABASE_URL),postgres://postgres@127.0.0.1:5432/postgres)
BENCH_FLAGS ?=

.PHONY: reconcile
reconcile: ## Run the money checks on the running `make run` stack now (RECONCILE_FLAGS=-full: the whole history).
	go build -o $(BIN)/thumela-reconcile ./deploy/devstack/cmd/thumela-reconcile
	$(BIN)/thumela-reconcile -data $(ROOT)/.data $(RECONCILE_FLAGS)

.PHONY: bench
bench: build-go build-web ## Measure the performance targets on a throw-away stack (docs/benchmarks.md).
	go build -o $(BIN)/thumela-bench ./deploy/devstack/cmd/thumela-bench
	DATABASE_URL='$(BENCH_DATABASE_URL)' $(BIN)/thumela-bench -root $(ROOT) $(BENCH_FLAGS)

.PHONY: chaos
chaos: build-go build-web ## The outage test with longer outages: PostgreSQL and NATS each down for OUTAGE_HOLD (default 60s; CI's run holds 10s). docs/outages.md.
	cd deploy/devstack && OUTAGE_HOLD=$(OUTAGE_HOLD) go test -count=1 -v -timeout 30m -run TestOutagesDuringABurst ./internal/outage/

# How long `make chaos` keeps PostgreSQL and NATS down.
OUTAGE_HOLD ?= 60s

# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

# The stack-level tests of deploy/devstack (scale-out, trace chain) start the real binaries of
# bin/ and the BFF serves web/dist, so both are built first.
.PHONY: test-go
test-go: build-go build-web ## Go unit and integration tests (real PostgreSQL at TEST_DATABASE_URL, embedded NATS).
	@# deploy/devstack's packages each start whole stacks (up to ~70 PostgreSQL connections with
	@# their pools full): one package at a time keeps them under the server's max_connections.
	@for m in $(GO_MODULES); do echo "== $$m"; p=""; [ $$m = deploy/devstack ] && p="-p 1"; \
		(cd $$m && go test -count=1 $$p ./...); done

.PHONY: test-web
test-web: web/node_modules/.package-lock.json ## Web unit tests (Vitest).
	cd web && npm test --silent

.PHONY: test-e2e
test-e2e: chromium build ## Browser tests in Debian's Chromium against a throw-away stack.
	cd web && node --test --test-concurrency=1 e2e/

.PHONY: fuzz
fuzz: ## Run every Go fuzz target for FUZZTIME each (default 10s); CI runs each for 3s.
	FUZZTIME=$(FUZZTIME) .ci/fuzz

# Each fuzz target's time in `make fuzz`; `make test` (CI) gives each a few seconds.
FUZZTIME ?= 10s

.PHONY: test
test: lint check-generated test-go test-fuzz test-web test-e2e ## The full suite: what CI runs.

.PHONY: test-fuzz
test-fuzz: ## Every fuzz target for 3 seconds (its committed corpus runs in test-go too).
	FUZZTIME=3s .ci/fuzz
