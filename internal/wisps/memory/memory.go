// Package memory is a wisp's working memory: an in-process key-value
// store whose entries expire, grouped in namespaces of bounded size. It
// holds step outputs, chunks of large inputs and batch summaries for the
// life of a process; it must never touch the disk.
package memory

import (
	"sort"
	"strings"
	"sync"
	"time"
)

// MaxEntriesPerNamespace bounds each namespace; the oldest entry goes
// first when a new one would pass it.
const MaxEntriesPerNamespace = 50

// Default lifetimes, as the spec gives them.
const (
	DefaultTTL = 60 * time.Minute
	SuccessTTL = 5 * time.Minute
)

// Entry is one stored value.
type Entry struct {
	Key     string
	Value   string
	Expires time.Time
	seq     uint64
}

// Store is safe for concurrent use.
type Store struct {
	mu   sync.Mutex
	now  func() time.Time
	seq  uint64
	data map[string]map[string]*Entry // namespace → key → entry
}

// New builds a store; now nil means time.Now.
func New(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, data: map[string]map[string]*Entry{}}
}

// Namespace is the part of a key that groups it: its first two segments
// ("wisp/{wispId}" of "wisp/{wispId}/{stepId}/output").
func Namespace(key string) string {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) < 3 {
		if i := strings.LastIndex(key, "/"); i > 0 {
			return key[:i]
		}
		return key
	}
	return parts[0] + "/" + parts[1]
}

// Set stores value under key for ttl (0: DefaultTTL).
func (s *Store) Set(key, value string, ttl time.Duration) {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := Namespace(key)
	m := s.data[ns]
	if m == nil {
		m = map[string]*Entry{}
		s.data[ns] = m
	}
	s.expire(m)
	s.seq++
	m[key] = &Entry{Key: key, Value: value, Expires: s.now().Add(ttl), seq: s.seq}
	for len(m) > MaxEntriesPerNamespace {
		delete(m, oldest(m))
	}
}

func oldest(m map[string]*Entry) string {
	var key string
	var seq uint64
	for k, e := range m {
		if key == "" || e.seq < seq {
			key, seq = k, e.seq
		}
	}
	return key
}

func (s *Store) expire(m map[string]*Entry) {
	now := s.now()
	for k, e := range m {
		if !now.Before(e.Expires) {
			delete(m, k)
		}
	}
}

// Get returns the live value of key.
func (s *Store) Get(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.data[Namespace(key)][key]
	if !ok || !s.now().Before(e.Expires) {
		return "", false
	}
	return e.Value, true
}

// List returns the live entries of a namespace, oldest first.
func (s *Store) List(namespace string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.data[namespace]
	s.expire(m)
	out := make([]Entry, 0, len(m))
	for _, e := range m {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// Search returns the live entries of a namespace whose key or value
// contains query, case-insensitively.
func (s *Store) Search(namespace, query string) []Entry {
	q := strings.ToLower(query)
	var out []Entry
	for _, e := range s.List(namespace) {
		if strings.Contains(strings.ToLower(e.Key), q) || strings.Contains(strings.ToLower(e.Value), q) {
			out = append(out, e)
		}
	}
	return out
}

// Retain gives every entry of a namespace a new lifetime from now.
func (s *Store) Retain(namespace string, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.data[namespace]
	s.expire(m)
	for _, e := range m {
		e.Expires = s.now().Add(ttl)
	}
}
