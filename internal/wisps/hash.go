package wisps

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// hashLen is how many hex digits of a SHA-256 a hash keeps.
const hashLen = 16

// DefinitionHash identifies a definition's full content: the same wisp
// written with other key order or whitespace hashes the same. Fields that
// are unset are left out, so adding optional fields to the format keeps
// older wisps' hashes.
func DefinitionHash(d Definition) string {
	b, _ := json.Marshal(d)
	return digest(canonical(b))
}

// ShapeHash identifies what a wisp does, not what it is about: the
// description and parameter values are left out, parameter names and the
// for_each fields kept.
func ShapeHash(d Definition) string {
	type shapeStep struct {
		ID            string   `json:"id"`
		Mode          Mode     `json:"mode"`
		Gateway       Gateway  `json:"gateway,omitempty"`
		Server        string   `json:"server,omitempty"`
		Tool          string   `json:"tool,omitempty"`
		Language      string   `json:"language,omitempty"`
		Agent         string   `json:"agent,omitempty"`
		Skill         string   `json:"skill,omitempty"`
		Params        []string `json:"params,omitempty"`
		InputFrom     bool     `json:"input_from,omitempty"`
		OutputTo      bool     `json:"output_to,omitempty"`
		OnFailure     string   `json:"on_failure,omitempty"`
		ForEach       string   `json:"for_each,omitempty"`
		As            string   `json:"as,omitempty"`
		MaxItems      int      `json:"max_items,omitempty"`
		Concurrency   int      `json:"concurrency,omitempty"`
		OnItemFailure string   `json:"on_item_failure,omitempty"`
	}
	shape := struct {
		Tools []string    `json:"tools,omitempty"`
		Steps []shapeStep `json:"steps"`
	}{Tools: append([]string(nil), d.Tools...)}
	sort.Strings(shape.Tools)
	for _, st := range d.Steps {
		s := shapeStep{ID: strings.ToLower(st.ID), Mode: st.Mode, Gateway: st.Gateway, Server: st.Server, Tool: st.Tool,
			Language: st.Language, Agent: st.Agent, Skill: st.Skill, Params: paramNames(st.Params),
			InputFrom: st.InputFrom != "", OutputTo: st.OutputTo != "", ForEach: st.ForEach, As: st.As,
			MaxItems: st.MaxItems, Concurrency: st.Concurrency, OnItemFailure: st.OnItemFailure}
		if st.OnFailure != nil {
			s.OnFailure = st.OnFailure.Action + ":" + strings.ToLower(st.OnFailure.SkipTo)
		}
		shape.Steps = append(shape.Steps, s)
	}
	b, _ := json.Marshal(shape)
	return digest(b)
}

func paramNames(p json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(p, &m) != nil {
		return nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// canonical re-encodes JSON with sorted keys and no spaces.
func canonical(b []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return b
	}
	out, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return b
	}
	return out
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:hashLen]
}
