package rpc

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/event"
)

// The examples in docs/rpc.md are checked against the implementation:
// each command example is read as the server reads it, each response
// names a command and carries exactly the fields its data type has, and
// each event is one of the session's with only its fields.

type docExample struct {
	section string // the "### name" it stands under
	line    int
	raw     string
	fields  map[string]json.RawMessage
}

func docExamples(t *testing.T) (examples []docExample, text string) {
	t.Helper()
	data, err := os.ReadFile("../../../docs/rpc.md")
	if err != nil {
		t.Fatal(err)
	}
	section, inJSON := "", false
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = ""
		case strings.HasPrefix(line, "### "):
			section = strings.TrimPrefix(line, "### ")
		case line == "```json":
			inJSON = true
		case line == "```":
			inJSON = false
		case inJSON && strings.TrimSpace(line) != "":
			if err := checkJSON([]byte(line)); err != nil {
				t.Fatalf("docs/rpc.md:%d: %v", n, err)
			}
			ex := docExample{section: section, line: n, raw: line}
			if err := json.Unmarshal([]byte(line), &ex.fields); err != nil {
				t.Fatalf("docs/rpc.md:%d: not an object: %v", n, err)
			}
			examples = append(examples, ex)
		}
	}
	return examples, string(data)
}

// jsonKeys are a struct type's JSON names, and whether each may be left
// out (omitempty); embedded structs give theirs.
func jsonKeys(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			for k, v := range jsonKeys(f.Type) {
				out[k] = v
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		out[name] = strings.Contains(opts, "omitempty")
	}
	return out
}

func errorCodes() []string {
	return []string{CodeFrameTooLarge, CodeInvalidUTF8, CodeTornFrame, CodeInvalidJSON, CodeDuplicateKey,
		CodeInvalidRequest, CodeUnknownCommand, CodeInvalidParams, CodeBusy, CodeIdle, CodeQueueFull,
		CodeNoApproval, CodeNotFound, CodeNoSession, CodeNotAvailable, CodeFailed}
}

// eventKinds are the events an RPC client gets (session_end is the
// transcript's alone).
func eventKinds() []event.Event {
	return []event.Event{event.AgentStart{}, event.AgentEnd{}, event.TurnStart{}, event.TurnEnd{}, event.MessageStart{},
		event.MessageDelta{}, event.MessageEnd{}, event.ToolCall{}, event.ToolStart{}, event.ToolEnd{}, event.ToolResult{},
		event.ApprovalRequest{}, event.ApprovalDecision{}, event.Retry{}, event.Error{}}
}

func TestDocsExamples(t *testing.T) {
	examples, text := docExamples(t)
	table, order := commandTable()
	codes := map[string]bool{}
	for _, c := range errorCodes() {
		codes[c] = true
		if !strings.Contains(text, "| `"+c+"` |") {
			t.Errorf("docs/rpc.md: the error code %s is not in the table", c)
		}
	}
	if rows := regexp.MustCompile("(?m)^\\| `([a-z_0-9]+)` \\|").FindAllString(text, -1); len(rows) != len(codes) {
		t.Errorf("docs/rpc.md lists %d error codes, the implementation has %d", len(rows), len(codes))
	}
	// Each kind's own fields, and "type".
	events := map[string]map[string]bool{}
	for _, e := range eventKinds() {
		events[string(e.Kind())] = jsonKeys(reflect.TypeOf(e))
		events[string(e.Kind())]["type"] = false
	}
	seenCmd, seenResp, seenEvent := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, ex := range examples {
		typ := str(ex.fields["type"])
		where := "docs/rpc.md:" + itoa(ex.line)
		switch c, isCmd := table[typ]; {
		case typ == "response":
			checkDocResponse(t, where, ex, table, codes)
			seenResp[str(ex.fields["command"])] = true
		case isCmd:
			if ex.section != "" && ex.section != typ {
				t.Errorf("%s: a %s command under ### %s", where, typ, ex.section)
			}
			req, perr := parseRequest([]byte(ex.raw))
			if perr == nil {
				perr = decodeParams(req, reflect.New(reflect.TypeOf(c.params).Elem()).Interface())
			}
			if perr != nil {
				t.Errorf("%s: the example command is refused: %v", where, perr)
			}
			seenCmd[typ] = true
		case events[typ] != nil:
			for k := range ex.fields {
				if _, ok := events[typ][k]; !ok {
					t.Errorf("%s: %s has no field %q", where, typ, k)
				}
			}
			if _, err := event.Decode([]byte(ex.raw)); err != nil {
				t.Errorf("%s: %v", where, err)
			}
			seenEvent[typ] = true
		default:
			t.Errorf("%s: %q is neither a command, a response nor an event", where, typ)
		}
	}
	for _, name := range order {
		if !strings.Contains(text, "\n### "+name+"\n") || !seenCmd[name] || !seenResp[name] {
			t.Errorf("docs/rpc.md: %s needs a section with a command and a response example", name)
		}
	}
	for e := range events {
		if !seenEvent[e] {
			t.Errorf("docs/rpc.md: no example of the %s event", e)
		}
	}
}

// checkDocResponse checks a documented response against the command's
// data type, or its error against the codes.
func checkDocResponse(t *testing.T, where string, ex docExample, table map[string]command, codes map[string]bool) {
	t.Helper()
	name := str(ex.fields["command"])
	c, ok := table[name]
	if !ok && name != "" {
		t.Errorf("%s: a response to the unknown command %q", where, name)
		return
	}
	if ex.section != "" && ex.section != name {
		t.Errorf("%s: a response to %s under ### %s", where, name, ex.section)
	}
	for k := range ex.fields {
		if _, ok := jsonKeys(reflect.TypeOf(Response{}))[k]; !ok {
			t.Errorf("%s: a response has no field %q", where, k)
		}
	}
	if string(ex.fields["success"]) == "false" {
		var e Error
		if err := json.Unmarshal(ex.fields["error"], &e); err != nil || !codes[e.Code] || e.Message == "" {
			t.Errorf("%s: the error is not a known code with a message: %s", where, ex.fields["error"])
		}
		if _, has := ex.fields["data"]; has {
			t.Errorf("%s: an error response with data", where)
		}
		return
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(ex.fields["data"], &data); err != nil {
		t.Errorf("%s: data is not an object", where)
		return
	}
	keys := jsonKeys(reflect.TypeOf(c.data))
	for k := range data {
		if _, ok := keys[k]; !ok {
			t.Errorf("%s: %s's data has no field %q", where, name, k)
		}
	}
	for k, optional := range keys {
		if _, ok := data[k]; !ok && !optional {
			t.Errorf("%s: %s's data lacks %q", where, name, k)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
