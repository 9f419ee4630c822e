package difftest

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Line is one candidate line and where it came from.
type Line struct {
	Text   string
	Source string // file:line
	Family string // the corpus section it is in, if any
}

// maxLine bounds candidates: longer literals are data, not shell lines.
const maxLine = 16 << 10

// TestLiterals returns every string literal in the Go files matching
// pattern (the classifier's tests: their tables are its claims).
func TestLiterals(pattern string) ([]Line, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("difftest: list %s: %w", pattern, err)
	}
	sort.Strings(files)
	var out []Line
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("difftest: parse %s: %w", f, err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || strings.TrimSpace(s) == "" || len(s) > maxLine {
				return true
			}
			pos := fset.Position(lit.Pos())
			out = append(out, Line{Text: s, Source: fmt.Sprintf("%s:%d", filepath.Base(f), pos.Line)})
			return true
		})
	}
	return out, nil
}

// FuzzCorpus returns the string values in a Go fuzz corpus folder
// (testdata/fuzz), every file in the "go test fuzz v1" format. A missing
// folder holds nothing.
func FuzzCorpus(dir string) ([]Line, error) {
	var out []Line
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && os.IsNotExist(err) {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		vals, err := decodeFuzzFile(string(b))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, v := range vals {
			out = append(out, Line{Text: v, Source: filepath.Base(filepath.Dir(p)) + "/" + d.Name()})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("difftest: read fuzz corpus: %w", err)
	}
	return out, nil
}

// decodeFuzzFile reads the string and []byte values of one corpus file.
func decodeFuzzFile(s string) ([]string, error) {
	lines := strings.Split(s, "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "go test fuzz v1" {
		return nil, fmt.Errorf("not a go test fuzz v1 file")
	}
	var out []string
	for _, ln := range lines[1:] {
		ln = strings.TrimSpace(ln)
		var body string
		switch {
		case strings.HasPrefix(ln, "string(") && strings.HasSuffix(ln, ")"):
			body = ln[len("string(") : len(ln)-1]
		case strings.HasPrefix(ln, "[]byte(") && strings.HasSuffix(ln, ")"):
			body = ln[len("[]byte(") : len(ln)-1]
		default:
			continue // other types, blank lines
		}
		v, err := strconv.Unquote(body)
		if err != nil {
			return nil, fmt.Errorf("decode %s: %w", ln, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ReadCorpus reads a corpus file: one line per entry. Blank lines and
// lines starting with "# " are comments, except "## " which names the
// family of the entries after it. An entry starting with "q:" is a Go
// quoted string, for lines holding newlines or control characters:
//
//	q:"ls # note \\\nrm -rf x"
func ReadCorpus(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("difftest: read corpus: %w", err)
	}
	defer f.Close()
	var out []Line
	family := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine*2)
	for n := 1; sc.Scan(); n++ {
		ln := sc.Text()
		switch {
		case strings.HasPrefix(ln, "## "):
			family = strings.TrimSpace(ln[3:])
			continue
		case strings.TrimSpace(ln) == "" || strings.HasPrefix(ln, "# ") || ln == "#":
			continue
		case strings.HasPrefix(ln, "q:"):
			v, err := strconv.Unquote(ln[2:])
			if err != nil {
				return nil, fmt.Errorf("difftest: %s:%d: bad quoted entry: %w", path, n, err)
			}
			ln = v
		}
		out = append(out, Line{Text: ln, Source: fmt.Sprintf("%s:%d", filepath.Base(path), n), Family: family})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("difftest: read corpus: %w", err)
	}
	return out, nil
}

// Unique drops later duplicates of a line's text, keeping the first.
func Unique(lines []Line) []Line {
	seen := map[string]bool{}
	out := lines[:0:0]
	for _, l := range lines {
		if !seen[l.Text] {
			seen[l.Text] = true
			out = append(out, l)
		}
	}
	return out
}
