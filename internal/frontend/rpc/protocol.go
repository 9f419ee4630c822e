package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Error codes of commands that were read but could not be done.
const (
	CodeInvalidRequest = "invalid_request" // not an object, no type, a bad id, an unknown field
	CodeUnknownCommand = "unknown_command"
	CodeInvalidParams  = "invalid_params" // a field missing or of the wrong kind
	CodeBusy           = "busy"           // a run is live: steer, follow_up or cancel it
	CodeIdle           = "idle"           // no run is live
	CodeQueueFull      = "queue_full"
	CodeNoApproval     = "no_approval" // no question is pending for that call
	CodeNotFound       = "not_found"   // no such session or message
	CodeNoSession      = "no_session"  // the session could not be reopened after a failed switch
	CodeNotAvailable   = "not_available"
	CodeFailed         = "failed" // anything else; the message says what
)

// Response answers one command.
type Response struct {
	Type    string          `json:"type"` // always "response"
	ID      json.RawMessage `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Data    any             `json:"data,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error says why a command failed: a code from the lists above and a
// message for a person.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func failure(code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

// request is a frame read as a command: its id (echoed verbatim), its
// type, and its other fields, checked against the command's parameters.
type request struct {
	ID     json.RawMessage
	Type   string
	Fields map[string]json.RawMessage
}

// parseRequest reads a frame as a command envelope. Whatever it could
// read of the id and type is returned with an error too, so that the
// error response names them.
func parseRequest(frame []byte) (request, *Error) {
	var req request
	if err := checkJSON(frame); err != nil {
		fe := err.(*FrameError)
		return req, &Error{Code: fe.Code, Message: fe.Msg}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(frame, &fields); err != nil || fields == nil {
		return req, failure(CodeInvalidRequest, "a command is a JSON object with a \"type\"")
	}
	if id, ok := fields["id"]; ok {
		delete(fields, "id")
		if !validID(id) {
			return req, failure(CodeInvalidRequest, "\"id\" must be a string or a number")
		}
		req.ID = id
	}
	raw, ok := fields["type"]
	delete(fields, "type")
	if !ok || json.Unmarshal(raw, &req.Type) != nil || req.Type == "" {
		return req, failure(CodeInvalidRequest, "a command needs a \"type\" string naming it (get_commands lists them)")
	}
	req.Fields = fields
	return req, nil
}

func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// decodeParams fills p (a pointer to a parameters struct) from the
// request's fields. Field names must match exactly: encoding/json
// alone would take "Message" for "message".
func decodeParams(req request, p any) *Error {
	known := fieldNames(p)
	for k := range req.Fields {
		if !known[k] {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			want := "none"
			if len(names) > 0 {
				want = strings.Join(names, ", ")
			}
			return failure(CodeInvalidRequest, "%s has no field %q (its fields: %s)", req.Type, k, want)
		}
	}
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, ok := req.Fields[name]
		if !ok {
			if f.Tag.Get("rpc") == "required" {
				return failure(CodeInvalidParams, "%s needs %q", req.Type, name)
			}
			continue
		}
		if err := json.Unmarshal(raw, v.Field(i).Addr().Interface()); err != nil {
			return failure(CodeInvalidParams, "%s: %q must be %s", req.Type, name, kindName(f.Type))
		}
	}
	return nil
}

// fieldNames lists the JSON names of a parameters struct's fields.
func fieldNames(p any) map[string]bool {
	t := reflect.TypeOf(p).Elem()
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = true
	}
	return out
}

func kindName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	}
	return "a " + t.Kind().String()
}
