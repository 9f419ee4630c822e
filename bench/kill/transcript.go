package kill

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

var errNoTranscript = errors.New("no transcript")

// record is the part of a transcript line the harness reads.
type record struct {
	Type    string `json:"type"`
	Message *struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Text      string `json:"text"`
}

// readTranscript reads the one transcript under home's session folder;
// nil when there is none yet. A torn last line is skipped.
func readTranscript(home string) ([]record, error) {
	files, _ := filepath.Glob(filepath.Join(home, ".wisp", "sessions", "*", "*.jsonl"))
	if len(files) == 0 {
		return nil, errNoTranscript
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		return nil, err
	}
	var out []record
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r record
		if len(line) > 0 && json.Unmarshal(line, &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func blocksOf(content []json.RawMessage) []block {
	var out []block
	for _, raw := range content {
		var b block
		if json.Unmarshal(raw, &b) == nil {
			out = append(out, b)
		}
	}
	return out
}

func hasToolResult(content []json.RawMessage) bool { return countToolResults(content) > 0 }

func countToolResults(content []json.RawMessage) int {
	n := 0
	for _, b := range blocksOf(content) {
		if b.Type == "tool_result" {
			n++
		}
	}
	return n
}

// recordedResults maps call ids to the result text the transcript holds.
func recordedResults(recs []record) map[string]string {
	out := map[string]string{}
	for _, r := range recs {
		if r.Type != "message" || r.Message == nil || r.Message.Role != "user" {
			continue
		}
		for _, b := range blocksOf(r.Message.Content) {
			if b.Type == "tool_result" {
				out[b.ToolUseID] = b.Text
			}
		}
	}
	return out
}
