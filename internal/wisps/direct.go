package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/template"
)

// outcome is one call's end, classified.
type outcome struct {
	output   string
	ok       bool
	errText  string
	category Category
	call     CallRecord
}

// invoke makes one call through the Caller and classifies its end.
func (r *wispRun) invoke(ctx context.Context, name string, args json.RawMessage) outcome {
	spec, _ := r.x.o.Tools.Spec(name)
	o := outcome{call: CallRecord{Tool: name, Write: spec.Class != "" && spec.Class != tool.Read}}
	res, err := r.x.o.Tools.Call(ctx, name, args)
	o.output = res.Content
	switch {
	case res.Refusal != "":
		o.errText = fmt.Sprintf("not run: the gate refused %s (%s)", name, res.Refusal)
		o.category = Judgment
	case err != nil:
		o.errText = fmt.Sprintf("%s failed: %v", name, err)
		o.category = Classify(false, "", err)
	case res.IsError:
		o.errText = strings.TrimSpace(strings.TrimPrefix(res.Content, "error: "))
		if o.errText == "" {
			o.errText = name + " failed"
		}
		o.category = Classify(false, res.Content, nil)
	default:
		o.ok = true
	}
	if ctx.Err() != nil && !o.ok && o.category != Judgment {
		o.category = External
	}
	o.call.OK = o.ok
	return o
}

// args resolves a direct step's arguments in a scope.
func (r *wispRun) args(st Step, sc *template.Scope) (json.RawMessage, error) {
	if st.Gateway == A2A {
		st.Message = template.Resolve(st.Message, sc)
	}
	return callArgs(st, template.ResolveJSON(st.Params, sc))
}

// direct runs a step that calls one tool once.
func (r *wispRun) direct(ctx context.Context, st Step) StepResult {
	name := r.plan.Route[strings.ToLower(st.ID)]
	sr := StepResult{Tool: name}
	args, err := r.args(st, &r.scope)
	if err != nil {
		sr.Status, sr.Category, sr.Error = StatusFailed, Structural, err.Error()
		return sr
	}
	o := r.invoke(ctx, name, args)
	sr.Calls = []CallRecord{o.call}
	sr.Output = o.output
	if o.ok {
		sr.Status = StatusOK
		return sr
	}
	sr.Status, sr.Category, sr.Error = StatusFailed, o.category, o.errText
	return sr
}
