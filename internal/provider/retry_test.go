package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		ok    bool
		after time.Duration
	}{
		{"429 with retry-after", fmt.Errorf("x: %w", &APIError{Status: 429, RetryAfter: 2 * time.Second}), true, 2 * time.Second},
		{"500", &APIError{Status: 500}, true, 0},
		{"529 overloaded", &APIError{Status: 529}, true, 0},
		{"400", &APIError{Status: 400}, false, 0},
		{"401", &APIError{Status: 401}, false, 0},
		{"404", &APIError{Status: 404}, false, 0},
		{"cut stream", fmt.Errorf("x: %w", ErrStreamCut), true, 0},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true, 0},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, true, 0},
		{"connection refused", fmt.Errorf("post: %w", syscall.ECONNREFUSED), true, 0},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), false, 0},
		{"canceled while cut", fmt.Errorf("%w: %w", ErrStreamCut, context.Canceled), false, 0},
		{"deadline", context.DeadlineExceeded, false, 0},
		{"plain error", errors.New("bad schema"), false, 0},
		{"nil", nil, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ok, after := Retryable(tc.err)
			if ok != tc.ok || after != tc.after {
				t.Errorf("Retryable = %v, %v; want %v, %v", ok, after, tc.ok, tc.after)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "7", "retry-after-ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"none", nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := ParseRetryAfter(h, now); got != tc.want {
				t.Errorf("ParseRetryAfter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDelay(t *testing.T) {
	p := RetryPolicy{Base: time.Second, Cap: 5 * time.Second}
	cases := []struct {
		name       string
		n          int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{"first backoff", 1, 0, 500 * time.Millisecond, time.Second},
		{"third backoff doubles twice", 3, 0, 2 * time.Second, 4 * time.Second},
		{"backoff capped", 10, 0, 2500 * time.Millisecond, 5 * time.Second},
		{"retry-after exact", 1, 3 * time.Second, 3 * time.Second, 3 * time.Second},
		{"retry-after capped", 1, time.Hour, 5 * time.Second, 5 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 {
				if d := p.Delay(tc.n, tc.retryAfter); d < tc.lo || d > tc.hi {
					t.Fatalf("Delay = %v, want within [%v, %v]", d, tc.lo, tc.hi)
				}
			}
		})
	}
}

// scripted is a Provider that fails with the given errors, then succeeds.
type scripted struct {
	errs  []error
	calls int
}

func (s *scripted) Stream(ctx context.Context, req Request, cb Callbacks) (Response, error) {
	s.calls++
	if s.calls <= len(s.errs) {
		return Response{}, s.errs[s.calls-1]
	}
	return Response{StopReason: "end_turn"}, nil
}

func TestWithRetry(t *testing.T) {
	e500 := &APIError{Status: 500, Message: "boom"}
	noSleep := func(context.Context, time.Duration) error { return nil }
	cases := []struct {
		name     string
		pol      RetryPolicy
		errs     []error
		calls    int
		attempts []int
		wantErr  string
	}{
		{"succeeds after two failures", RetryPolicy{Sleep: noSleep}, []error{e500, e500}, 3, []int{2, 3}, ""},
		{"gives up after max retries", RetryPolicy{Sleep: noSleep}, []error{e500, e500, e500}, 3, []int{2, 3}, "gave up after 3 attempts: HTTP 500 Internal Server Error: boom"},
		{"negative max turns retrying off", RetryPolicy{MaxRetries: -1, Sleep: noSleep}, []error{e500}, 1, nil, "HTTP 500 Internal Server Error: boom"},
		{"not retryable fails at once", RetryPolicy{Sleep: noSleep}, []error{&APIError{Status: 400, Message: "bad"}}, 1, nil, "HTTP 400 Bad Request: bad"},
		{"wait interrupted", RetryPolicy{Sleep: func(context.Context, time.Duration) error { return context.Canceled }}, []error{e500}, 1, []int{2}, "wait to retry: context canceled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{errs: tc.errs}
			var attempts []int
			cb := Callbacks{Retry: func(a int, _ time.Duration, _ error) { attempts = append(attempts, a) }}
			_, err := WithRetry(s, tc.pol).Stream(context.Background(), Request{}, cb)
			if s.calls != tc.calls || fmt.Sprint(attempts) != fmt.Sprint(tc.attempts) {
				t.Errorf("calls %d attempts %v; want %d %v", s.calls, attempts, tc.calls, tc.attempts)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want prefix %q", err, tc.wantErr)
			}
		})
	}
}

func TestWithRetryStopsOnCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &scripted{errs: []error{&APIError{Status: 503}}}
	if _, err := WithRetry(s, RetryPolicy{}).Stream(ctx, Request{}, Callbacks{}); err == nil || s.calls != 1 {
		t.Errorf("err %v after %d calls, want an error after 1", err, s.calls)
	}
}

func TestErrorFromResponse(t *testing.T) {
	cases := []struct{ body, want string }{
		{`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too big"}}`, "max_tokens: too big"},
		{`{"error":"model not found"}`, "model not found"},
		{`{"object":"error","message":"vllm says no","type":"BadRequestError"}`, "vllm says no"},
		{`{"detail":"Not Found"}`, "Not Found"},
		{"  <h1>502</h1>\n", "<h1>502</h1>"},
		{strings.Repeat("x", 400), strings.Repeat("x", 300) + "…"},
	}
	for _, tc := range cases {
		res := &http.Response{StatusCode: 400, Header: http.Header{"Retry-After": {"2"}}, Body: io.NopCloser(strings.NewReader(tc.body))}
		e := ErrorFromResponse(res)
		if e.Message != tc.want || e.Status != 400 || e.RetryAfter != 2*time.Second {
			t.Errorf("body %.30q: got %+v, want message %q", tc.body, e, tc.want)
		}
	}
}
