package wisps

import (
	"encoding/json"
	"strings"
)

// Mode says who runs a step: the harness alone or a small model.
type Mode string

const (
	Direct Mode = "Direct"
	Llm    Mode = "Llm"
)

// Gateway says what kind of tool a direct step calls.
type Gateway string

const (
	Mcp    Gateway = "Mcp"
	A2A    Gateway = "A2A"
	Script Gateway = "Script"
	Web    Gateway = "Web"
)

// Failure actions of on_failure.
const (
	ActionAbort  = "abort"
	ActionSkipTo = "skip_to"
)

// Item failure policies of a for_each step.
const (
	ItemAbort    = "abort"
	ItemContinue = "continue"
)

// Limits of for_each and batches, as WispOptions fixes them.
const (
	ForEachDefaultMaxItems  = 25
	ForEachMaxItemsCeiling  = 100
	ForEachMaxConcurrency   = 4
	ForEachDefaultParallel  = 1
	MaxConcurrentWisps      = 10
	DefaultLanguage         = "python"
	InlineInputLimit        = 8000
	PriorResultLimit        = 4000
	OutputPreviewLimit      = 2000
	ForEachOutputLimit      = 4000
	failedIndicesRecorded   = 10
	defaultStepTimeoutLimit = 60
)

// Languages a Script step may use.
var Languages = []string{"python", "bash", "sh", "node"}

// Definition is one wisp: a description, extra tools for its LLM steps
// and the steps in order.
type Definition struct {
	Description string   `json:"description,omitempty"`
	Tools       []string `json:"tools,omitempty"`
	Steps       []Step   `json:"steps"`
}

// OnFailure is what happens when a step fails.
type OnFailure struct {
	Action string `json:"action"`
	SkipTo string `json:"skip_to,omitempty"`
}

// Step is one step of a wisp, with the fields of the spec. Params holds
// whichever of params, input or arguments the author used.
type Step struct {
	ID             string          `json:"id"`
	Mode           Mode            `json:"mode"`
	Gateway        Gateway         `json:"gateway,omitempty"`
	Server         string          `json:"server,omitempty"`
	Tool           string          `json:"tool,omitempty"`
	Language       string          `json:"language,omitempty"`
	Params         json.RawMessage `json:"params,omitempty"`
	Prompt         string          `json:"prompt,omitempty"`
	Agent          string          `json:"agent,omitempty"`
	Skill          string          `json:"skill,omitempty"`
	Message        string          `json:"message,omitempty"`
	TimeoutMinutes float64         `json:"timeout_minutes,omitempty"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
	InputFrom      string          `json:"input_from,omitempty"`
	OutputTo       string          `json:"output_to,omitempty"`
	OnFailure      *OnFailure      `json:"on_failure,omitempty"`
	ForEach        string          `json:"for_each,omitempty"`
	As             string          `json:"as,omitempty"`
	MaxItems       int             `json:"max_items,omitempty"`
	Concurrency    int             `json:"concurrency,omitempty"`
	OnItemFailure  string          `json:"on_item_failure,omitempty"`
}

// Iterates says the step runs once per element.
func (s *Step) Iterates() bool { return s.ForEach != "" }

// ItemLimit is max_items clamped to the ceiling.
func (s *Step) ItemLimit() int {
	switch {
	case s.MaxItems <= 0:
		return ForEachDefaultMaxItems
	case s.MaxItems > ForEachMaxItemsCeiling:
		return ForEachMaxItemsCeiling
	}
	return s.MaxItems
}

// Parallel is concurrency clamped to the ceiling.
func (s *Step) Parallel() int {
	switch {
	case s.Concurrency <= 0:
		return ForEachDefaultParallel
	case s.Concurrency > ForEachMaxConcurrency:
		return ForEachMaxConcurrency
	}
	return s.Concurrency
}

// ItemPolicy is on_item_failure with its default.
func (s *Step) ItemPolicy() string {
	if s.OnItemFailure == "" {
		return ItemAbort
	}
	return s.OnItemFailure
}

// Action is on_failure's action with its default.
func (s *Step) Action() string {
	if s.OnFailure == nil || s.OnFailure.Action == "" {
		return ActionAbort
	}
	return s.OnFailure.Action
}

// ScriptLanguage is language with its default.
func (s *Step) ScriptLanguage() string {
	if s.Language == "" {
		return DefaultLanguage
	}
	return strings.ToLower(s.Language)
}
