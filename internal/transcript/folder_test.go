package transcript

import (
	"path/filepath"
	"testing"
)

func TestStartedIn(t *testing.T) {
	key := cwdKey("/home/a/proj")
	tests := []struct {
		name string
		s    Summary
		cwd  string
		want bool
	}{
		{"same folder", Summary{Cwd: "/home/a/proj"}, "/home/a/proj", true},
		{"same folder, uncleaned", Summary{Cwd: "/home/a/proj/"}, "/home/a/./proj", true},
		{"another folder", Summary{Cwd: "/home/a/other"}, "/home/a/proj", false},
		{"a subfolder is another folder", Summary{Cwd: "/home/a/proj/sub"}, "/home/a/proj", false},
		{"unreadable header, in the folder's subfolder", Summary{Path: filepath.Join("/s", key, "x.jsonl")}, "/home/a/proj", true},
		{"unreadable header, elsewhere", Summary{Path: filepath.Join("/s", "0123456789abcdef", "x.jsonl")}, "/home/a/proj", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.StartedIn(tc.cwd); got != tc.want {
				t.Errorf("StartedIn(%q) = %v, want %v", tc.cwd, got, tc.want)
			}
		})
	}
}
