package execlog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/wisps"
)

func TestLogRoundTripAndRetryLinks(t *testing.T) {
	l := &Log{Path: File(t.TempDir())}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	recs := []wisps.Record{
		{WispID: "w1", SessionID: "s1", DefinitionHash: "aaaaaaaaaaaaaaaa", Description: "d", StartedAt: at, FailedStep: "fetch", FailureCategory: wisps.Data, ErrorMessage: "Message not found"},
		{WispID: "w2", SessionID: "s1", DefinitionHash: "aaaaaaaaaaaaaaaa", Description: "d", StartedAt: at.Add(time.Minute), Success: true},
		{WispID: "w3", SessionID: "s2", DefinitionHash: "aaaaaaaaaaaaaaaa", Description: "d", StartedAt: at.Add(2 * time.Minute), Success: true},
		{WispID: "w4", SessionID: "s1", DefinitionHash: "bbbbbbbbbbbbbbbb", Description: "e", StartedAt: at.Add(3 * time.Minute), Success: true},
		{WispID: "w5", SessionID: "s1", DefinitionHash: "aaaaaaaaaaaaaaaa", Description: "d", StartedAt: at.Add(4 * time.Minute), Success: true,
			IteratedSteps: []wisps.ItemStats{{StepID: "fetch", Count: 3, Succeeded: 3}}},
	}
	for i := range recs {
		if err := l.Append(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Read()
	if err != nil || len(got) != len(recs) {
		t.Fatalf("read %d: %v", len(got), err)
	}
	cases := []struct{ id, retryOf string }{
		{"w1", ""}, {"w2", "w1"}, {"w3", ""}, {"w4", ""},
		// The latest record of that hash in the session succeeded: nothing to correct.
		{"w5", ""},
	}
	for i, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			r := got[i]
			if r.WispID != c.id || r.RetryOf != c.retryOf || !r.StartedAt.Equal(recs[i].StartedAt) {
				t.Fatalf("record %+v", r)
			}
		})
	}
	if len(got[4].IteratedSteps) != 1 || got[0].FailureCategory != wisps.Data || got[0].ErrorMessage != "Message not found" {
		t.Fatalf("fields lost: %+v %+v", got[4], got[0])
	}
	info, err := os.Stat(l.Path)
	if err != nil || info.Mode().Perm() != 0o600 || filepath.Base(l.Path) != "executions.jsonl" || filepath.Base(filepath.Dir(l.Path)) != "wisps" {
		t.Fatalf("log file %s %v %v", l.Path, info.Mode(), err)
	}
}

func TestLogReadRules(t *testing.T) {
	good, _ := json.Marshal(wisps.Record{WispID: "w1"})
	cases := []struct {
		name, text string
		n          int
		err        string
	}{
		{"torn tail dropped", string(good) + "\n{\"WispId\":\"w2", 1, ""},
		{"malformed line named", string(good) + "\nnot json\n", 0, "line 2"},
		{"blank lines skipped", "\n" + string(good) + "\n\n", 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "executions.jsonl")
			if err := os.WriteFile(p, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := (&Log{Path: p}).Read()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil || len(got) != c.n {
				t.Fatalf("%d records, %v", len(got), err)
			}
		})
	}
	if got, err := (&Log{Path: filepath.Join(t.TempDir(), "none")}).Read(); err != nil || got != nil {
		t.Fatal("a missing log is not empty")
	}
}

func TestQuery(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r := wisps.Record{SessionID: "s1", Description: "Search Mail", StartedAt: at}
	cases := []struct {
		name string
		q    Query
		want bool
	}{
		{"empty", Query{}, true},
		{"session", Query{Session: "s2"}, false},
		{"since", Query{Since: at.Add(time.Second)}, false},
		{"failed only", Query{FailedOnly: true}, true},
		{"description case-insensitive", Query{Description: "mail"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.q.Match(r) != c.want {
				t.Fatalf("Match = %v", !c.want)
			}
		})
	}
}

func TestAppendPastAMalformedLine(t *testing.T) {
	l := &Log{Path: File(t.TempDir())}
	fail := wisps.Record{WispID: "w1", SessionID: "s", DefinitionHash: "h"}
	if err := l.Append(&fail); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("garbage\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ok := wisps.Record{WispID: "w2", SessionID: "s", DefinitionHash: "h", Success: true}
	if err := l.Append(&ok); err != nil || ok.RetryOf != "w1" {
		t.Fatalf("append: %v, RetryOf %q", err, ok.RetryOf)
	}
}
