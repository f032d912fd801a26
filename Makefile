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
run: tools build postgresql ## Bring the whole stack up on http://localhost:8080 (Ctrl-C stops it).
	$(BIN)/thumela-dev

# `make traces`: the stack of `make run`, its spans exported over OTLP/HTTP to a local
# otel-desktop-viewer: in memory, on 127.0.0.1 only (OTLP/HTTP on TRACES_OTLP_PORT, OTLP/gRPC on
# TRACES_OTLP_GRPC_PORT, its UI and JSON-RPC API on TRACES_UI_PORT), its log in
# .data/otel-desktop-viewer.log. Ctrl-C stops both. See docs/operations.md, "Locally: make traces".
OTEL_DESKTOP_VIEWER_VERSION := v0.4.1
TRACES_UI_PORT        ?= 16686
TRACES_OTLP_PORT      ?= 4318
TRACES_OTLP_GRPC_PORT ?= 4317
# Built as the main module inside its downloaded copy (read-only: the build writes only to Go's
# caches), since `go install …@version` first asks the module proxy for the list of versions,
# which the proxy here refuses. cgo: its store is DuckDB, whose Go bindings ship a prebuilt
# static library, so a C compiler is all it needs. Once, a few minutes.
$(BIN)/otel-desktop-viewer:
	dir=$$(GOWORK=off go mod download -json github.com/CtrlSpice/otel-desktop-viewer@$(OTEL_DESKTOP_VIEWER_VERSION) | sed -n 's/^.*"Dir": "\(.*\)",$$/\1/p'); \
	cd "$$dir" && GOWORK=off CGO_ENABLED=1 go build -o $@ -ldflags "-X main.version=$(OTEL_DESKTOP_VIEWER_VERSION:v%=%)" .
.PHONY: traces
traces: tools build $(BIN)/otel-desktop-viewer ## Run the stack with a local trace viewer (otel-desktop-viewer) on http://127.0.0.1:16686.
	@# Emptied here, before the viewer starts, so that the last run's "ready" is not taken for this one's.
	@mkdir -p $(ROOT)/.data && : >$(ROOT)/.data/otel-desktop-viewer.log
	@# The viewer runs in a session of its own, out of reach of Ctrl-C, and is stopped once the
	@# stack has: it still receives the spans the processes send on their way out.
	@setsid $(BIN)/otel-desktop-viewer --host 127.0.0.1 --browser-port $(TRACES_UI_PORT) \
	  --http $(TRACES_OTLP_PORT) --grpc $(TRACES_OTLP_GRPC_PORT) --open-browser=false \
	  >$(ROOT)/.data/otel-desktop-viewer.log 2>&1 & viewer=$$!; \
	trap 'kill $$viewer 2>/dev/null || true; wait $$viewer 2>/dev/null || true' EXIT; \
	until grep -q 'Everything is ready' $(ROOT)/.data/otel-desktop-viewer.log; do \
	  kill -0 $$viewer 2>/dev/null || { echo "otel-desktop-viewer did not start (ports $(TRACES_UI_PORT), $(TRACES_OTLP_PORT), $(TRACES_OTLP_GRPC_PORT) taken?):"; cat $(ROOT)/.data/otel-desktop-viewer.log; exit 1; }; \
	  sleep 0.2; \
	done; \
	$(BIN)/thumela-dev -traces http://127.0.0.1:$(TRACES_OTLP_PORT) -traces-ui http://127.0.0.1:$(TRACES_UI_PORT)

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

# The tests' PostgreSQL: the server at TEST_DATABASE_URL when it is set. Otherwise thumela-pg
# starts a private cluster for the one command it runs, as `make run` does (initdb in a new
# temporary folder, a free port of 127.0.0.1, max_connections 300, as the postgres user when we
# are root), sets TEST_DATABASE_URL to it, and stops and removes it at the end, also when the
# command fails or on Ctrl-C. docs/testing.md.
WITH_TEST_DATABASE := $(BIN)/thumela-pg --

# The server binaries serve thumela-pg's clusters, the outage test's (a cluster of its own,
# whatever TEST_DATABASE_URL says) and `make run`'s.
.PHONY: postgresql
postgresql: ## Install Debian's PostgreSQL server binaries (for the private clusters) when they are missing.
	@command -v initdb >/dev/null 2>&1 || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || { \
	  echo "installing postgresql with apt-get"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

# Phony, so that it is rebuilt (from Go's cache) whenever its source or the stack's changed.
.PHONY: $(BIN)/thumela-pg
$(BIN)/thumela-pg: postgresql
	go build -o $@ ./deploy/devstack/cmd/thumela-pg

# The stack-level tests of deploy/devstack (scale-out, trace chain) start the real binaries of
# bin/ and the BFF serves web/dist, so both are built first.
.PHONY: test-go
test-go: build-go build-web $(BIN)/thumela-pg ## Go unit and integration tests (real PostgreSQL: TEST_DATABASE_URL or a private cluster; embedded NATS).
	@# deploy/devstack's packages each start whole stacks (up to ~70 PostgreSQL connections with
	@# their pools full): one package at a time keeps them under a shared server's max_connections.
	@$(WITH_TEST_DATABASE) $(SHELL) $(.SHELLFLAGS) 'for m in $(GO_MODULES); do echo "== $$m"; p=""; [ $$m = deploy/devstack ] && p="-p 1"; \
		(cd $$m && go test -count=1 $$p ./...); done'

.PHONY: test-web
test-web: web/node_modules/.package-lock.json ## Web unit tests (Vitest).
	cd web && npm test --silent

.PHONY: test-e2e
test-e2e: chromium build $(BIN)/thumela-pg ## Browser tests in Debian's Chromium against a throw-away stack.
	cd web && $(WITH_TEST_DATABASE) node --test --test-concurrency=$(E2E_CONCURRENCY) e2e/

# Browser test files run three at a time, each against its own stack: most of a test's time is
# waiting (the sandbox processor's delay, the worker, the bus). On the 2-core machine: one at a
# time 15 min, two 7.6 min, three 5.8 min with the CPU still 21 % idle (vmstat), all 69 green.
E2E_CONCURRENCY ?= 3

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
