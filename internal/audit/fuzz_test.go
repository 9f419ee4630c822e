package audit

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzScan feeds arbitrary bytes to the line reader: it must not panic,
// must consume exactly the complete lines, and must either decode a line
// into a valid audit line or name it in a *FormatError.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"schema":1,"id":"9c1f0e2a7b3d4c58","time":"2026-11-30T09:15:02.123Z","version":"0.2.0","pid":1,"session":"s","turn":3,"call":"c","kind":"command.outcome","details":{"line":"ls","exit_code":0}}` + "\n"))
	f.Add([]byte(`{"schema":1,"id":"a","time":"2026-11-30T09:15:02Z","kind":"prompt","details":{"text":"x"}}` + "\n" + `{"schema":1,"id":"b`))
	f.Add([]byte("\n\n  \n{}\n"))
	f.Add([]byte(`{"schema":1,"id":"a","time":"2026-11-30T09:15:02Z","kind":"x","details":[]}` + "\n"))
	f.Add([]byte(`{"schema":"1"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []Line
		consumed, lines, err := scan("fuzz", data, 0, nil, func(l Line) { got = append(got, l) })
		if consumed > len(data) || (consumed > 0 && data[consumed-1] != '\n') {
			t.Fatalf("consumed %d of %d bytes, not through a newline", consumed, len(data))
		}
		if err == nil && consumed != bytes.LastIndexByte(data, '\n')+1 {
			t.Fatalf("consumed %d, but the last newline ends at %d", consumed, bytes.LastIndexByte(data, '\n')+1)
		}
		if lines != bytes.Count(data[:consumed], []byte{'\n'}) {
			t.Fatalf("counted %d lines in %d newlines", lines, bytes.Count(data[:consumed], []byte{'\n'}))
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Line != lines || fe.Path != "fuzz" {
				t.Fatalf("error %v does not name line %d", err, lines)
			}
		}
		for _, l := range got {
			if l.Schema < 1 || l.ID == "" || l.Kind == "" || l.Time.IsZero() || len(l.Details) == 0 || l.Details[0] != '{' {
				t.Fatalf("accepted a line that is not an audit line: %q", l.Raw)
			}
			if bytes.IndexByte(l.Raw, '\n') >= 0 {
				t.Fatalf("raw line holds a newline: %q", l.Raw)
			}
			FormatText(l) // must not panic on any accepted line
		}
	})
}
