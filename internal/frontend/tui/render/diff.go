package render

import "strings"

// diffContext is how many unchanged lines a diff keeps around a change.
const diffContext = 2

// maxDiffCells bounds the table the line diff fills; larger texts are
// shown as all old lines out and all new lines in.
const maxDiffCells = 1 << 20

// Diff is the unified diff of old to new, one styled line each: "-"
// lines removed, "+" lines added, " " context, "⋯" skipped runs.
func Diff(old, new string, st *Styles) []string {
	a, b := splitLines(old), splitLines(new)
	ops := lineOps(a, b)
	var out []string
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		if op.kind != ' ' {
			switch op.kind {
			case '-':
				out = append(out, st.Del.Render("- "+op.text))
			case '+':
				out = append(out, st.Add.Render("+ "+op.text))
			}
			continue
		}
		// An unchanged line is kept only near a change.
		if near(ops, i) {
			out = append(out, st.Faint.Render("  "+op.text))
		} else if len(out) == 0 || out[len(out)-1] != st.Hunk.Render("  ⋯") {
			out = append(out, st.Hunk.Render("  ⋯"))
		}
	}
	return out
}

func near(ops []lineOp, i int) bool {
	for j := max(0, i-diffContext); j <= min(len(ops)-1, i+diffContext); j++ {
		if ops[j].kind != ' ' {
			return true
		}
	}
	return false
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type lineOp struct {
	kind byte // ' ', '-', '+'
	text string
}

// lineOps is an edit script from a to b through their longest common
// subsequence of lines.
func lineOps(a, b []string) []lineOp {
	// Common head and tail cost nothing to find and shrink the table.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []lineOp
	for _, l := range a[:pre] {
		ops = append(ops, lineOp{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		for _, l := range ma {
			ops = append(ops, lineOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, lineOp{'+', l})
		}
	} else {
		ops = append(ops, lcsOps(ma, mb)...)
	}
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

func lcsOps(a, b []string) []lineOp {
	n, m := len(a), len(b)
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i]})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			ops = append(ops, lineOp{'-', a[i]})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, lineOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, lineOp{'+', b[j]})
	}
	return ops
}
