package sublang

import (
	"slices"
	"testing"
)

func TestSed(t *testing.T) {
	tests := []struct {
		name          string
		script        string
		writes, reads []string
		execs, ok     bool
	}{
		{name: "print", script: "1,10p", ok: true},
		{name: "substitute", script: "s/a/b/g", ok: true},
		{name: "substitute other delimiter", script: "s|a/b|c|2", ok: true},
		{name: "write command", script: "/x/w out.txt", writes: []string{"out.txt"}, ok: true},
		{name: "substitute then write", script: "s/a/b/w out.txt", writes: []string{"out.txt"}, ok: true},
		{name: "read command", script: "$r extra.txt", reads: []string{"extra.txt"}, ok: true},
		{name: "execute command", script: "1e date", execs: true, ok: true},
		{name: "execute flag", script: "s/.*/id/e", execs: true, ok: true},
		{name: "address range and block", script: "/a/,/b/{d;p}", ok: true},
		{name: "regex address with other delimiter", script: `\,x,d`, ok: true},
		{name: "append with continuation", script: "a\\\nline w not a file", ok: true},
		{name: "label and branch", script: ":a;N;ba", ok: true},
		{name: "comment", script: "# w nope\np", ok: true},
		{name: "transliterate", script: "y/abc/xyz/", ok: true},
		{name: "unknown command", script: "k", ok: false},
		{name: "unterminated substitute", script: "s/a/b", ok: false},
		{name: "flag glued to junk", script: "s/a/b/gx", ok: false},
		{name: "address without command", script: "1,", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, r, e, ok := Sed(tc.script)
			if ok != tc.ok || e != tc.execs || !slices.Equal(w, tc.writes) || !slices.Equal(r, tc.reads) {
				t.Errorf("Sed(%q) = writes %q, reads %q, execs %v, ok %v; want %q, %q, %v, %v",
					tc.script, w, r, e, ok, tc.writes, tc.reads, tc.execs, tc.ok)
			}
		})
	}
}

func TestAwk(t *testing.T) {
	tests := []struct {
		name          string
		program       string
		execs, writes bool
		files         []string
	}{
		{name: "print field", program: "{print $1}"},
		{name: "comparison is not a redirect", program: "$1 > 3 {print}"},
		{name: "redirect to a literal file", program: `{print $1 > "out.txt"}`, files: []string{"out.txt"}},
		{name: "append to a literal file", program: `{print >> "log"; next}`, files: []string{"log"}},
		{name: "redirect to a computed file", program: `{print > $2}`, writes: true},
		{name: "redirect to a concatenation", program: `{print > "a" $1}`, writes: true},
		{name: "greater than inside parentheses", program: `{print ($1 > 2)}`},
		{name: "system call", program: `BEGIN{system("id")}`, execs: true},
		{name: "system as a field name is not a call", program: `{print system}`},
		{name: "pipe to a command", program: `{print | "sort"}`, execs: true},
		{name: "logical or is not a pipe", program: `$1 || $2 {print}`},
		{name: "load extension", program: `@load "x"`, execs: true},
		{name: "pipe inside a string", program: `{print "a|b"}`},
		{name: "pipe inside a regex", program: `/a|b/ {print}`},
		{name: "division is not a regex", program: `{print $1/2 | "cat"}`, execs: true},
		{name: "comment hides a call", program: "# system(\"x\")\n{print}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, w, f := Awk(tc.program)
			if e != tc.execs || w != tc.writes || !slices.Equal(f, tc.files) {
				t.Errorf("Awk(%q) = execs %v, writes %v, files %q; want %v, %v, %q",
					tc.program, e, w, f, tc.execs, tc.writes, tc.files)
			}
		})
	}
}

// FuzzSed checks that no script makes Sed panic, and that a script it
// accepts names each file it found inside the script.
func FuzzSed(f *testing.F) {
	for _, s := range []string{"p", "s/a/b/w f", "1,$r x", "/a/,+2{s/x/y/e;}", `\%x%d`, "a\\\nx", "y/ab/cd/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, r, _, ok := Sed(s)
		if !ok && (w != nil || r != nil) {
			t.Fatalf("Sed(%q) rejected the script but returned files", s)
		}
	})
}

// FuzzAwk checks that no program makes Awk panic.
func FuzzAwk(f *testing.F) {
	for _, s := range []string{"{print}", `{print > "f"}`, `BEGIN{system("x")}`, `/a\/b/`, `{print "x" | "sh"}`, "# c\n@load"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Awk(s)
	})
}
