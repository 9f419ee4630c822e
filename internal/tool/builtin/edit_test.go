package builtin

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const goFile = `package demo

import "fmt"

func Hello() {
	fmt.Println("hello")
}

func Bye() {
	fmt.Println("bye")
}
`

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		content string
		args    string
		want    string // file afterwards; "" keeps content
		result  string // exact result, or a prefix when wantErr
		wantErr bool
	}{
		{
			name: "single", content: goFile,
			args: `{"path":"f.go","old_text":"\tfmt.Println(\"bye\")","new_text":"\tfmt.Println(\"goodbye\")"}`,
			want: strings.Replace(goFile, `"bye"`, `"goodbye"`, 1),
			result: "edited f.go (1 replacement)\n--- a/f.go\n+++ b/f.go\n@@ -7,5 +7,5 @@\n }\n \n func Bye() {\n" +
				"-\tfmt.Println(\"bye\")\n+\tfmt.Println(\"goodbye\")\n }\n",
		},
		{
			name: "multi edits in one call", content: goFile,
			args: `{"path":"f.go","edits":[{"old_text":"\"bye\"","new_text":"\"ciao\""},{"old_text":"\"hello\"","new_text":"\"hi\""}]}`,
			want: strings.Replace(strings.Replace(goFile, `"bye"`, `"ciao"`, 1), `"hello"`, `"hi"`, 1),
			result: "edited f.go (2 replacements)\n--- a/f.go\n+++ b/f.go\n@@ -3,9 +3,9 @@\n import \"fmt\"\n \n func Hello() {\n" +
				"-\tfmt.Println(\"hello\")\n+\tfmt.Println(\"hi\")\n }\n \n func Bye() {\n-\tfmt.Println(\"bye\")\n+\tfmt.Println(\"ciao\")\n }\n",
		},
		{
			name: "zero matches shows nearest lines", content: goFile,
			args:    `{"path":"f.go","old_text":"func Bye() {\n    fmt.Println(\"bye\")\n}","new_text":""}`,
			wantErr: true,
			result: "error: old_text not found in f.go. The most similar lines (9-11, 100% alike) differ only in indentation or spaces:\n" +
				"     9\tfunc Bye() {\n    10\t\tfmt.Println(\"bye\")\n    11\t}\nCopy old_text exactly",
		},
		{
			name: "zero matches, typo", content: goFile,
			args:    `{"path":"f.go","old_text":"fmt.Printn(\"hello\")","new_text":""}`,
			wantErr: true,
			result:  "error: old_text not found in f.go. The most similar line (6, 92% alike):\n     6\t\tfmt.Println(\"hello\")\n",
		},
		{
			name: "zero matches, nothing alike", content: goFile,
			args:    `{"path":"f.go","old_text":"zzzz qqqq","new_text":""}`,
			wantErr: true,
			result:  "error: old_text not found in f.go. No similar lines found; read the file to see its current text.",
		},
		{
			name: "two matches", content: goFile,
			args:    `{"path":"f.go","old_text":"fmt.Println","new_text":"log.Println"}`,
			wantErr: true,
			result:  "error: old_text matches 2 times in f.go (lines 6, 10); add surrounding lines so it matches exactly once",
		},
		{
			name: "multi edit is all or nothing", content: goFile,
			args:    `{"path":"f.go","edits":[{"old_text":"\"hello\"","new_text":"\"hi\""},{"old_text":"\"nope\"","new_text":"x"}]}`,
			wantErr: true,
			result:  "error: edits[1].old_text not found in f.go.",
		},
		{
			name: "overlapping edits", content: goFile,
			args:    `{"path":"f.go","edits":[{"old_text":"func Hello() {","new_text":"x"},{"old_text":"Hello() {\n\tfmt","new_text":"y"}]}`,
			wantErr: true,
			result:  "error: edits[0] and edits[1] overlap; merge them into one",
		},
		{
			name: "no change", content: goFile,
			args:    `{"path":"f.go","old_text":"\"bye\"","new_text":"\"bye\""}`,
			wantErr: true,
			result:  "error: the edit changes nothing",
		},
		{
			name: "crlf kept", content: "a\r\nb\r\nc\r\n",
			args:   `{"path":"f.go","old_text":"b\nc","new_text":"B\nC\nD"}`,
			want:   "a\r\nB\r\nC\r\nD\r\n",
			result: "edited f.go (1 replacement)\n--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,4 @@\n a\n-b\n-c\n+B\n+C\n+D\n",
		},
		{
			name: "crlf old_text on crlf file", content: "a\r\nb\r\n",
			args: `{"path":"f.go","old_text":"a\r\nb","new_text":"x"}`,
			want: "x\r\n",
		},
		{
			name: "bom kept", content: "\xEF\xBB\xBFname = 1\n",
			args: `{"path":"f.go","old_text":"name = 1","new_text":"name = 2"}`,
			want: "\xEF\xBB\xBFname = 2\n",
		},
		{
			name: "unicode", content: "héllo wörld\n",
			args: `{"path":"f.go","old_text":"wörld","new_text":"世界"}`,
			want: "héllo 世界\n",
		},
		{
			name: "delete lines", content: "a\nb\nc\n",
			args:   `{"path":"f.go","old_text":"b\n","new_text":""}`,
			want:   "a\nc\n",
			result: "edited f.go (1 replacement)\n--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,2 @@\n a\n-b\n c\n",
		},
		{
			name: "join lines", content: "a\nb\nc\n",
			args:   `{"path":"f.go","old_text":"a\n","new_text":"a"}`,
			want:   "ab\nc\n",
			result: "edited f.go (1 replacement)\n--- a/f.go\n+++ b/f.go\n@@ -1,3 +1,2 @@\n-a\n-b\n+ab\n c\n",
		},
		{
			name: "no newline at end", content: "a\nb",
			args:   `{"path":"f.go","old_text":"b","new_text":"c"}`,
			want:   "a\nc",
			result: "edited f.go (1 replacement)\n--- a/f.go\n+++ b/f.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
		{
			name: "binary refused", content: "a\x00b",
			args:    `{"path":"f.go","old_text":"a","new_text":"c"}`,
			wantErr: true,
			result:  "error: f.go looks like a binary file (it contains NUL bytes); edit changes text only",
		},
		{
			name: "missing file", content: "x",
			args:    `{"path":"nope.go","old_text":"a","new_text":"c"}`,
			wantErr: true,
			result:  "error: no such file or folder: nope.go",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{"f.go": tc.content})
			res := callTool(t, Edit(), env, tc.args)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			switch {
			case tc.wantErr && !strings.HasPrefix(res.Content, tc.result):
				t.Fatalf("got\n%s\nwant prefix\n%s", res.Content, tc.result)
			case !tc.wantErr && tc.result != "" && res.Content != tc.result:
				t.Fatalf("got\n%q\nwant\n%q", res.Content, tc.result)
			}
			want := tc.want
			if want == "" {
				want = tc.content
			}
			if got := readBack(t, root, "f.go"); got != want {
				t.Fatalf("file holds %q, want %q", got, want)
			}
		})
	}
}

