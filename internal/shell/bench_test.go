package shell

import (
	"testing"
)

// benchCorpus is what an agent typically runs.
var benchCorpus = []string{
	"ls -la",
	"cat go.mod",
	"git status",
	"git diff --stat",
	"git log --oneline -10",
	"go build ./... && go vet ./...",
	"go test ./internal/... 2>&1 | tail -30",
	`grep -rn "func Classify" --include=*.go .`,
	"rg -n 'TODO|FIXME' src/",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l | sort -n | tail",
	"npm install && npm run build",
	"python3 -m pytest -x -q tests/",
	"sed -n '100,160p' internal/agent/loop.go",
	"cat > /tmp/out.json <<'EOF'\n{\"a\": 1}\nEOF",
	"mkdir -p build && cd build && cmake .. && make -j4",
	"git add -A && git commit -m 'fix: handle empty input' && git push origin HEAD",
	"curl -fsSL https://example.com/api/v1/items | jq '.items[] | .name'",
	"docker compose up -d --build",
	`for f in $(git ls-files '*.go'); do gofmt -l "$f"; done`,
	"head -50 README.md; wc -l README.md",
}

// corpus is the benchmark's lines: the agent commands above and the
// table's lines, less the few that exist to blow up (nested quoting
// kilobytes long), which would measure the parser on giant input rather
// than the classifier on lines agents run.
func corpus() []string {
	lines := append([]string{}, benchCorpus...)
	for _, tc := range lineTable {
		if len(tc.line) <= 1024 {
			lines = append(lines, tc.line)
		}
	}
	return lines
}

func BenchmarkClassify(b *testing.B) {
	lines := corpus()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ClassifyWith(lines[i%len(lines)], testOpts)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkClassifyParallel(b *testing.B) {
	lines := corpus()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			ClassifyWith(lines[i%len(lines)], testOpts)
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkCacheHit(b *testing.B) {
	lines := benchCorpus
	c := NewCache(DefaultCacheSize)
	for _, l := range lines {
		c.Classify(l, "/work/proj")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Classify(lines[i%len(lines)], "/work/proj")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
