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

// gen is a generated line: whether it includes an unsafe leaf, the
// strictest level of its unsafe leaves on their own, and whether it uses
// only constructs of the safe grammar.
type gen struct {
	line   string
	unsafe bool
	floor  Level
	plain  bool
}

// line returns a random line built from leaves.
func (g *lineGen) line(depth int, opts Options) gen {
	if depth == 0 || g.r.Intn(10) < 3 {
		if g.r.Intn(2) == 0 {
			return gen{safeLeaves[g.r.Intn(len(safeLeaves))], false, Safe, true}
		}
		l := unsafeLeaves[g.r.Intn(len(unsafeLeaves))]
		return gen{l, true, ClassifyWith(l, opts).Level, true}
	}
	a := g.line(depth-1, opts)
	wrap := func(line string, plain bool) gen { return gen{line, a.unsafe, a.floor, a.plain && plain} }
	switch g.r.Intn(19) {
	case 0, 1, 2, 3, 4, 5:
		b := g.line(depth-1, opts)
		op := []string{"; ", " && ", " || ", " | ", " & ", "\n", " |& "}[g.r.Intn(7)]
		return gen{a.line + op + b.line, a.unsafe || b.unsafe, max(a.floor, b.floor), a.plain && b.plain && op != " & "}
	case 6:
		return wrap("( "+a.line+" )", true)
	case 7:
		return wrap("{ "+a.line+"; }", true)
	case 8:
		return wrap("echo $( "+a.line+" )", false)
	case 9:
		if strings.Contains(a.line, "`") {
			return wrap("echo \"$( "+a.line+" )\"", false)
		}
		return wrap("echo `"+a.line+"`", false)
	case 10:
		return wrap("sh -c "+quote(a.line), false)
	case 11:
		return wrap("if true; then "+a.line+"; fi", false)
	case 12:
		return wrap("for i in 1 2; do "+a.line+"; done", false)
	case 13:
		return wrap("f() { "+a.line+"; }; f", false)
	case 14:
		return wrap("cat <( "+a.line+" )", false)
	case 15:
		return wrap("while false; do "+a.line+"; done", false)
	case 16:
		tag := fmt.Sprintf("END%d", g.r.Intn(1e6))
		return wrap("{ bash <<'"+tag+"'\n"+a.line+"\n"+tag+"\n}", false)
	case 17:
		return wrap("time "+a.line, false)
	default:
		return wrap("( ! "+a.line+" )", true)
	}
}

// TestNeverSafeWithUnsafePart: however safe and unsafe commands are
// combined, the line is never safe when any unsafe command is in it, and
// never less strict than its strictest command alone; safe commands
// joined by the safe grammar stay safe, and wrapped in anything else
// (substitutions, loops, functions, nested shells) are not.
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
		l := g.line(3, testOpts)
		v := ClassifyWith(l.line, testOpts)
		if l.unsafe && v.Level == Safe {
			t.Fatalf("line with an unsafe part is safe:\n%s\n%s", l.line, v.Text())
		}
		if v.Level < l.floor {
			t.Fatalf("line is %s, below its strictest part (%s):\n%s\n%s", v.Level, l.floor, l.line, v.Text())
		}
		if !l.unsafe && l.plain && v.Level != Safe {
			t.Fatalf("line of safe parts in the safe grammar is %s:\n%s\n%s", v.Level, l.line, v.Text())
		}
		if !l.plain && v.Level == Safe {
			t.Fatalf("line outside the safe grammar is safe:\n%s\n%s", l.line, v.Text())
		}
	}
}
