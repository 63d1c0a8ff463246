# hcplink — the two set-up commands are `make demo` and `make test`.
SHELL := /usr/bin/env bash -o pipefail
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.1.0-dev)
LDFLAGS := -X github.com/hcplink/hcplink/internal/version.Version=$(VERSION)
BIN := bin/hcplink
# Every package's tests, envtest suites, the end-to-end tests, the bad-input corpus
# (test/corpus/...) and the short soak (test/soak: the three clouds, every fault, about 2.5
# minutes) included. The race detector runs on cloudsim.
TEST_FLAGS ?= -count=1 -timeout 30m

.PHONY: all build test unit generate verify-generated vet envtest-assets demo bench soak clean

all: build

build:
	@[ -x $(BIN) ] || echo "make: building $(BIN) (the first build fetches Go modules and compiles them: about 3 minutes on 2 cores)"
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/hcplink

## generate: deepcopy functions and CRD manifests from the kubebuilder markers in api/.
generate:
	$(GO) tool controller-gen object paths=./api/...
	$(GO) tool controller-gen crd paths=./api/... output:crd:artifacts:config=config/crd

## verify-generated: fails when `make generate` would change a tracked file.
verify-generated: generate
	@if [ -n "$$(git status --porcelain -- api config/crd)" ]; then \
		echo "generated files are stale; run 'make generate' and commit the result:"; \
		git status --porcelain -- api config/crd; git --no-pager diff --stat -- api config/crd; exit 1; \
	fi

vet:
	$(GO) vet ./...

## envtest-assets: build (once) and cache kube-apiserver and etcd for envtest.
envtest-assets:
	./hack/envtest-assets.sh >/dev/null

## test: everything CI runs. The first run builds the envtest binaries (about 15 minutes on 2 cores).
test: verify-generated vet
	@assets="$$(./hack/envtest-assets.sh)" && \
	echo "KUBEBUILDER_ASSETS=$$assets" && \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test $(TEST_FLAGS) ./... && \
	KUBEBUILDER_ASSETS="$$assets" $(GO) test -race $(TEST_FLAGS) ./internal/cloudsim/...

## demo: the guided tour on a local management cluster and a local cloud.
demo: build
	@echo "make demo: checking for kube-apiserver and etcd (the first run builds them from source: about 15 minutes on 2 cores, with progress every minute)"
	@./hack/envtest-assets.sh >/dev/null
	./$(BIN) demo

## bench: many private clusters at once on devenv; prints time vs lower bound, calls per cluster and memory per cluster. CLUSTERS=50 by default; BENCH_FLAGS="--customer-accounts 4 --output json" passes flags through.
CLUSTERS ?= 50
bench: build
	@./hack/envtest-assets.sh >/dev/null
	./$(BIN) bench --clusters $(CLUSTERS) $(BENCH_FLAGS)

## soak: a fleet of clusters on the three clouds through many faults at once; fails on any unconverged cluster, duplicate, leak, foreign resource touched or hot loop. SOAK_FLAGS="--platform aws --clusters 4 --duration 2m" passes flags through.
soak: build
	@./hack/envtest-assets.sh >/dev/null
	./$(BIN) soak $(SOAK_FLAGS)

clean:
	rm -rf bin
