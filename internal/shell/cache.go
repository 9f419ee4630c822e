package shell

import (
	"container/list"
	"sync"
)

// DefaultCacheSize is the number of verdicts a session keeps.
const DefaultCacheSize = 256

// Cache keeps the most recently used verdicts of a session, keyed by the
// line and where it runs. It is safe for concurrent use. Verdicts it
// returns are shared: callers must not modify them.
type Cache struct {
	mu     sync.Mutex
	size   int
	order  *list.List // front is most recently used
	items  map[cacheKey]*list.Element
	hits   int
	misses int
}

type cacheKey struct {
	line string
	opts Options
}

type cacheEntry struct {
	key cacheKey
	v   Verdict
}

// NewCache returns a cache of n verdicts (DefaultCacheSize when n <= 0).
func NewCache(n int) *Cache {
	if n <= 0 {
		n = DefaultCacheSize
	}
	return &Cache{size: n, order: list.New(), items: make(map[cacheKey]*list.Element, n)}
}

// Classify returns the verdict for line run in the workspace cwd.
func (c *Cache) Classify(line, cwd string) Verdict {
	return c.ClassifyWith(line, Options{Workdir: cwd})
}

// ClassifyWith returns the verdict for line under opts, classifying it
// only when it is not cached.
func (c *Cache) ClassifyWith(line string, opts Options) Verdict {
	key := cacheKey{line, opts}
	c.mu.Lock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		c.hits++
		v := e.Value.(*cacheEntry).v
		c.mu.Unlock()
		return v
	}
	c.misses++
	c.mu.Unlock()

	// Classify outside the lock: it is the slow part, and two callers
	// racing on the same line get equal verdicts.
	v := ClassifyWith(line, opts)

	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry).v
	}
	c.items[key] = c.order.PushFront(&cacheEntry{key, v})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cacheEntry).key)
	}
	return v
}

// Len returns the number of verdicts held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
