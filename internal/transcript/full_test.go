package transcript

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/chat"
)

// fullLimit is the file size limit the helper writes under.
const fullLimit = 64 << 10

// fullHelper appends 10 KB records under a 64 KB file size limit (which
// fails writes with EFBIG, as a full disk fails them with ENOSPC) and
// reports how the first failure looked.
func fullHelper(path string) error {
	lim := unix.Rlimit{Cur: fullLimit, Max: fullLimit}
	if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
		return err
	}
	w, err := OpenAppend(path)
	if err != nil {
		return err
	}
	defer w.Close()
	for i := range 20 {
		m := chat.UserText(fmt.Sprintf("record %d %s", i, strings.Repeat("x", 10<<10)))
		if _, err := w.Append(Record{Type: TypeMessage, Message: &m}); err != nil {
			if !errors.Is(err, unix.EFBIG) {
				return fmt.Errorf("write failed, but not with EFBIG: %w", err)
			}
			fmt.Printf("failed at %d\n", i)
			return nil
		}
	}
	return errors.New("no write failed")
}

// TestWriteFailureLeavesNoPartialLine: a write that fails part-way
// leaves the file ending on a whole line, so nothing later reads a torn
// or malformed record, and the records before it load.
func TestWriteFailureLeavesNoPartialLine(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a process")
	}
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	w.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperFull+"="+w.Path())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var n int
	if _, err := fmt.Sscanf(string(out), "failed at %d", &n); err != nil || n == 0 {
		t.Fatalf("helper said %q", out)
	}
	data, _ := os.ReadFile(w.Path())
	if len(data) == 0 || data[len(data)-1] != '\n' || len(data) > fullLimit {
		t.Fatalf("file of %d bytes does not end on a whole line", len(data))
	}
	_, recs, err := Load(w.Path())
	if err != nil || len(recs) != n {
		t.Fatalf("after the failure: %d records, %v; want the %d written before it", len(recs), err, n)
	}
}
