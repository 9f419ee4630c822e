package approval

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"

	"github.com/wisp-agent/wisp/internal/durable"
	"github.com/wisp-agent/wisp/internal/shell"
)

// fileVersion is the approvals file's format version.
const fileVersion = 1

// ErrUnknownID is wrapped by Revoke when no approval has the id.
var ErrUnknownID = errors.New("no remembered approval has this id")

// Entry is one remembered approval.
type Entry struct {
	ID      string `json:"id"` // short hex, what `wisp approvals revoke` takes
	Pattern string `json:"pattern"`
	Scope   Scope  `json:"scope"`
	// Level is the highest risk level the approval was given for; it
	// covers commands of the pattern up to that level, never above.
	Level shell.Level `json:"level"`
	// Project is the resolved folder a project approval applies in; for
	// once and session entries it is the folder of this process, and it
	// is empty for always entries.
	Project string    `json:"project,omitempty"`
	Created time.Time `json:"created"`
	// Expires is zero for session entries, which end with the process.
	Expires time.Time `json:"expires,omitzero"`
}

// Decision is what Remember did.
type Decision struct {
	// Scope is the scope the approval was remembered at, which may be
	// narrower than the one asked for.
	Scope Scope
	// Persisted says the approval was written to the approvals file.
	Persisted bool
	// Downgraded says a dangerous approval asked for a wider scope was
	// kept for the one call only; the caller audits it as such.
	Downgraded bool
	// Entry is the remembered entry; zero when nothing was remembered
	// (once, or dangerous).
	Entry Entry
}

// MalformedError is an approvals file that cannot be used. Its message
// names the file.
type MalformedError struct {
	File string
	What string
}

func (e *MalformedError) Error() string { return fmt.Sprintf("malformed %s: %s", e.File, e.What) }

// DuplicateError says that entries of the approvals file repeat the id of
// an earlier entry. Each repeat is dropped and the rest of the file is
// used: dropping an approval can only make wisp ask more.
type DuplicateError struct {
	File string
	// Dropped describes each dropped entry: its index, id and pattern.
	Dropped []string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s: ignored %d entries whose id repeats an earlier one (%s); the other approvals are used", e.File, len(e.Dropped), strings.Join(e.Dropped, "; "))
}

// Store holds remembered approvals: once and session ones in memory,
// project and always ones in the approvals file, which several wisp
// processes may share. It is safe for concurrent use.
type Store struct {
	path    string
	lock    *lockedfile.Mutex // guards read-modify-write of path across processes
	project string
	now     func() time.Time

	mu  sync.Mutex
	mem []Entry // session entries; a once answer is never kept
}

