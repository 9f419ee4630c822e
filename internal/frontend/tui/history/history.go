// Package history keeps the prompts typed in one project across
// sessions, in a file of the wisp home, and walks them as ↑ and ↓ do. It
// holds no screen state and must never read or write any other file.
package history

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxHistory bounds the prompts kept per project.
const maxHistory = 500

// History is the prompts typed in one project, oldest first, kept
// across sessions in a file of the wisp home (one JSON string a line,
// so that a prompt of several lines stays one). ↑ and ↓ walk it.
type History struct {
	path    string
	entries []string
	// at is the entry shown (len(entries): the prompt being typed,
	// which draft keeps while the person walks back).
	at    int
	draft string
}

// Path is where the prompts of the project at root are kept.
func Path(wispHome, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(wispHome, "history", hex.EncodeToString(sum[:8])+".jsonl")
}

// Load reads the project's prompts; a missing or damaged file
// is an empty history (a damaged line is skipped).
func Load(path string) *History {
	h := &History{path: path}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 4<<20)
		for sc.Scan() {
			var s string
			if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
				h.entries = append(h.entries, s)
			}
		}
		_ = f.Close()
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	h.at = len(h.entries)
	return h
}

// Add keeps a prompt (not twice in a row) and appends it to the file.
func (h *History) Add(s string) error {
	s = strings.TrimRight(s, " \t\n")
	h.at, h.draft = len(h.entries), ""
	if strings.TrimSpace(s) == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == s) {
		return nil
	}
	h.entries = append(h.entries, s)
	h.at = len(h.entries)
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("keep the prompt history: %w", err)
	}
	line, _ := json.Marshal(s)
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("keep the prompt history: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keep the prompt history: %w", err)
	}
	return nil
}

// Prev walks back from what is typed now; ok is false at the oldest.
func (h *History) Prev(current string) (string, bool) {
	if h.at == 0 {
		return "", false
	}
	if h.at == len(h.entries) {
		h.draft = current
	}
	h.at--
	return h.entries[h.at], true
}

// Next walks forward; past the newest comes back the draft.
func (h *History) Next() (string, bool) {
	if h.at >= len(h.entries) {
		return "", false
	}
	h.at++
	if h.at == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.at], true
}
