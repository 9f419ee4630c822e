// Package template resolves the {{...}} references of a wisp step in one
// pass: prior step results and output_to paths, and inside a for_each step
// the current element. It must never re-read text it substituted, and it
// leaves any reference it cannot resolve exactly as written, so that the
// call fails visibly downstream.
package template

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
)

// Step is what a later step may reference of an earlier one.
type Step struct {
	// Result is the step's output text.
	Result string
	// OutputTo is the step's output_to path ("" when it has none).
	OutputTo string

	once    sync.Once
	parsed  any
	invalid bool
}

// Scope is everything one resolution can see.
type Scope struct {
	// Steps are the earlier steps by id, lower-cased.
	Steps map[string]*Step
	// Item is the current for_each element; HasItem says there is one.
	Item    any
	HasItem bool
	// Index is the element's zero-based position.
	Index int
	// As is the step's alias for the element ("" when none).
	As string
}

// Resolve substitutes every reference in s that resolves. Text put in is
// never scanned again.
func Resolve(s string, sc *Scope) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.Index(s[open+2:], "}}")
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:open])
		expr := s[open+2 : open+2+end]
		if v, ok := lookup(strings.TrimSpace(expr), sc); ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[open : open+4+end])
		}
		s = s[open+4+end:]
	}
}

// ResolveJSON substitutes references inside every string value of a JSON
// document; keys are left as they are. Invalid JSON comes back unchanged.
func ResolveJSON(doc json.RawMessage, sc *Scope) json.RawMessage {
	if !bytes.Contains(doc, []byte("{{")) {
		return doc
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return doc
	}
	out, err := json.Marshal(walk(v, sc))
	if err != nil {
		return doc
	}
	return out
}

func walk(v any, sc *Scope) any {
	switch t := v.(type) {
	case string:
		return Resolve(t, sc)
	case map[string]any:
		for k, e := range t {
			t[k] = walk(e, sc)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = walk(e, sc)
		}
		return t
	}
	return v
}

// References lists the expressions of s, trimmed, in order.
func References(s string) []string {
	var out []string
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			return out
		}
		end := strings.Index(s[open+2:], "}}")
		if end < 0 {
			return out
		}
		out = append(out, strings.TrimSpace(s[open+2:open+2+end]))
		s = s[open+4+end:]
	}
}

func lookup(expr string, sc *Scope) (string, bool) {
	if sc == nil {
		return "", false
	}
	if sc.HasItem {
		if expr == "item_index" {
			return strconv.Itoa(sc.Index), true
		}
		for _, name := range []string{"item", sc.As} {
			if name == "" {
				continue
			}
			if expr == name {
				return Text(sc.Item), true
			}
			if rest, ok := strings.CutPrefix(expr, name+"."); ok {
				v, ok := Path(sc.Item, rest)
				if !ok {
					return "", false
				}
				return Text(v), true
			}
		}
	}
	rest, ok := strings.CutPrefix(expr, "steps.")
	if !ok {
		return "", false
	}
	id, field, _ := strings.Cut(rest, ".")
	st, ok := sc.Steps[strings.ToLower(id)]
	if !ok {
		return "", false
	}
	switch {
	case field == "output_to":
		if st.OutputTo == "" {
			return "", false
		}
		return st.OutputTo, true
	case field == "result":
		return st.Result, true
	}
	path, ok := strings.CutPrefix(field, "result.")
	if !ok {
		return "", false
	}
	v, ok := st.Value()
	if !ok {
		return "", false
	}
	v, ok = Path(v, path)
	if !ok {
		return "", false
	}
	return Text(v), true
}

// Value is the step's result as a JSON value, parsed once.
func (st *Step) Value() (any, bool) {
	st.once.Do(func() {
		d := json.NewDecoder(strings.NewReader(st.Result))
		d.UseNumber()
		if err := d.Decode(&st.parsed); err != nil || d.More() {
			st.invalid = true
		}
	})
	return st.parsed, !st.invalid
}

// Path walks object keys only: an array cannot be indexed by a path, as
// the spec says.
func Path(v any, path string) (any, bool) {
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok = m[key]
		if !ok {
			return nil, false
		}
	}
	return v, true
}

// Text is how a value is inserted: strings unwrapped, everything else as
// its JSON text.
func Text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
