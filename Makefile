# nablasd — see README.md. Everything here needs only the Go toolchain.
GO       ?= go
FUZZTIME ?= 60s
REPORTFLAGS ?=

# Packages cheap enough to run again under the race detector (-short).
RACE_PKGS = ./sdql/... ./internal/... ./formats/... ./ad/... ./exec/... ./cmd/...

.PHONY: all build test demo bench fuzz vet clean

all: build

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

## test: vet, gofmt, every test, and the race detector where affordable.
test: vet
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -short -race $(RACE_PKGS)

## demo: the paper's BATAx kernel on built-in data.
demo:
	$(GO) run ./cmd/nablasd demo

## bench: the tables of the six gradient kernels against hand-written Go
## (time and ratios over interleaved rounds, allocations, memory), then
## every Go benchmark. REPORTFLAGS go to the report, e.g. a faster run:
## make bench REPORTFLAGS='-rounds 3 -benchtime 100ms -mem=false'
bench:
	$(GO) run ./bench/cmd/report $(REPORTFLAGS)
	$(GO) test -run '^$$' -bench . -benchmem ./...

## fuzz: every fuzz target for FUZZTIME (default 60s) each.
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

clean:
	$(GO) clean -testcache
