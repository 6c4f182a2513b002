#!/usr/bin/env bash
# Runs every fuzz target of the packages given (default ./...) for FUZZTIME
# (default 60s) each.
#
# A target fails when go test fails with a failing input written to its
# testdata/fuzz/TARGET corpus, or for any reason other than the one below.
# Go 1.26's fuzz coordinator can end a duration-limited run with a bare
# "context deadline exceeded" and no input (golang/go#75804, fixed in Go
# 1.27): that is reported as a warning, not a failure.
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
failed=0
for pkg in $($GO list "${@:-./...}"); do
  dir=$($GO list -f '{{.Dir}}' "$pkg")
  for target in $($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $target"
    corpus="$dir/testdata/fuzz/$target"
    before=$(ls "$corpus" 2>/dev/null | sort || true)
    out=$(mktemp)
    if $GO test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1 | tee "$out"; then
      rm -f "$out"
      continue
    fi
    after=$(ls "$corpus" 2>/dev/null | sort || true)
    if [ "$before" = "$after" ] && grep -q 'context deadline exceeded' "$out"; then
      echo "warning: $target: Go's fuzz coordinator stopped with 'context deadline exceeded' and wrote no failing input (golang/go#75804); not a failure"
    else
      echo "FAIL: $pkg $target (its failing input, if any, is in $corpus)" >&2
      failed=1
    fi
    rm -f "$out"
  done
done
exit $failed
