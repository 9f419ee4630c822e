package shell

import (
	"fmt"
	"sync"
	"testing"
)

func TestCacheHit(t *testing.T) {
	c := NewCache(0)
	a := c.Classify("ls -la", "/work/proj")
	b := c.Classify("ls -la", "/work/proj")
	if c.hits != 1 || c.misses != 1 {
		t.Fatalf("hits %d misses %d, want 1 and 1", c.hits, c.misses)
	}
	if a.Level != b.Level || len(a.Parts) != len(b.Parts) {
		t.Fatalf("cached verdict differs: %+v vs %+v", a, b)
	}
}

func TestCacheEviction(t *testing.T) {
	c := NewCache(DefaultCacheSize)
	for i := 0; i < DefaultCacheSize+1; i++ {
		c.Classify(fmt.Sprintf("echo %d", i), "/w")
	}
	if got := c.Len(); got != DefaultCacheSize {
		t.Fatalf("Len = %d, want %d", got, DefaultCacheSize)
	}
	// The first line was the least recently used and is gone; the last
	// is still there.
	misses := c.misses
	c.Classify("echo 256", "/w")
	if c.misses != misses {
		t.Error("the newest line was evicted")
	}
	c.Classify("echo 0", "/w")
	if c.misses != misses+1 {
		t.Error("the oldest line was not evicted")
	}
	// Using a line keeps it: touch "echo 2", then add one more; "echo 3"
	// goes instead.
	c.Classify("echo 2", "/w")
	c.Classify("echo new", "/w")
	misses = c.misses
	c.Classify("echo 2", "/w")
	if c.misses != misses {
		t.Error("a recently used line was evicted")
	}
	c.Classify("echo 3", "/w")
	if c.misses != misses+1 {
		t.Error("the least recently used line stayed")
	}
}

func TestCacheKeyedByCwd(t *testing.T) {
	c := NewCache(8)
	line := "echo x > /srv/app/out.txt"
	in := c.Classify(line, "/srv/app")
	out := c.Classify(line, "/work/other")
	if c.misses != 2 {
		t.Fatalf("misses = %d, want 2: the working directory is part of the key", c.misses)
	}
	if in.Level != Moderate || out.Level != Dangerous {
		t.Fatalf("levels %s and %s, want moderate and dangerous", in.Level, out.Level)
	}
	if again := c.Classify(line, "/srv/app"); again.Level != Moderate || c.hits != 1 {
		t.Fatalf("second look-up: %s, hits %d", again.Level, c.hits)
	}
	c.ClassifyWith(line, Options{Workdir: "/srv/app", Home: "/home/u"})
	if c.misses != 3 {
		t.Fatalf("misses = %d, want 3: the home directory is part of the key", c.misses)
	}
}

func TestCacheConcurrent(t *testing.T) {
	c := NewCache(16)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				line := fmt.Sprintf("rm -rf build%d", (i+g)%32)
				if v := c.Classify(line, "/work/proj"); v.Level != Moderate {
					t.Errorf("%q = %s", line, v.Level)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if c.Len() > 16 {
		t.Fatalf("Len = %d, above the size", c.Len())
	}
}
