package shell

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// Leaves for the property test: commands that only read, and commands
// that write, run code, reach the network or destroy.
var (
	safeLeaves = []string{
		"ls -la", "cat README.md", "git status", "grep -n foo main.go", "echo hi", "pwd",
		"wc -l main.go", "git log --oneline -3", "head -5 go.mod", "true", "jq .name package.json",
		"sort names.txt", "git diff HEAD", "find . -name '*.go'", "stat go.mod",
	}
	unsafeLeaves = []string{
		// writes
		"echo hi > out.txt", "touch x", "mkdir -p d", "cp a b", "sed -i s/a/b/ f", "tee out.txt",
		"sort -o s.txt f", "mv a b", "git add -A", "git commit -m msg", "ln -s a b", "chmod +x run.sh",
		"go fmt ./...", "tar -xf a.tar", "uniq a b",
		// runs code
		"python3 -c 'print(1)'", "make", "go test ./...", "bash build.sh", "find . -exec echo {} ;",
		"xargs echo", "./run.sh", "node app.js", "npm test", "perl -e 1", "awk 'BEGIN{system(\"x\")}'",
		"frobnicate", "sh -c 'touch y'",
		// network
		"curl https://example.com", "wget https://example.com/x", "git fetch", "npm install",
		"ssh host ls", "pip install x", "git push", "scp a host:b",
		// destructive
		"rm -rf build", "rm -rf /", "git reset --hard", "kill 1234", "shred f", "rm x", "git clean -fd",
		"sudo ls", "eval ls", "source x.sh",
	}
)

// quote single-quotes s for a shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

type lineGen struct {
	r *rand.Rand
}

// line returns a random line built from leaves, whether it includes an
// unsafe leaf, and the strictest level of its unsafe leaves on their own.
func (g *lineGen) line(depth int, opts Options) (string, bool, Level) {
	if depth == 0 || g.r.Intn(10) < 3 {
		if g.r.Intn(2) == 0 {
			return safeLeaves[g.r.Intn(len(safeLeaves))], false, Safe
		}
		l := unsafeLeaves[g.r.Intn(len(unsafeLeaves))]
		return l, true, ClassifyWith(l, opts).Level
	}
	a, ua, la := g.line(depth-1, opts)
	switch g.r.Intn(19) {
	case 0, 1, 2, 3, 4, 5:
		b, ub, lb := g.line(depth-1, opts)
		op := []string{"; ", " && ", " || ", " | ", " & ", "\n", " |& "}[g.r.Intn(7)]
		return a + op + b, ua || ub, max(la, lb)
	case 6:
		return "( " + a + " )", ua, la
	case 7:
		return "{ " + a + "; }", ua, la
	case 8:
		return "echo $( " + a + " )", ua, la
	case 9:
		if strings.Contains(a, "`") {
			return "echo \"$( " + a + " )\"", ua, la
		}
		return "echo `" + a + "`", ua, la
	case 10:
		return "sh -c " + quote(a), ua, la
	case 11:
		return "if true; then " + a + "; fi", ua, la
	case 12:
		return "for i in 1 2; do " + a + "; done", ua, la
	case 13:
		return "f() { " + a + "; }; f", ua, la
	case 14:
		return "cat <( " + a + " )", ua, la
	case 15:
		return "while false; do " + a + "; done", ua, la
	case 16:
		tag := fmt.Sprintf("END%d", g.r.Intn(1e6))
		return "{ bash <<'" + tag + "'\n" + a + "\n" + tag + "\n}", ua, la
	case 17:
		return "time " + a, ua, la
	default:
		return "( ! " + a + " )", ua, la
	}
}

// TestNeverSafeWithUnsafePart: however safe and unsafe commands are
// combined, the line is never safe when any unsafe command is in it, and
// never less strict than its strictest command alone.
func TestNeverSafeWithUnsafePart(t *testing.T) {
	for _, l := range unsafeLeaves {
		if lvl := ClassifyWith(l, testOpts).Level; lvl == Safe {
			t.Fatalf("unsafe leaf %q classifies as safe", l)
		}
	}
	for _, l := range safeLeaves {
		if lvl := ClassifyWith(l, testOpts).Level; lvl != Safe {
			t.Fatalf("safe leaf %q classifies as %s", l, lvl)
		}
	}
	g := &lineGen{r: rand.New(rand.NewSource(1))}
	n := 4000
	if testing.Short() {
		n = 500
	}
	for i := 0; i < n; i++ {
		line, unsafe, floor := g.line(3, testOpts)
		v := ClassifyWith(line, testOpts)
		if unsafe && v.Level == Safe {
			t.Fatalf("line with an unsafe part is safe:\n%s\n%s", line, v.Text())
		}
		if v.Level < floor {
			t.Fatalf("line is %s, below its strictest part (%s):\n%s\n%s", v.Level, floor, line, v.Text())
		}
		if !unsafe && v.Level != Safe {
			t.Fatalf("line of safe parts is %s:\n%s\n%s", v.Level, line, v.Text())
		}
	}
}
