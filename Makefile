# nablasd — see README.md. Everything here needs only the Go toolchain.
GO       ?= go
FUZZTIME ?= 60s
REPORTFLAGS ?=
SUDO     ?= $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The test budget. `make test` must finish within 5 minutes on a 2-core
# machine (CI) and stay green with other work running beside it, so it runs
# every package with -short (each long sweep keeps a deterministic sample)
# and the race detector over the packages that start goroutines. The
# timeouts are a backstop against a hang, several times the idle run.
TEST_TIMEOUT ?= 12m
LONG_TIMEOUT ?= 90m

# Packages whose own code starts goroutines or shares state between them
# (parallel loops, background tiering, the JIT's build cache, parallel
# readers, batch jobs), checked with the race detector in `make test`.
RACE_PKGS = . ./exec/... ./internal/jit/... ./datasets/... ./batch/... ./sdql/...
# `make test-long` checks these too under the race detector.
RACE_LONG_PKGS = $(RACE_PKGS) ./internal/... ./formats/... ./ad/... ./cmd/...

.PHONY: all build test test-long demo bench bench-fit fuzz vet clean paper paper-deps

all: build

build:
	$(GO) build ./...

vet:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

## test: vet, gofmt, every test with -short (the sweeps' samples), and the
## race detector on the packages that run goroutines (≤ 5 minutes on 2 cores).
test: vet
	$(GO) test -count=1 -short -timeout $(TEST_TIMEOUT) ./...
	$(GO) test -count=1 -short -race -timeout $(TEST_TIMEOUT) $(RACE_PKGS)
	# generated kernels run on several goroutines, built with the race detector
	$(GO) test -count=1 -short -race -timeout $(TEST_TIMEOUT) -run 'TestRandomPrograms|TestGenerate$$' ./gogen

## test-long: every test in full (the cross-check's 2,000 programs, the
## corpus over every executor, the DuckDB end-to-end tests, beam's
## partitioned jobs over 2M entries), and the race
## detector over more packages: about 30 minutes on 2 cores.
test-long: vet
	$(GO) test -count=1 -timeout $(LONG_TIMEOUT) ./...
	$(GO) test -count=1 -short -race -timeout $(LONG_TIMEOUT) $(RACE_LONG_PKGS)
	$(GO) test -count=1 -short -race -timeout $(LONG_TIMEOUT) -run 'TestRandomPrograms|TestGenerate$$' ./gogen
	@if $(MAKE) -s -C beam download >/dev/null 2>&1; then $(MAKE) -C beam test-long; \
	else echo "beam: the Apache Beam modules cannot be downloaded: skipping make -C beam test-long"; fi

## demo: the paper's BATAx kernel on built-in data.
demo:
	$(GO) run ./cmd/nablasd demo

# The benchmarks are built with every loop of the module aligned, as the
# JIT builds its plugins (internal/hotloops; bench/cmd/hotprofile writes
# the profile and prints its path), so that a ratio compares the code and
# not where the linker put each loop.
HOTFLAGS = -gcflags='github.com/nablasd/nablasd/...=-pgoprofile=$(shell $(GO) run ./bench/cmd/hotprofile)'

## bench: the tables of the six gradient kernels against hand-written Go
## (time and ratios over interleaved rounds, allocations, memory), then
## every Go benchmark. REPORTFLAGS go to the report, e.g. a faster run:
## make bench REPORTFLAGS='-rounds 11 -mem=false'
bench:
	$(GO) run $(HOTFLAGS) ./bench/cmd/report -page bench/results/report.md $(REPORTFLAGS)
	$(GO) test $(HOTFLAGS) -run '^$$' -bench . -benchmem ./...
	$(MAKE) bench-fit

## bench-fit: fits against SciPy, side by side (bench/cmd/fitbench):
## least squares, ridge and logistic regression in x and the matrix
## factorization in U and W (k = 16) over e40r0000 and the synthetic 4M
## matrix, nablasd's L-BFGS and scipy.optimize.minimize(method='L-BFGS-B')
## over the closed forms from the same start, on one core; the rows also go
## to bench/results/fit.csv. SciPy's rows say "not installed" without it
## (make paper-deps). FITFLAGS go to the command, e.g. a shorter run:
## make bench-fit FITFLAGS='-inputs e40r0000 -max-iter 500'
FITFLAGS ?=
bench-fit:
	$(GO) run ./bench/cmd/fitbench -csv bench/results/fit.csv $(FITFLAGS)

## paper: the paper's experiments (Table 1, Figs. 11-16, two series of ours, the workloads, peak
## memory) against hand-written Go, PyTorch and SciPy: bench/results/paper.csv
## and doc/figures/*.svg|png (about 50 minutes; resumes where it stopped).
## QUICK=1: a reduced set in bench/results/quick/ (about 3 minutes).
## PAPERFLAGS go to the command (go doc ./bench/cmd/paper), e.g. -fresh.
paper:
	$(GO) run ./bench/cmd/paper $(if $(QUICK),-quick) $(PAPERFLAGS)

## paper-deps: the Python peers of `make paper` (Debian's PyTorch 1.13 and
## SciPy, for /usr/bin/python3). Optional: without them the peers' cells are
## recorded as "not installed" and the figures say so.
paper-deps:
	$(SUDO) apt-get update
	$(SUDO) apt-get install -y --no-install-recommends python3-torch python3-scipy

## fuzz: every fuzz target for FUZZTIME (default 60s) each.
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

clean:
	$(GO) clean -testcache
