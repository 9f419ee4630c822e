package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrStreamCut marks a response that stopped before the message was
// complete: the stream ended without its closing event (message_stop, a
// finish reason or [DONE]). It is retryable. A complete message whose tool
// arguments are malformed is not cut: see Response.Malformed.
var ErrStreamCut = errors.New("stream cut before the message was complete")

// APIError is a provider's refusal, converted from the SDK error at the
// edge so that retry and reporting do not depend on SDK types. Status 0
// means the failure had no HTTP status (a transport error in Err).
type APIError struct {
	Status int
	// RetryAfter is what the server asked us to wait; 0 when it said nothing.
	RetryAfter time.Duration
	// Message is the provider's own explanation, from its error body.
	Message string
	Err     error
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Status != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
	}
	msg := e.Message
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	// The message is the server's own text: it may carry anything.
	msg = Escape(msg)
	if msg != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(msg)
	}
	if b.Len() == 0 {
		return "provider error"
	}
	return b.String()
}

func (e *APIError) Unwrap() error { return e.Err }

// ErrorFromResponse turns an HTTP error response into an *APIError and
// closes its body. It reads the provider's message from the usual JSON
// shapes ({"error":{"message"}}, {"error":"..."}, {"message"}, {"detail"})
// and otherwise quotes the start of the body, so that servers which only
// look like OpenAI or Anthropic still fail with a readable message.
func ErrorFromResponse(res *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	return &APIError{
		Status:     res.StatusCode,
		RetryAfter: ParseRetryAfter(res.Header, time.Now()),
		Message:    errorMessage(body),
	}
}

func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var s string
		var inner struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case v.Message != "":
			return v.Message
		case json.Unmarshal(v.Detail, &s) == nil && s != "":
			return s
		}
	}
	text := strings.Join(strings.Fields(string(body)), " ")
	if r := []rune(text); len(r) > 300 {
		text = string(r[:300]) + "…"
	}
	return text
}

// Retryable says whether a failed call may succeed if repeated, and how
// long the server asked us to wait (0 when it did not say). Rate limits,
// server errors, dropped connections and cut streams are retryable;
// cancellation and client errors (bad request, auth, not found) are not.
func Retryable(err error) (bool, time.Duration) {
	if err == nil || errors.Is(err, context.Canceled) || IsBoundError(err) {
		return false, 0
	}
	// An HTTP timeout (no response headers within the idle limit) also
	// matches context.DeadlineExceeded; the caller's own deadline is
	// checked by the retry loop before it asks.
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Timeout() {
		return true, 0
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return false, 0
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) && apiErr.Status != 0 {
		ok := apiErr.Status == http.StatusTooManyRequests || apiErr.Status >= 500
		return ok, apiErr.RetryAfter
	}
	if errors.Is(err, ErrStreamCut) || errors.Is(err, ErrIdle) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true, 0
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return true, 0
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		return true, 0
	}
	return false, 0
}

// ParseRetryAfter reads how long a response asks the client to wait:
// retry-after-ms (milliseconds), else Retry-After as seconds or an HTTP
// date. It returns 0 when neither header holds a usable value.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// RetryPolicy says how often and how patiently a call is repeated.
type RetryPolicy struct {
	// MaxRetries counts the calls after the first. 0 means 2; a negative
	// value turns retrying off.
	MaxRetries int
	// Base is the first backoff (0 means 0.5s); each retry doubles it.
	Base time.Duration
	// Cap bounds every wait, including one a server asks for (0 means 30s).
	Cap time.Duration
	// Sleep waits d or until ctx ends; nil means a real timer. Tests set it
	// to see the delays without waiting them out.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = 2
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.Base <= 0 {
		p.Base = 500 * time.Millisecond
	}
	if p.Cap <= 0 {
		p.Cap = 30 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// Delay is the wait before retry number n (1 for the first retry). A
// server's Retry-After wins over the backoff; both are capped. The backoff
// is jittered between half and all of its value so that many clients
// limited at once do not return at once.
func (p RetryPolicy) Delay(n int, retryAfter time.Duration) time.Duration {
	p = p.withDefaults()
	if retryAfter > 0 {
		return min(retryAfter, p.Cap)
	}
	d := p.Base
	for i := 1; i < n && d < p.Cap; i++ {
		d *= 2
	}
	d = min(d, p.Cap)
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// WithRetry repeats failed calls of p that Retryable accepts. Before each
// retry it tells cb.Retry which attempt comes next (the first call is
// attempt 1), the wait and the cause. Text streamed by a failed attempt is
// void: the next attempt streams the message again from its start.
func WithRetry(p Provider, pol RetryPolicy) Provider {
	return retrying{next: p, pol: pol.withDefaults()}
}

type retrying struct {
	next Provider
	pol  RetryPolicy
}

func (r retrying) Stream(ctx context.Context, req Request, cb Callbacks) (Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := r.next.Stream(ctx, req, cb)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return Response{}, err
		}
		ok, after := Retryable(err)
		if !ok || r.pol.MaxRetries == 0 {
			return Response{}, err
		}
		if attempt > r.pol.MaxRetries {
			return Response{}, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
		}
		delay := r.pol.Delay(attempt, after)
		if cb.Retry != nil {
			cb.Retry(attempt+1, delay, err)
		}
		if serr := r.pol.Sleep(ctx, delay); serr != nil {
			return Response{}, fmt.Errorf("wait to retry: %w (after: %w)", serr, err)
		}
	}
}
