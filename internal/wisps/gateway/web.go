package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/wisp-agent/wisp/internal/tool"
)

// Bounds of one web_browse call.
const (
	// browseReadBytes is the most of a page that is read.
	browseReadBytes = 2 << 20
	// BrowseTextBytes is the most readable text returned.
	BrowseTextBytes = 50 * 1024
	browseTimeout   = 30 * time.Second
	browseRedirects = 5
	browseUserAgent = "wisp-web-browse/1"
)

// Browse fetches a URL and returns its readable text. It is a remote
// tool of class command, so the gate asks before every fetch: a request
// leaves the machine, and the sandbox does not see it.
type Browse struct {
	// Client makes the request (nil: a client with the bounds above).
	Client *http.Client
}

// Spec describes web_browse.
func (b *Browse) Spec() tool.Spec {
	return tool.Spec{
		Name:        "web_browse",
		Description: fmt.Sprintf("Fetch an http(s) URL and return its readable text (scripts, styles and markup removed), at most %d KB.", BrowseTextBytes/1024),
		Schema:      json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","description":"http or https URL"}},"required":["url"],"additionalProperties":false}`),
		Class:       tool.Command,
	}
}

func browseURL(args json.RawMessage) (*url.URL, error) {
	var a struct {
		URL string `json:"url"`
	}
	d := json.NewDecoder(strings.NewReader(string(args)))
	d.DisallowUnknownFields()
	if err := d.Decode(&a); err != nil {
		return nil, fmt.Errorf("invalid arguments for web_browse (it takes url only): %v", err)
	}
	u, err := url.Parse(a.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("missing required parameter url: an http or https URL, not %q", a.URL)
	}
	return u, nil
}

// Invocation is what the person asked sees.
func (b *Browse) Invocation(args json.RawMessage) (tool.Invocation, error) {
	u, err := browseURL(args)
	if err != nil {
		return tool.Invocation{}, err
	}
	return tool.Invocation{Server: "web", Tool: "web_browse", Subject: "web_browse GET " + u.String(), Network: true}, nil
}

// Run fetches the page.
func (b *Browse) Run(ctx context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	u, err := browseURL(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	ctx, cancel := context.WithTimeout(ctx, browseTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	req.Header.Set("User-Agent", browseUserAgent)
	resp, err := b.client().Do(req)
	if err != nil {
		return tool.Errorf("fetch %s: connection failed: %v", u, err), nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, browseReadBytes))
	if err != nil {
		return tool.Errorf("fetch %s: %v", u, err), nil
	}
	if resp.StatusCode >= 400 {
		return tool.Errorf("fetch %s: %s", u, resp.Status), nil
	}
	text := string(body)
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "html") || (ct == "" && strings.Contains(strings.ToLower(text[:min(len(text), 512)]), "<html")) {
		text = Readable(text)
	}
	return tool.Result{Content: bound(text, BrowseTextBytes)}, nil
}

func (b *Browse) client() *http.Client {
	if b.Client != nil {
		return b.Client
	}
	return &http.Client{Timeout: browseTimeout, CheckRedirect: func(_ *http.Request, via []*http.Request) error {
		if len(via) >= browseRedirects {
			return fmt.Errorf("more than %d redirects", browseRedirects)
		}
		return nil
	}}
}

func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf("\n[text truncated at %d bytes]", n)
}

// Readable is the visible text of an HTML page, one block per line.
func Readable(page string) string {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return page
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "script", "style", "noscript", "template", "svg", "head":
				return
			case "p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "pre", "table":
				b.WriteString("\n")
			}
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