// TestEditDiffApplies feeds the diff edit returns to patch(1): applied to
// the old file it must give the new one, for a spread of edit shapes.
func TestEditDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch not installed")
	}
	var long strings.Builder
	for i := range 60 {
		fmt.Fprintf(&long, "line %d%s\n", i, strings.Repeat("!", i%7))
	}
	base := long.String()
	tests := []struct {
		name  string
		text  string
		edits [][2]string
	}{
		{"far apart", base, [][2]string{{"line 0\n", "first\n"}, {"line 22!\n", ""}, {"line 59!!!\n", "z1\nz2\n"}}},
		{"close together", base, [][2]string{{"line 30!!", "c"}, {"line 34!!!!!!", "e\ne"}}},
		{"first and last", base, [][2]string{{"line 0\n", ""}, {"line 59!!!\n", "end"}}},
		{"same line twice", "one two three\nfour\n", [][2]string{{"one", "1"}, {"three", "3"}}},
		{"insert at start", "b\nc\n", [][2]string{{"b\n", "a\nb\n"}}},
		{"append at end no newline", "a\nb", [][2]string{{"b", "b\nc"}}},
		{"join across edits", "a\nb\nc\nd\n", [][2]string{{"a\n", "a"}, {"c\n", "c"}}},
		{"everything", "x\ny\n", [][2]string{{"x\ny\n", "z\n"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{"f.txt": tc.text})
			var pairs []map[string]string
			for _, e := range tc.edits {
				pairs = append(pairs, map[string]string{"old_text": e[0], "new_text": e[1]})
			}
			raw, _ := json.Marshal(map[string]any{"path": "f.txt", "edits": pairs})
			res := callTool(t, Edit(), env, string(raw))
			if res.IsError {
				t.Fatal(res.Content)
			}
			diff := res.Content[strings.Index(res.Content, "\n")+1:]
			orig := filepath.Join(t.TempDir(), "orig.txt")
			if err := os.WriteFile(orig, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("patch", "--quiet", "--force", orig)
			cmd.Stdin = strings.NewReader(diff)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("patch: %v\n%s\ndiff:\n%s", err, out, diff)
			}
			if got, want := readBack(t, filepath.Dir(orig), "orig.txt"), readBack(t, root, "f.txt"); got != want {
				t.Fatalf("patched %q, edited %q\ndiff:\n%s", got, want, diff)
			}
		})
	}
}
