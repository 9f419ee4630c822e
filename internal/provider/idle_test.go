package provider_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/anthropic"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// A body that goes silent mid-stream fails with ErrIdle after the limit.
func TestIdleBodyStall(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: ping\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	client := &http.Client{Transport: provider.IdleTransport(nil, 100*time.Millisecond)}
	res, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, err = io.ReadAll(res.Body)
	if !errors.Is(err, provider.ErrIdle) {
		t.Fatalf("err = %v, want ErrIdle", err)
	}
	if ok, _ := provider.Retryable(err); !ok {
		t.Error("an idle stream must be retried")
	}
}

// A provider that does not answer within the limit is retried, and the
// retry reaches the next turn.
func TestIdleHeadersRetried(t *testing.T) {
	srv, err := fake.Start(fake.Script{Turns: []fake.Turn{{Text: "late", DelayMS: 2000}, {Text: "on time"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: srv.URL(), HTTPClient: &http.Client{Transport: provider.IdleTransport(nil, 200*time.Millisecond)}})
	retries := 0
	p = provider.WithRetry(p, provider.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
	res, err := p.Stream(context.Background(), provider.Request{Model: "m", Messages: []chat.Message{chat.UserText("hi")}},
		provider.Callbacks{Retry: func(int, time.Duration, error) { retries++ }})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Message.TextOf(); got != "on time" || retries != 1 {
		t.Errorf("got %q after %d retries, want \"on time\" after 1", got, retries)
	}
}