// Open returns the store for the approvals file at path (the caller
// passes ~/.wisp/approvals.json, or its WISP_HOME equivalent), for a
// process working in projectDir. now is the clock (nil: time.Now).
//
// Open reads the file once to check it. A file that cannot be read or
// parsed comes back as an error that names it (*MalformedError when its
// contents are wrong) together with a usable Store: the caller decides
// whether to continue. Such a store ignores the file's entries, keeps
// project and always approvals for the session instead, and never
// overwrites the file until it is fixed or cleared. Entries that repeat
// an earlier entry's id are dropped one by one and reported as a
// *DuplicateError, a warning: the store uses the rest of the file, and
// its next write leaves the repeats out. Open returns a nil Store only
// when path or projectDir is unusable.
func Open(path, projectDir string, now func() time.Time) (*Store, error) {
	if path == "" {
		return nil, errors.New("open approvals: no file path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open approvals %s: %w", path, err)
	}
	// A writer killed between writing its temporary file and renaming it
	// leaves the file behind; the next start clears it (best effort).
	_, _ = durable.RemoveStaleTemps(abs, durable.StaleAge)
	project, err := ResolveProject(projectDir)
	if err != nil {
		return nil, fmt.Errorf("open approvals: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	s := &Store{
		path:    abs,
		lock:    lockedfile.MutexAt(abs + ".lock"),
		project: project,
		now:     now,
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.persistedLocked(); err != nil {
		return s, err
	}
	if dropped := s.duplicatesLocked(); len(dropped) > 0 {
		return s, &DuplicateError{File: s.path, Dropped: dropped}
	}
	return s, nil
}

// duplicatesLocked describes the entries of the file that decodeFile
// drops for repeating an id.
func (s *Store) duplicatesLocked() []string {
	data, err := os.ReadFile(s.path)
	if err != nil {
		return nil
	}
	_, dropped, _ := decodeFile(data)
	return dropped
}

// ResolveProject is the key a project approval is stored under: the
// folder's absolute path with symlinks resolved, so two spellings of one
// folder share their approvals.
func ResolveProject(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no project folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve project folder %s: %w", dir, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs, nil
}

// Path is the approvals file.
func (s *Store) Path() string { return s.path }

// Project is the resolved project folder project approvals apply in.
func (s *Store) Project() string { return s.project }

// Lookup finds a remembered approval that covers a command of the pattern
// at the given risk level: session entries first, then this project's,
// then always ones. An entry covers levels up to the one it was given for.
// A dangerous level (or one outside the known range) matches nothing,
// whatever the file says: a dangerous command is asked about every time.
// A file that cannot be read matches nothing, so the person is asked.
func (s *Store) Lookup(pattern string, level shell.Level) (Entry, bool) {
	if pattern == "" || !validLevel(level) || level >= shell.Dangerous {
		return Entry{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.mem {
		if e.Scope == ScopeSession && e.Pattern == pattern && level <= e.Level {
			return e, true
		}
	}
	entries, err := s.persistedLocked()
	if err != nil {
		return Entry{}, false
	}
	now := s.now()
	for _, scope := range []Scope{ScopeProject, ScopeAlways} {
		for _, e := range entries {
			if e.Scope == scope && e.Pattern == pattern && s.applies(e, now) && level <= e.Level {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// applies reports whether a persisted entry is live here and now.
func (s *Store) applies(e Entry, now time.Time) bool {
	if !now.Before(e.Expires) {
		return false
	}
	return e.Scope == ScopeAlways || e.Project == s.project
}

// Remember records that a person allowed commands of the pattern at the
// given risk level for scope. Only allows are remembered: a "no" is never
// passed here, so it holds for the one call it answered.
//
// A once answer approves exactly the call it was given for, so nothing is
// kept: a later call, even of the same pattern in the same turn, is asked
// again. A dangerous level is never remembered either: whatever scope was
// asked for, the answer counts once (Downgraded when a wider scope was
// asked for). Remembering a pattern again at the same scope refreshes its
// entry, keeping its id and the higher of the two levels.
//
// When the approvals file cannot be read or written, the approval is
// kept for the session and the error says why: the Decision is valid
// even then, and the caller reports the error as a warning.
func (s *Store) Remember(pattern string, level shell.Level, scope Scope) (Decision, error) {
	if pattern == "" {
		return Decision{}, errors.New("remember approval: empty pattern")
	}
	if !validLevel(level) {
		return Decision{}, fmt.Errorf("remember approval for %s: unknown risk level %d", pattern, int(level))
	}
	if !scope.valid() {
		return Decision{}, fmt.Errorf("remember approval for %s: unknown scope %q", pattern, scope)
	}
	var d Decision
	if level >= shell.Dangerous && scope != ScopeOnce {
		scope, d.Downgraded = ScopeOnce, true
	}
	if scope == ScopeOnce {
		d.Scope = ScopeOnce
		return d, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !scope.Persisted() {
		d.Scope, d.Entry = scope, s.rememberMemLocked(pattern, level, scope)
		return d, nil
	}
	e, err := s.rememberFileLocked(pattern, level, scope)
	if err != nil {
		d.Scope, d.Entry = ScopeSession, s.rememberMemLocked(pattern, level, ScopeSession)
		return d, fmt.Errorf("remember %s approval for %s (kept for this session only): %w", scope, pattern, err)
	}
	d.Scope, d.Persisted, d.Entry = scope, true, e
	return d, nil
}

func (s *Store) rememberMemLocked(pattern string, level shell.Level, scope Scope) Entry {
	for i, e := range s.mem {
		if e.Scope == scope && e.Pattern == pattern {
			s.mem[i].Level = max(e.Level, level)
			return s.mem[i]
		}
	}
	file, _ := s.persistedLocked() // best effort: ids need only be unlikely to clash
	e := Entry{
		ID:      s.newIDLocked(file),
		Pattern: pattern,
		Scope:   scope,
		Level:   level,
		Project: s.project,
		Created: s.now(),
	}
	s.mem = append(s.mem, e)
	return e
}

func (s *Store) rememberFileLocked(pattern string, level shell.Level, scope Scope) (Entry, error) {
	var out Entry
	err := s.editFile(func(entries []Entry) ([]Entry, error) {
		now := s.now()
		project := ""
		if scope == ScopeProject {
			project = s.project
		}
		for i, e := range entries {
			if e.Scope == scope && e.Pattern == pattern && e.Project == project {
				e.Level = max(e.Level, level)
				e.Created, e.Expires = now, now.Add(Lifetime)
				entries[i], out = e, e
				return entries, nil
			}
		}
		out = Entry{
			ID:      s.newIDLocked(entries),
			Pattern: pattern,
			Scope:   scope,
			Level:   level,
			Project: project,
			Created: now,
			Expires: now.Add(Lifetime),
		}
		return append(entries, out), nil
	})
	return out, err
}

// List returns the live approvals: this process's session ones
// and every unexpired persisted one, whatever its project, narrowest scope
// first. When the file cannot be read, the error says why and the list
// holds the in-memory approvals only.
func (s *Store) List() ([]Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.mem)
	entries, err := s.persistedLocked()
	now := s.now()
	for _, e := range entries {
		if now.Before(e.Expires) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		if d := a.Scope.rank() - b.Scope.rank(); d != 0 {
			return d
		}
		if c := strings.Compare(a.Project, b.Project); c != 0 {
			return c
		}
		if c := strings.Compare(a.Pattern, b.Pattern); c != 0 {
			return c
		}
		return a.Created.Compare(b.Created)
	})
	return out, err
}

// Revoke forgets the approval with the given id, in memory or in the
// file. An id no approval has is an error wrapping ErrUnknownID.
func (s *Store) Revoke(id string) error {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return fmt.Errorf("revoke: %w (see wisp approvals list)", ErrUnknownID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if i := slices.IndexFunc(s.mem, func(e Entry) bool { return e.ID == id }); i >= 0 {
		s.mem = slices.Delete(s.mem, i, i+1)
		return nil
	}
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("revoke %s: %w (see wisp approvals list)", id, ErrUnknownID)
	}
	found := false
	err := s.editFile(func(entries []Entry) ([]Entry, error) {
		n := len(entries)
		entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.ID == id })
		found = len(entries) < n
		if !found {
			return nil, errNoChange
		}
		return entries, nil
	})
	if err != nil {
		return fmt.Errorf("revoke %s: %w", id, err)
	}
	if !found {
		return fmt.Errorf("revoke %s: %w (see wisp approvals list)", id, ErrUnknownID)
	}
	return nil
}

// Clear forgets every approval: this process's and every persisted one,
// in every project. It replaces an approvals file that cannot be parsed,
// which is how a person recovers from one.
func (s *Store) Clear() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem = nil
	if _, err := os.Stat(s.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	unlock, err := s.lock.Lock()
	if err != nil {
		return fmt.Errorf("clear approvals: lock %s: %w", s.path, err)
	}
	defer unlock()
	if err := s.writeLocked(nil); err != nil {
		return fmt.Errorf("clear approvals: %w", err)
	}
	return nil
}

// errNoChange lets an edit say there is nothing to write.
var errNoChange = errors.New("no change")

// editFile runs a read-modify-write of the approvals file under the file
// lock, so concurrent wisp processes never lose each other's entries.
// Expired entries are pruned on every write.
func (s *Store) editFile(edit func([]Entry) ([]Entry, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	unlock, err := s.lock.Lock()
	if err != nil {
		return fmt.Errorf("lock %s: %w", s.path, err)
	}
	defer unlock()
	entries, err := s.persistedLocked()
	if err != nil {
		return err
	}
	entries, err = edit(slices.Clone(entries))
	if errors.Is(err, errNoChange) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.now()
	entries = slices.DeleteFunc(entries, func(e Entry) bool { return !now.Before(e.Expires) })
	return s.writeLocked(entries)
}

// fileData is the approvals file.
type fileData struct {
	Version   int     `json:"version"`
	Approvals []Entry `json:"approvals"`
}

// persistedLocked returns the file's entries, expired ones included. A
// missing file has none. The file is read on every call rather than
// cached: it is small, it is read only when a person would otherwise be
// asked, and another wisp process may have replaced it since.
func (s *Store) persistedLocked() ([]Entry, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.path, err)
	}
	entries, _, err := decodeFile(data)
	if err != nil {
		return nil, &MalformedError{File: s.path, What: err.Error()}
	}
	return entries, nil
}

// decodeFile parses and checks the approvals file. Anything it does not
// understand makes the whole file unusable rather than half-read, so a
// hand edit that went wrong is reported instead of silently dropped. The
// one exception is an entry whose id repeats an earlier one's: it alone
// is dropped, and described in dropped, since losing one approval only
// means one more question.
func decodeFile(data []byte) (entries []Entry, dropped []string, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f fileData
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, nil, fmt.Errorf("line %d: %v", line, se)
		}
		return nil, nil, err
	}
	if dec.More() {
		return nil, nil, errors.New("unexpected data after the JSON object")
	}
	if f.Version != fileVersion {
		return nil, nil, fmt.Errorf("version %d, this wisp reads version %d", f.Version, fileVersion)
	}
	ids := map[string]bool{}
	for i, e := range f.Approvals {
		if err := checkEntry(e); err != nil {
			return nil, nil, fmt.Errorf("approvals[%d]: %w", i, err)
		}
		if ids[e.ID] {
			dropped = append(dropped, fmt.Sprintf("approvals[%d]: id %s, pattern %q", i, e.ID, e.Pattern))
			continue
		}
		ids[e.ID] = true
		entries = append(entries, e)
	}
	return entries, dropped, nil
}

func checkEntry(e Entry) error {
	switch {
	case !validID(e.ID):
		return fmt.Errorf("id %q is not short hex", e.ID)
	case e.Pattern == "":
		return errors.New("empty pattern")
	case !e.Scope.Persisted():
		return fmt.Errorf("scope %q cannot be stored (want project or always)", e.Scope)
	case e.Level >= shell.Dangerous:
		return errors.New("a dangerous approval is never stored")
	case e.Scope == ScopeProject && !filepath.IsAbs(e.Project):
		return errors.New("a project approval needs the project's absolute path")
	case e.Scope == ScopeAlways && e.Project != "":
		return errors.New("an always approval has no project")
	case e.Expires.IsZero():
		return errors.New("no expiry")
	}
	return nil
}

func validID(id string) bool {
	if len(id) < 4 || len(id) > 32 {
		return false
	}
	for _, r := range id {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// writeLocked replaces the file atomically (temporary file, then rename),
// mode 0600. The caller holds the file lock.
func (s *Store) writeLocked(entries []Entry) error {
	if entries == nil {
		entries = []Entry{}
	}
	data, err := json.MarshalIndent(fileData{Version: fileVersion, Approvals: entries}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode approvals: %w", err)
	}
	data = append(data, '\n')
	return durable.WriteFile(s.path, data)
}

// newIDLocked picks an id no live entry has, in memory or in file.
func (s *Store) newIDLocked(file []Entry) string {
	taken := func(id string) bool {
		return slices.ContainsFunc(s.mem, func(e Entry) bool { return e.ID == id }) ||
			slices.ContainsFunc(file, func(e Entry) bool { return e.ID == id })
	}
	for {
		var b [4]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
		if id := hex.EncodeToString(b[:]); !taken(id) {
			return id
		}
	}
}
