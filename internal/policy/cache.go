package policy

import (
	"container/list"
	"sync"
)

// The gate checks every command line, and an agent runs the same few
// lines again and again (git status, go test ./...). Parsing a line into
// its simple commands is most of a check's cost, and a compiled policy
// never changes, so a line's decision is the same every time it is
// asked: the policy keeps the most recent ones.

// cacheSize is how many decisions a policy keeps.
const cacheSize = 256

// cacheLineMax is the longest line whose decision is kept, so that a few
// huge lines (a heredoc of a whole file) cannot hold on to much memory.
const cacheLineMax = 4 << 10

// decisionCache keeps the most recently used decisions by line. It is
// safe for concurrent use.
type decisionCache struct {
	mu    sync.Mutex
	order *list.List // front is most recently used
	items map[string]*list.Element
}

type cached struct {
	line string
	d    Decision
}

func newDecisionCache() *decisionCache {
	return &decisionCache{order: list.New(), items: make(map[string]*list.Element, cacheSize)}
}

// get returns the decision kept for line, if any.
func (c *decisionCache) get(line string) (Decision, bool) {
	if c == nil || len(line) > cacheLineMax {
		return Decision{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[line]
	if !ok {
		return Decision{}, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).d, true
}

// put keeps line's decision, dropping the least recently used one when
// the cache is full.
func (c *decisionCache) put(line string, d Decision) {
	if c == nil || len(line) > cacheLineMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[line]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.items[line] = c.order.PushFront(&cached{line, d})
	for c.order.Len() > cacheSize {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*cached).line)
	}
}

// len is the number of decisions kept.
func (c *decisionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
