# dshlog's everyday commands. Everything is plain `go`; the targets only save
# typing. Outputs go to bin/ (ignored by git).

GO       ?= go
BIN      ?= bin
FUZZTIME ?= 10s
BENCHTIME ?= 1x
BENCHRUNS ?= 3
MANDIR   ?= $(BIN)/man/man1

.PHONY: all build install test vet bench bench-go bench-verbs bench-verify bench-search fuzz cover man clean help

all: build

## build: compile bin/dshlog
build:
	$(GO) build -o $(BIN)/dshlog ./cmd/dshlog

## install: install dshlog into GOBIN (go install ./cmd/dshlog)
install:
	$(GO) install ./cmd/dshlog

## test: run every test (what CI runs)
test:
	$(GO) test ./...

## vet: gofmt and go vet
vet:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet ./...

## bench: bench-verbs, bench-verify, then bench-search (the Go benchmarks are bench-go)
bench: bench-verbs bench-verify bench-search

## bench-go: run every Go benchmark once with allocation figures (BENCHTIME=5x for more)
bench-go:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

## bench-verbs: migrate, verify, fold --surface, inspect --json at two sizes: MB/s, peak RSS, ratio to jq -c ., growth exponent, dsh's sha256 (needs python3 and jq; BENCHRUNS runs, default 3)
bench-verbs: build
	$(GO) run ./bench/migrate -dshlog $(BIN)/dshlog -dir $(BIN)/bench -runs $(BENCHRUNS)

## bench-verify: dshlog verify over 10,000 small sessions and a ~1 GB tree of large ones, generated in a temporary directory: files/s, MB/s, CPU, peak RSS and the per-file overhead
bench-verify: build
	$(GO) run ./bench/verify -dshlog $(BIN)/dshlog

## bench-search: dshlog search -F beside grep -rlF on a generated ~1 GB store, for a phrase no file holds and a rare one: wall and CPU time, peak RSS, the ratio to grep's wall time (needs grep; BENCHRUNS runs, default 3)
bench-search: build
	$(GO) run ./bench/search -dshlog $(BIN)/dshlog -runs $(BENCHRUNS)

## fuzz: run each fuzz target for FUZZTIME (default 10s)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

## cover: test with coverage across packages and print the total
cover:
	@mkdir -p $(BIN)
	$(GO) test -coverpkg ./... -coverprofile $(BIN)/cover.out ./...
	$(GO) tool cover -func $(BIN)/cover.out | tail -n 1

## man: write man pages for dshlog and its verbs into MANDIR
man:
	$(GO) run ./internal/mangen $(MANDIR)

clean:
	rm -rf $(BIN)

## help: list the targets
help:
	@grep '^## ' Makefile | sed 's/^## /  /'
