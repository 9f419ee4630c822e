// Package trust decides whether wisp may load a project's own
// configuration and instructions (.wisp/settings.json, AGENTS.md or
// CLAUDE.md, skills) and keeps those decisions in the user's trust store
// (~/.wisp/trust.json). Reading the project's files is package project's;
// asking a person is a frontend's (Settle takes an Asker).
//
// It must never take a trust decision from a project's files: the
// decision comes from the real process environment (WISP_TRUST), the
// user's store, or the user's answer, and nothing a repository holds can
// turn it to "trusted". A decision it cannot read is treated as
// untrusted, never as trusted.
package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/wisp-agent/wisp/internal/durable"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Status is the trust state of a project.
type Status string

const (
	Trusted   Status = "trusted"
	Untrusted Status = "untrusted"
	Undecided Status = "undecided"
)

// FileName is the store's name inside wisp's home.
const FileName = "trust.json"

// Store is the user's remembered trust decisions, keyed by the resolved
// path of each project. Every call reads the file afresh, so several wisp
// processes can share it; writes replace it whole under a lock.
type Store struct {
	path string
	now  func() time.Time
}

// record is one stored decision.
type record struct {
	Decision Status    `json:"decision"`
	At       time.Time `json:"at"`
}

// storeFile is the JSON form of trust.json.
type storeFile struct {
	Version  int               `json:"version"`
	Projects map[string]record `json:"projects"`
}

// MalformedError reports a trust store that cannot be read as one.
type MalformedError struct {
	File string
	What string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("malformed trust store %s: %s (fix or delete the file)", e.File, e.What)
}

// Locate says where the trust store lives: WISP_TRUST_FILE when it is an
// absolute path, else trust.json in wisp's home. A relative value is
// ignored with a warning, because it would follow the working directory
// into whatever repository wisp runs in.
func Locate(wispHome, trustFileEnv string) (path, warn string) {
	def := filepath.Join(wispHome, FileName)
	switch {
	case trustFileEnv == "":
		return def, ""
	case filepath.IsAbs(trustFileEnv):
		return filepath.Clean(trustFileEnv), ""
	default:
		return def, fmt.Sprintf("WISP_TRUST_FILE %q ignored: it must be an absolute path; using %s", trustFileEnv, def)
	}
}

// Open returns the store kept at path, which must be absolute. The file
// need not exist yet. Temporary files left beside it by a write that was
// killed midway are removed once they are older than durable.StaleAge.
func Open(path string) (*Store, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("trust store %q: not an absolute path", path)
	}
	path = filepath.Clean(path)
	// A writer killed between writing its temporary file and renaming it
	// leaves the file behind; the next start clears it (best effort).
	_, _ = durable.RemoveStaleTemps(path, durable.StaleAge)
	return &Store{path: path, now: time.Now}, nil
}

// Path is where the store is kept.
func (s *Store) Path() string { return s.path }

// Status is the stored decision for the project at path (Undecided when
// there is none).
func (s *Store) Status(path string) (Status, error) {
	key := Key(path)
	f, err := s.read()
	if err != nil {
		return Undecided, err
	}
	if r, ok := f.Projects[key]; ok {
		return r.Decision, nil
	}
	return Undecided, nil
}

// Set remembers that the project at path, which must exist, is trusted
// or not.
func (s *Store) Set(path string, trusted bool) error {
	key, err := Resolve(path)
	if err != nil {
		return fmt.Errorf("trust %s: %w", path, err)
	}
	d := Untrusted
	if trusted {
		d = Trusted
	}
	return s.update(func(f *storeFile) bool {
		f.Projects[key] = record{Decision: d, At: s.now().UTC().Truncate(time.Second)}
		return true
	})
}

// Forget removes the decision for the project at path, so that wisp asks
// again. Forgetting a project with no decision is no error.
func (s *Store) Forget(path string) error {
	_, err := s.forget(path)
	return err
}

// forget removes the decision and says whether there was one.
func (s *Store) forget(path string) (bool, error) {
	key := Key(path)
	found := false
	err := s.update(func(f *storeFile) bool {
		_, found = f.Projects[key]
		delete(f.Projects, key)
		return found
	})
	return found, err
}

// Projects lists the stored decisions by path, for display.
func (s *Store) Projects() (map[string]Status, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := make(map[string]Status, len(f.Projects))
	for k, r := range f.Projects {
		out[k] = r.Decision
	}
	return out, nil
}

// read loads the store. A missing or empty file is an empty store. The
// file is only ever replaced by rename, so reading needs no lock.
func (s *Store) read() (*storeFile, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &storeFile{Version: 1, Projects: map[string]record{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %w", s.path, err)
	}
	return parseStore(s.path, data)
}

func parseStore(path string, data []byte) (*storeFile, error) {
	f := &storeFile{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, f); err != nil {
			return nil, &MalformedError{File: path, What: err.Error()}
		}
	}
	if f.Version == 0 {
		f.Version = 1
	}
	if f.Version != 1 {
		return nil, &MalformedError{File: path, What: fmt.Sprintf("unknown version %d", f.Version)}
	}
	if f.Projects == nil {
		f.Projects = map[string]record{}
	}
	keys := make([]string, 0, len(f.Projects))
	for k := range f.Projects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch d := f.Projects[k].Decision; {
		case !filepath.IsAbs(k):
			return nil, &MalformedError{File: path, What: fmt.Sprintf("project %q: not an absolute path", k)}
		case d != Trusted && d != Untrusted:
			return nil, &MalformedError{File: path, What: fmt.Sprintf("project %q: decision %q is neither %q nor %q", k, d, Trusted, Untrusted)}
		}
	}
	return f, nil
}

// update changes the store under an exclusive lock and, when change says
// so, writes it back: a temporary file beside it, synced, then renamed
// over it, so no reader ever sees half a store. A malformed store is left
// alone rather than overwritten, since it holds the user's decisions.
func (s *Store) update(change func(*storeFile) bool) (err error) {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	unlock, err := lockedfile.MutexAt(s.path + ".lock").Lock()
	if err != nil {
		return fmt.Errorf("lock trust store %s: %w", s.path, err)
	}
	defer unlock()
	f, err := s.read()
	if err != nil {
		return err
	}
	if !change(f) {
		return nil
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode trust store: %w", err)
	}
	if err := durable.WriteFile(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	return nil
}

// Resolve is the key a project is stored under: its absolute path with
// every symbolic link resolved, so that two ways to the same folder share
// one decision.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return real, nil
}

// Key resolves path when it exists and otherwise cleans it, so that a
// deleted project's decision can still be looked up and forgotten.
func Key(path string) string {
	if real, err := Resolve(path); err == nil {
		return real
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// ProjectRoot is the project that cwd belongs to: the nearest folder at
// or above it holding .git (a folder, or a file in a worktree), else cwd
// itself; resolved as Resolve does.
func ProjectRoot(cwd string) string {
	start := Key(cwd)
	for dir := start; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return start
		}
		dir = parent
	}
}
