package shell

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/verdicts.golden from the classifier's current verdicts")

const goldenFile = "testdata/verdicts.golden"

// goldenVerdict is what the regression net records of one line: its
// level and reasons, and each part's program, verb and level.
type goldenVerdict struct {
	Line    string   `json:"line"`
	Level   string   `json:"level"`
	Reasons []string `json:"reasons"`
	Parts   []string `json:"parts,omitempty"`
}

func goldenOf(line string) goldenVerdict {
	v := ClassifyWith(line, testOpts)
	g := goldenVerdict{Line: line, Level: v.Level.String(), Reasons: v.Reasons}
	for _, p := range v.Parts {
		g.Parts = append(g.Parts, p.Program+" "+p.Verb+" "+p.Level.String())
	}
	return g
}

// goldenLines is every line the tests know: the line table, the
// examples of every rules table, and every string literal of the classifier's tests and of the
// differential corpus (names and reasons too, which are lines as good as
// any other).
func goldenLines(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, tc := range lineTable {
		seen[tc.line] = true
	}
	tb, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	match, notMatch := tb.Examples()
	for _, l := range append(match, notMatch...) {
		seen[l] = true
	}
	for _, ex := range append(rules.DefaultCommands().Examples(), rules.DefaultAssignments().Examples()...) {
		seen[ex.Line] = true
	}
	var files []string
	for _, glob := range []string{"*_test.go", "rules/*_test.go", "difftest/*_test.go", "difftest/corpus.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if name == "golden_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && len(s) <= 4096 {
					seen[s] = true
				}
			}
			return true
		})
	}
	lines := make([]string, 0, len(seen))
	for l := range seen {
		lines = append(lines, l)
	}
	slices.Sort(lines)
	return lines
}

// TestGoldenVerdicts fails when the verdict of any line recorded in the
// golden file changes: moving knowledge between code and tables must
// leave every verdict as it was. After a deliberate change, rerun with
// -update (which also records the tests' new lines) and review the diff.
func TestGoldenVerdicts(t *testing.T) {
	if *updateGolden {
		// Lines recorded before stay, so the net only grows.
		lines := goldenLines(t)
		if data, err := os.ReadFile(goldenFile); err == nil {
			for _, raw := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var g goldenVerdict
				if json.Unmarshal([]byte(raw), &g) == nil && !slices.Contains(lines, g.Line) {
					lines = append(lines, g.Line)
				}
			}
			slices.Sort(lines)
		}
		var buf strings.Builder
		for _, l := range lines {
			buf.WriteString(encodeGolden(t, goldenOf(l)))
		}
		if err := os.WriteFile(goldenFile, []byte(buf.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("reading %s (create it with -update): %v", goldenFile, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var g goldenVerdict
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatalf("%s: %v", goldenFile, err)
		}
		n++
		if got := strings.TrimSpace(encodeGolden(t, goldenOf(g.Line))); got != sc.Text() {
			t.Errorf("verdict changed for %q\n got: %s\nwant: %s", g.Line, got, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 2000 {
		t.Fatalf("%s holds only %d lines", goldenFile, n)
	}
}

func encodeGolden(t *testing.T, g goldenVerdict) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
