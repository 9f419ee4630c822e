// Package execlog is the wisp execution log: one JSON line per wisp in
// $WISP_HOME/wisps/executions.jsonl, queried by `wisp wisps log`, and the
// failure-analysis pass over it. It never runs a wisp.
package execlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/wisps"
)

// File is where the execution log lives under the wisp home.
func File(wispHome string) string { return filepath.Join(wispHome, "wisps", "executions.jsonl") }

// Log is the JSONL execution log. Appends from one process are
// serialised; each line is written with one write call so that lines of
// concurrent processes do not interleave.
type Log struct {
	Path string
	mu   sync.Mutex
}

// Append adds a record. A success that follows a failure with the same
// definition hash in the same session gets RetryOf, the failure's wisp id.
func (l *Log) Append(rec *wisps.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rec.Success && rec.SessionID != "" && rec.RetryOf == "" {
		rec.RetryOf = l.priorFailure(rec)
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode the execution record: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return fmt.Errorf("execution log: %w", err)
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("execution log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("execution log %s: %w", l.Path, err)
	}
	return f.Close()
}

// retryWindow is how much of the log's end is searched for the failure a
// success corrects: a session's retry follows its failure closely, and
// an append must not read a log of any size.
const retryWindow = 1 << 20

// priorFailure is the wisp id of the failure rec corrects: the latest
// record of the same session and definition hash, when it failed. Lines
// it cannot read are passed over; the link is a hint, the record itself
// is written regardless.
func (l *Log) priorFailure(rec *wisps.Record) string {
	f, err := os.Open(l.Path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	start := max(info.Size()-retryWindow, 0)
	buf := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return ""
	}
	lines := bytes.Split(buf, []byte("\n"))
	if start > 0 {
		lines = lines[1:] // the first line is cut
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var p wisps.Record
		if json.Unmarshal(lines[i], &p) != nil || p.SessionID != rec.SessionID || p.DefinitionHash != rec.DefinitionHash {
			continue
		}
		if p.Success {
			return ""
		}
		return p.WispID
	}
	return ""
}

// Read returns every record, oldest first. A torn last line is dropped;
// a malformed complete line is an error naming it.
func (l *Log) Read() ([]wisps.Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.read()
}

func (l *Log) read() ([]wisps.Record, error) {
	f, err := os.Open(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("execution log: %w", err)
	}
	defer f.Close()
	var out []wisps.Record
	rd := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a line without its newline was never complete
		}
		if err != nil {
			return nil, fmt.Errorf("execution log %s: %w", l.Path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec wisps.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("execution log %s line %d: %v", l.Path, n, err)
		}
		out = append(out, rec)
	}
}

// Query filters records.
type Query struct {
	Since       time.Time
	Session     string
	FailedOnly  bool
	Description string
}

// Match says a record passes the query.
func (q Query) Match(r wisps.Record) bool {
	switch {
	case !q.Since.IsZero() && r.StartedAt.Before(q.Since):
		return false
	case q.Session != "" && r.SessionID != q.Session:
		return false
	case q.FailedOnly && r.Success:
		return false
	case q.Description != "" && !containsFold(r.Description, q.Description):
		return false
	}
	return true
}

func containsFold(s, sub string) bool {
	return bytes.Contains(bytes.ToLower([]byte(s)), bytes.ToLower([]byte(sub)))
}
