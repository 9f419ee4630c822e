package custom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// fuzzTemplate puts string placeholders in every kind of place a template
// may: arguments, after --, a pipeline, a list, redirection targets and
// a here-string.
const fuzzTemplate = `printf '%s\n' {a} {b} | grep -c -- {a} > {b}; cat <<< {b} 2>>{a} && echo ${HOME} {a}`

// shapeOf lists the node types of a parsed line in walk order. A word
// that isSlot says is a placeholder's is listed as "slot" and not
// descended into; the slots are returned in order.
func shapeOf(f *syntax.File, isSlot func(i int, w *syntax.Word) bool) ([]string, []*syntax.Word) {
	var shape []string
	var slots []*syntax.Word
	words := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			return true
		}
		if w, ok := n.(*syntax.Word); ok {
			i := words
			words++
			if isSlot(i, w) {
				shape = append(shape, "slot")
				slots = append(slots, w)
				return false
			}
		}
		shape = append(shape, fmt.Sprintf("%T", n))
		if l, ok := n.(*syntax.Lit); ok {
			shape = append(shape, l.Value)
		}
		return true
	})
	return shape, slots
}

// FuzzSubstitute checks that, for any string values, the substituted line
// parses into exactly the template's structure, each value standing as
// one word of single quotes and escaped quotes whose shell value is the
// value itself.
func FuzzSubstitute(f *testing.F) {
	for _, s := range []string{
		"", "it's", "'", "''", `\`, `\'`, "$(rm -rf ~)", "`id`", "a\nb", "a\n'b", "{a}", "{b}",
		"x; touch pwned", "-rf", "--help", "héllo 世界", "EOF\nrm -rf ~\nEOF", `"; rm "`, "a' 'b",
		"$HOME", "${HOME}", "*", "~", "#", "!", "&&", "|", ">", "<(id)", "\t", "\r\n", "\x01",
	} {
		f.Add(s, "b")
		f.Add("a", s)
	}
	tools, err := Parse(json.RawMessage(def(`{"a":{"type":"string"},"b":{"type":"string"}}`, fuzzTemplate)), builtinNames, Options{})
	if err != nil {
		f.Fatal(err)
	}
	tl := tools[0]
	phs := findPlaceholders(fuzzTemplate)
	marked, markers := markTemplate(fuzzTemplate, phs)
	tf, err := parseShell(marked)
	if err != nil {
		f.Fatal(err)
	}
	// Which placeholder each marker word stands for, by word index.
	slotName := map[int]string{}
	wantShape, _ := shapeOf(tf, func(i int, w *syntax.Word) bool {
		if len(w.Parts) != 1 {
			return false
		}
		l, ok := w.Parts[0].(*syntax.Lit)
		if !ok {
			return false
		}
		for k, m := range markers {
			if l.Value == m {
				slotName[i] = phs[k].name
				return true
			}
		}
		return false
	})
	if len(slotName) != len(phs) {
		f.Fatalf("found %d of %d placeholders in the template's parse", len(slotName), len(phs))
	}

	f.Fuzz(func(t *testing.T, a, b string) {
		args, err := json.Marshal(map[string]string{"a": a, "b": b})
		if err != nil {
			t.Skip()
		}
		// What the tool receives is the JSON round trip of the values.
		var values map[string]string
		if err := json.Unmarshal(args, &values); err != nil {
			t.Fatal(err)
		}
		line, err := tl.Substitute(args)
		if strings.ContainsRune(values["a"], 0) || strings.ContainsRune(values["b"], 0) {
			if err == nil {
				t.Fatalf("a value with a NUL was substituted: %q", line)
			}
			return
		}
		if err != nil && strings.HasSuffix(err.Error(), "may not start with '-'") {
			name := strings.Fields(err.Error())[2]
			if !strings.HasPrefix(values[name], "-") {
				t.Fatalf("refused %s=%q as an option", name, values[name])
			}
			return
		}
		if err != nil {
			t.Fatalf("Substitute: %v", err)
		}
		lf, err := parseShell(line)
		if err != nil {
			t.Fatalf("the substituted line does not parse: %v\n%s", err, line)
		}
		var slotNames []string
		gotShape, slots := shapeOf(lf, func(i int, _ *syntax.Word) bool {
			name, ok := slotName[i]
			if ok {
				slotNames = append(slotNames, name)
			}
			return ok
		})
		if strings.Join(gotShape, "\x00") != strings.Join(wantShape, "\x00") {
			t.Fatalf("the line's structure differs from the template's\nline: %s\n got: %q\nwant: %q", line, gotShape, wantShape)
		}
		for i, w := range slots {
			// The parser reads \r\n as \n even inside quotes, where a
			// shell keeps both bytes (TestSubstituteRuns shows it does).
			want := strings.ReplaceAll(values[slotNames[i]], "\r\n", "\n")
			for _, p := range w.Parts {
				switch p := p.(type) {
				case *syntax.SglQuoted:
					if p.Dollar {
						t.Fatalf("slot %d is $'' quoted: %s", i, line)
					}
				case *syntax.Lit:
					if p.Value != `\'` {
						t.Fatalf("slot %d holds unquoted text %q: %s", i, p.Value, line)
					}
				default:
					t.Fatalf("slot %d holds a %T: %s", i, p, line)
				}
			}
			// As the shell expands an argument; without a ReadDir it
			// never globs, which the quotes forbid anyway.
			fields, err := expand.Fields(nil, w)
			if err != nil {
				t.Fatalf("slot %d does not expand: %v", i, err)
			}
			if len(fields) != 1 {
				t.Fatalf("slot %d expands to %d fields %q: %s", i, len(fields), fields, line)
			}
			if got := fields[0]; got != want {
				var buf bytes.Buffer
				_ = syntax.NewPrinter().Print(&buf, w)
				t.Fatalf("slot %d is %q (%s), want %q", i, got, buf.String(), want)
			}
		}
	})
}
