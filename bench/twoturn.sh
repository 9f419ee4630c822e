#!/usr/bin/env bash
# Two-turn print-mode run of the real binary against the fake provider:
# wall time, peak RSS, start to first request, first request size, each
# against a bare Go client measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Static build, as the README installs it (see docs/performance.md).
CGO_ENABLED=${CGO_ENABLED:-0} go build -o "$out/wisp" ./cmd/wisp
go build -o "$out/twoturn" ./bench/twoturn
"$out/twoturn" -wisp "$out/wisp" -n "${RUNS:-20}"
