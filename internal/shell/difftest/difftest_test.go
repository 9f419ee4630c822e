package difftest

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
)

func TestMain(m *testing.M) {
	// The harness runs every line through this binary acting as wisp's
	// sandbox helper.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(HelperMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// newHarness sets up a harness whose runs use this test binary as the
// sandbox helper. Under CI a missing Landlock fails the test: the lines
// must run confined there.
func newHarness(tb testing.TB) *Harness {
	tb.Helper()
	if abi, ok := sandbox.Available(); !ok {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("Landlock is unavailable (ABI %d): the differential runs would be unconfined", abi)
		}
		tb.Logf("Landlock is unavailable (ABI %d): lines run unconfined, in empty folders with shims only", abi)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	h, err := New(Config{Helper: self, Slots: 2 * runtime.GOMAXPROCS(0), Timeout: 3 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := h.Close(); err != nil {
			tb.Error(err)
		}
	})
	return h
}

// candidates gathers every line the classifier is checked on: the string
// literals of its tests, its fuzz corpus and this package's corpus.
func candidates(t *testing.T) []Line {
	t.Helper()
	lits, err := TestLiterals("../*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(lits) < 100 {
		t.Fatalf("only %d string literals in the classifier's tests: wrong folder?", len(lits))
	}
	fuzz, err := FuzzCorpus("../testdata/fuzz")
	if err != nil {
		t.Fatal(err)
	}
	own, err := ReadCorpus("testdata/lines.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(own) < 300 {
		t.Fatalf("testdata/lines.txt holds %d lines, want at least 300", len(own))
	}
	return Unique(slices.Concat(own, lits, fuzz))
}

// outcome is one candidate's report.
type outcome struct {
	line   Line
	report Report
	ran    bool
	err    error
}

// checkAll classifies every line and runs the safe ones, Slots at a time.
func checkAll(ctx context.Context, h *Harness, c Classifier, lines []Line) []outcome {
	out := make([]outcome, len(lines))
	next := make(chan int)
	var wg sync.WaitGroup
	for range h.cfg.Slots {
		wg.Go(func() {
			for i := range next {
				r, ran, err := h.Classify(ctx, c, lines[i].Text)
				out[i] = outcome{line: lines[i], report: r, ran: ran, err: err}
			}
		})
	}
	for i := range lines {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// TestDifferential runs every safe-rated candidate in bash and fails on
// anything bash ran or wrote that the classifier did not name.
func TestDifferential(t *testing.T) {
	lines := candidates(t)
	h := newHarness(t)
	start := time.Now()
	results := checkAll(t.Context(), h, shell.ClassifyWith, lines)
	elapsed := time.Since(start)

	ran := 0
	byFamily := map[string][]string{}
	for _, o := range results {
		if o.err != nil {
			t.Errorf("%s: %q: %v", o.line.Source, o.line.Text, o.err)
			continue
		}
		if !o.ran {
			continue
		}
		ran++
		if o.report.Failed() {
			t.Errorf("%s: %s", o.line.Source, o.report)
			fam := o.line.Family
			if fam == "" {
				fam = "the classifier's own tests and fuzz corpus"
			}
			byFamily[fam] = append(byFamily[fam], fmt.Sprintf("%q (%s)", o.line.Text, o.line.Source))
		}
	}
	t.Logf("%d candidate lines, %d rated safe and run in bash, in %v", len(lines), ran, elapsed.Round(time.Millisecond))
	if len(byFamily) > 0 {
		t.Errorf("lines rated safe that bash ran differently, by family:\n%s", listFamilies(byFamily))
	}
	if ran == 0 {
		t.Error("no candidate line was rated safe: the harness checked nothing")
	}
}

func listFamilies(m map[string][]string) string {
	fams := make([]string, 0, len(m))
	for f := range m {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	var b strings.Builder
	for _, f := range fams {
		fmt.Fprintf(&b, "  %s (%d):\n", f, len(m[f]))
		for _, l := range m[f] {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	return b.String()
}

// FuzzDifferential classifies each input and, when it is rated safe, runs
// it through the same comparison. Plain go test runs only the seeds.
func FuzzDifferential(f *testing.F) {
	for _, s := range []string{
		"echo hi | grep h",
		"ls -la; cat README.md",
		"ls # note \\\nid",
		"echo \"$(ls)\"",
		"cat <<EOF\n$(id)\nEOF",
		"shopt -s extglob\nls @(a|$(id))",
		"x='a[$(id)]'; echo $((x))",
	} {
		f.Add(s)
	}
	h := newHarness(f)
	f.Fuzz(func(t *testing.T, line string) {
		r, ran, err := h.Classify(t.Context(), shell.ClassifyWith, line)
		if err != nil {
			t.Fatal(err)
		}
		if ran && r.Failed() {
			t.Fatal(r)
		}
	})
}
