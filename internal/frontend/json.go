package frontend

import (
	"encoding/json"
	"io"

	"github.com/wisp-agent/wisp/internal/event"
)

// JSONLines renders --mode json: every event as one JSON line. A retry is
// followed by a fresh message_start, because the retried request streams
// the message again from its start: a client that joins the deltas after
// the last message_start then holds the message once, never a failed
// attempt's text in front of it (docs/events.md).
func JSONLines(w io.Writer) event.Sink {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(e event.Event) {
		_ = enc.Encode(e)
		if _, ok := e.(event.Retry); ok {
			_ = enc.Encode(event.MessageStart{Header: e.Head()})
		}
	}
}
