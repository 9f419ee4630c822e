#!/usr/bin/env bash
# The sandbox's added start-up cost per command: the real wisp binary
# re-executed as the Landlock helper running `true`, side by side with a
# plain `bash --noprofile --norc -c true` (the unsandboxed path), in the
# same run.
#
# Usage: bench/sandbox.sh [RUNS]   (default 200)
set -euo pipefail
export GOTOOLCHAIN=local
runs=${1:-200}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Static build, as the README installs it (see docs/performance.md).
CGO_ENABLED=${CGO_ENABLED:-0} go build -o "$out/wisp" ./cmd/wisp
work=$(mktemp -d)
cfg=$(printf '{"enabled":true,"workdir":"%s","allow_network":true,"wisp_home":"%s/.wisp-bench","temp_dir":"%s"}' "$work" "$out" "$out")

time_loop() { # time_loop CMD...: milliseconds per run
	local t0 t1
	t0=$(date +%s%N)
	for ((i = 0; i < runs; i++)); do "$@" >/dev/null; done
	t1=$(date +%s%N)
	echo "scale=3; ($t1 - $t0) / 1000000 / $runs" | bc
}
# Warm up both paths.
"$out/wisp" __wisp_sandbox "$cfg" true
bash --noprofile --norc -c true
plain=$(time_loop bash --noprofile --norc -c true)
boxed=$(time_loop "$out/wisp" __wisp_sandbox "$cfg" true)
echo "per command, $runs runs:"
echo "  plain bash -c true:           ${plain} ms"
echo "  wisp sandbox helper + true:   ${boxed} ms"
echo "  added by the sandbox:         $(echo "scale=3; $boxed - $plain" | bc) ms  (ratio $(echo "scale=2; $boxed / $plain" | bc)x)"
rm -rf "$work"
