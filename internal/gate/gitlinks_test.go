package gate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// An index rewritten in place with its size and modification time put
// back is read again: the cache also keys on the change time, which no
// call can set.
func TestGitlinkCacheSeesARewrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index")
	entry := func(mode byte) []byte {
		e := make([]byte, 62)
		e[26] = mode        // the mode, big-endian, in the stat data
		e[60], e[61] = 0, 1 // flags: name length 1
		return append(append(e, 'x'), make([]byte, 1)...)
	}
	write := func(mode byte) {
		data := append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"), entry(mode)...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(0x81) // 0100644 >> 8: a file
	stamp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	var c gitlinkCache
	if links := c.gitlinks(p); len(links) != 0 {
		t.Fatalf("a file entry read as gitlinks %q", links)
	}
	time.Sleep(10 * time.Millisecond)
	write(0xe0) // 0160000 >> 8: a gitlink, same size
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	if links := c.gitlinks(p); len(links) != 1 || links[0] != "x" {
		t.Fatalf("the rewritten index gave %q, want [x]", links)
	}
}
