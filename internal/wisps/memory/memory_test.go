package memory

import (
	"fmt"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestNamespace(t *testing.T) {
	cases := []struct{ key, want string }{
		{"wisp/w1/fetch/output", "wisp/w1"},
		{"wisp/batch-b1/summary", "wisp/batch-b1"},
		{"wisp/w1/chunk/3", "wisp/w1"},
		{"a/b", "a"},
		{"solo", "solo"},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			if got := Namespace(c.key); got != c.want {
				t.Fatalf("Namespace(%q) = %q, want %q", c.key, got, c.want)
			}
		})
	}
}

func TestStoreRules(t *testing.T) {
	t.Run("ttl expires", func(t *testing.T) {
		c := &clock{t: time.Unix(1000, 0)}
		s := New(c.now)
		s.Set("wisp/w/a/output", "x", 0)
		c.t = c.t.Add(59 * time.Minute)
		if _, ok := s.Get("wisp/w/a/output"); !ok {
			t.Fatal("gone before 60 minutes")
		}
		c.t = c.t.Add(time.Minute)
		if _, ok := s.Get("wisp/w/a/output"); ok {
			t.Fatal("alive after 60 minutes")
		}
	})
	t.Run("retain shortens to 5 minutes", func(t *testing.T) {
		c := &clock{t: time.Unix(1000, 0)}
		s := New(c.now)
		s.Set("wisp/w/a/output", "x", 0)
		s.Retain("wisp/w", SuccessTTL)
		c.t = c.t.Add(5 * time.Minute)
		if _, ok := s.Get("wisp/w/a/output"); ok {
			t.Fatal("alive after the success TTL")
		}
	})
	t.Run("namespace cap drops oldest", func(t *testing.T) {
		s := New(nil)
		for i := range MaxEntriesPerNamespace + 5 {
			s.Set(fmt.Sprintf("wisp/w/s%d/output", i), "v", 0)
		}
		s.Set("wisp/other/s/output", "v", 0)
		if n := len(s.List("wisp/w")); n != MaxEntriesPerNamespace {
			t.Fatalf("namespace holds %d entries, want %d", n, MaxEntriesPerNamespace)
		}
		if _, ok := s.Get("wisp/w/s0/output"); ok {
			t.Fatal("oldest entry kept")
		}
		if _, ok := s.Get("wisp/w/s54/output"); !ok {
			t.Fatal("newest entry dropped")
		}
		if len(s.List("wisp/other")) != 1 {
			t.Fatal("other namespace affected")
		}
	})
	t.Run("search matches key or value", func(t *testing.T) {
		s := New(nil)
		s.Set("wisp/w/a/output", "Invoice 42", 0)
		s.Set("wisp/w/b/output", "nothing", 0)
		if got := s.Search("wisp/w", "invoice"); len(got) != 1 || got[0].Key != "wisp/w/a/output" {
			t.Fatalf("Search = %+v", got)
		}
		if got := s.Search("wisp/w", "/b/"); len(got) != 1 {
			t.Fatalf("Search by key = %+v", got)
		}
	})
}
