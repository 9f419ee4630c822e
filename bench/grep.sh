#!/usr/bin/env bash
# Times wisp's built-in grep tool against GNU `grep -rn` over the Go
# standard library sources ($(go env GOROOT)/src), side by side.
#
# wisp's grep stops at 100 matches, so patterns with many matches let it
# stop early; every kind of pattern is therefore also timed with one that
# has few matches, where both tools must read the whole tree.
#
# Each tool runs RUNS times per pattern, alternating, after one warm-up
# run each (so both see a warm page cache); the best wall time counts,
# as the machine may be shared. ratio = wisp / grep: below 1 is faster.
#
# Usage: bench/grep.sh [RUNS]   (default 5)
set -euo pipefail
export GOTOOLCHAIN=local

runs=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
src=$(go env GOROOT)/src
driver=$(mktemp -d)/grepdriver
trap 'rm -rf "$(dirname "$driver")"' EXIT
(cd "$here/.." && go build -o "$driver" ./bench/grepdriver)

# best_ms CMD...: the best wall time of $runs runs, in milliseconds.
now_ns() { date +%s%N; }
time_ms() {
	local t0 t1
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 || true
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000000))
}

# name | wisp flags | grep flags | pattern
cases=(
	"literal, few matches|||func NewReader"
	"regexp, capped|||func \\w+Reader\\("
	"regexp, few matches|||func New\\w+Reader\\(r io\\.Reader\\)"
	"ignore case, capped|-i|-i|newreader"
	"ignore case, few matches|-i|-i|func newreadersize"
	"no match at all|||xyzzyplugh"
)

printf 'GNU %s; %s files, %s in %s; %s CPUs; best of %s runs\n' \
	"$(grep --version | head -1)" "$(find "$src" -type f | wc -l)" "$(du -sh "$src" | cut -f1)" "$src" "$(nproc)" "$runs"
printf '%-26s %8s %8s %8s %8s %7s\n' case matches grep_ms wisp_ms shown ratio
for c in "${cases[@]}"; do
	IFS='|' read -r name wflag gflag pattern <<<"$c"
	# Warm-up, and the counts: all matching lines for grep, what wisp shows.
	gcount=$(grep -rn -E $gflag -e "$pattern" "$src" | grep -vc '^Binary file' || true)
	wcount=$("$driver" -root "$src" $wflag -pattern "$pattern" | grep -vc '^\[\|^no matches' || true)
	gbest=999999 wbest=999999
	for _ in $(seq "$runs"); do
		g=$(time_ms grep -rn -E $gflag -e "$pattern" "$src")
		w=$(time_ms "$driver" -root "$src" $wflag -pattern "$pattern")
		((g < gbest)) && gbest=$g
		((w < wbest)) && wbest=$w
	done
	ratio=$(awk -v w="$wbest" -v g="$gbest" 'BEGIN { printf "%.2f", (g > 0 ? w / g : 0) }')
	printf '%-26s %8s %8s %8s %8s %7s\n' "$name" "$gcount" "$gbest" "$wbest" "$wcount" "$ratio"
done
