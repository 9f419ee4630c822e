#!/usr/bin/env bash
# The sandbox's added start-up cost per command, side by side in one run:
#   plain      bash --noprofile --norc -c true (the unsandboxed path)
#   baseline   the sandbox helper of BASELINE_REV (default b63acd9, the
#              last one without namespaces: Landlock + seccomp, then exec)
#   approved   this tree's helper, approved profile (namespaces, cgroup or
#              subreaper containment, no capabilities)
#   auto-run   this tree's helper, auto-run profile (also a network
#              namespace, hidden secrets)
# each running `true`, with ratios against plain bash and the baseline.
#
# Usage: bench/sandbox.sh [RUNS]   (default 200; BASELINE_REV=rev to change
# the baseline, BASELINE_REV= to skip it)
set -euo pipefail
export GOTOOLCHAIN=local
runs=${1:-200}
baseline_rev=${BASELINE_REV-b63acd9}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$out" "$work"' EXIT
# Static builds, as the README installs wisp (see docs/performance.md).
export CGO_ENABLED=${CGO_ENABLED:-0}
go build -o "$out/wisp" ./cmd/wisp
if [ -n "$baseline_rev" ]; then
	mkdir "$out/base"
	git archive "$baseline_rev" | tar -x -C "$out/base"
	(cd "$out/base" && go build -o "$out/wisp-base" ./cmd/wisp)
fi
cfg() { # cfg AUTO_RUN
	printf '{"enabled":true,"workdir":"%s","allow_network":true,"wisp_home":"%s/.wisp-bench","temp_dir":"%s","auto_run":%s}' "$work" "$out" "$out" "$1"
}
approved=$(cfg false)
autorun=$(cfg true)

time_loop() { # time_loop CMD...: milliseconds per run
	local t0 t1
	t0=$(date +%s%N)
	for ((i = 0; i < runs; i++)); do "$@" >/dev/null; done
	t1=$(date +%s%N)
	echo "scale=3; ($t1 - $t0) / 1000000 / $runs" | bc
}
ratio() { echo "scale=2; $1 / $2" | bc; }

# Warm up every path (and fail early if one cannot run here).
bash --noprofile --norc -c true
"$out/wisp" __wisp_sandbox "$approved" true
"$out/wisp" __wisp_sandbox "$autorun" true
[ -n "$baseline_rev" ] && "$out/wisp-base" __wisp_sandbox "$approved" true

plain=$(time_loop bash --noprofile --norc -c true)
base=""
[ -n "$baseline_rev" ] && base=$(time_loop "$out/wisp-base" __wisp_sandbox "$approved" true)
appr=$(time_loop "$out/wisp" __wisp_sandbox "$approved" true)
auto=$(time_loop "$out/wisp" __wisp_sandbox "$autorun" true)

echo "per command, $runs runs each, same machine, same run:"
printf '  %-34s %8s ms\n' "plain bash -c true" "$plain"
if [ -n "$base" ]; then
	printf '  %-34s %8s ms  (%sx plain)\n' "baseline sandbox ($baseline_rev)" "$base" "$(ratio "$base" "$plain")"
fi
for row in "approved profile + containment:$appr" "auto-run profile + containment:$auto"; do
	name=${row%%:*} ms=${row##*:}
	extra=""
	[ -n "$base" ] && extra=", $(ratio "$ms" "$base")x baseline, +$(echo "scale=3; $ms - $base" | bc) ms"
	printf '  %-34s %8s ms  (%sx plain%s)\n' "$name" "$ms" "$(ratio "$ms" "$plain")" "$extra"
done
