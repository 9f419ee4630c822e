package builtin

import (
	"fmt"
	"strings"
	"testing"
)

// numbered renders lines from..to the way read shows them.
func numbered(from, to int, text func(i int) string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, text(i))
	}
	return b.String()
}

func TestRead(t *testing.T) {
	lineN := func(i int) string { return fmt.Sprintf("line %d", i) }
	var many strings.Builder
	for i := 1; i <= 2500; i++ {
		many.WriteString(lineN(i) + "\n")
	}
	wide := strings.Repeat("x", 100) // 3000 lines of ~108 bytes: over 50 KB before 2000 lines
	var wideFile strings.Builder
	for i := 1; i <= 3000; i++ {
		wideFile.WriteString(wide + "\n")
	}
	longLine := strings.Repeat("é", 1500) // 3000 bytes
	root, env := fileWorkspace(t, map[string]string{
		"plain.txt":   "alpha\nbeta\n",
		"notrail.txt": "alpha\nbeta",
		"empty.txt":   "",
		"crlf.txt":    "one\r\ntwo\r\n",
		"uni.txt":     "héllo 世界 ✓\n",
		"nul.bin":     "PK\x03\x04\x00\x00data",
		"latin1.txt":  "caf\xe9\n",
		"many.txt":    many.String(),
		"wide.txt":    wideFile.String(),
		"long.txt":    "short\n" + longLine + "\nafter\n",
		"blank.txt":   "\n\n",
		"dir/":        "",
	})
	_ = root
	tests := []struct {
		name    string
		args    string
		want    string // whole content, or with wantErr the error
		wantErr bool
		check   func(t *testing.T, got string)
	}{
		{name: "plain", args: `{"path":"plain.txt"}`, want: "     1\talpha\n     2\tbeta\n"},
		{name: "no trailing newline", args: `{"path":"notrail.txt"}`, want: "     1\talpha\n     2\tbeta\n"},
		{name: "empty file", args: `{"path":"empty.txt"}`, want: "(empty.txt is empty)"},
		{name: "blank lines", args: `{"path":"blank.txt"}`, want: "     1\t\n     2\t\n"},
		{name: "crlf", args: `{"path":"crlf.txt"}`, want: "     1\tone\n     2\ttwo\n"},
		{name: "unicode", args: `{"path":"uni.txt"}`, want: "     1\théllo 世界 ✓\n"},
		{name: "absolute path inside", args: fmt.Sprintf(`{"path":%q}`, root+"/plain.txt"), want: "     1\talpha\n     2\tbeta\n"},
		{name: "binary nul", args: `{"path":"nul.bin"}`, wantErr: true,
			want: "error: nul.bin looks like a binary file (it contains NUL bytes); read shows text only"},
		{name: "binary not utf8", args: `{"path":"latin1.txt"}`, wantErr: true,
			want: "error: latin1.txt looks like a binary file (it is not valid UTF-8); read shows text only"},
		{name: "missing", args: `{"path":"nope.txt"}`, wantErr: true, want: "error: no such file or folder: nope.txt"},
		{name: "missing folder", args: `{"path":"no/such/file"}`, wantErr: true, want: "error: no such file or folder: no/such/file"},
		{name: "folder", args: `{"path":"dir"}`, wantErr: true, want: "error: dir is a folder; use ls to list it"},
		{name: "offset and limit", args: `{"path":"many.txt","offset":10,"limit":3}`,
			want: numbered(10, 12, lineN) + "[... 2488 more lines; call read with offset=13 to continue]\n"},
		{name: "offset to the end", args: `{"path":"many.txt","offset":2499}`, want: numbered(2499, 2500, lineN)},
		{name: "offset past end", args: `{"path":"plain.txt","offset":3}`, wantErr: true,
			want: "error: offset 3 is past the end of plain.txt (2 lines)"},
		{name: "2000 line cap", args: `{"path":"many.txt"}`,
			want: numbered(1, 2000, lineN) + "[... 500 more lines; call read with offset=2001 to continue]\n"},
		{name: "limit over cap", args: `{"path":"many.txt","limit":5000}`,
			check: func(t *testing.T, got string) {
				if !strings.HasSuffix(got, "[... 500 more lines; call read with offset=2001 to continue]\n") {
					t.Fatalf("tail %q", got[len(got)-100:])
				}
			}},
		{name: "50 KB cap", args: `{"path":"wide.txt"}`, check: func(t *testing.T, got string) {
			if len(got) > 51<<10 {
				t.Fatalf("%d bytes", len(got))
			}
			shown := strings.Count(got, "\t"+wide+"\n")
			want := fmt.Sprintf("[... %d more lines; call read with offset=%d to continue]\n", 3000-shown, shown+1)
			if shown >= 2000 || !strings.HasSuffix(got, want) {
				t.Fatalf("%d lines shown; tail %q", shown, got[len(got)-80:])
			}
		}},
		{name: "long line cut", args: `{"path":"long.txt"}`, check: func(t *testing.T, got string) {
			lines := strings.Split(got, "\n")
			if lines[0] != "     1\tshort" || lines[2] != "     3\tafter" {
				t.Fatalf("lines %q", lines)
			}
			want := "     2\t" + strings.Repeat("é", 1000) + " … [line cut]"
			if lines[1] != want {
				t.Fatalf("line 2 is %d bytes: %q…", len(lines[1]), lines[1][:40])
			}
			if !strings.Contains(got, "[lines longer than 2000 bytes were cut; use grep or bash to see them whole]") {
				t.Fatal("no note about the cut")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, Read(), env, tc.args)
			if res.IsError != tc.wantErr {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			if tc.check != nil {
				tc.check(t, res.Content)
				return
			}
			if res.Content != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", res.Content, tc.want)
			}
		})
	}
}

// TestReadPagesThrough reads a file by following the notes to the end and
// checks every line came exactly once.
func TestReadPagesThrough(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 4321; i++ {
		fmt.Fprintf(&b, "row %d\n", i)
	}
	_, env := fileWorkspace(t, map[string]string{"big.txt": b.String()})
	seen, offset := 0, 1
	for calls := 0; calls < 10; calls++ {
		res := callTool(t, Read(), env, fmt.Sprintf(`{"path":"big.txt","offset":%d}`, offset))
		if res.IsError {
			t.Fatal(res.Content)
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(res.Content, "\n"), "\n") {
			if strings.HasPrefix(line, "[...") {
				if _, err := fmt.Sscanf(line[strings.Index(line, "offset="):], "offset=%d", &offset); err != nil {
					t.Fatalf("note %q: %v", line, err)
				}
				continue
			}
			seen++
			if want := fmt.Sprintf("%6d\trow %d", seen, seen); line != want {
				t.Fatalf("got %q, want %q", line, want)
			}
		}
		if seen == 4321 {
			return
		}
	}
	t.Fatalf("saw %d lines", seen)
}
