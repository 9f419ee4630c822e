package builtin

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filetext"
)

//go:embed read.md
var readDescription string

var readSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","description":"first line, 1-based"},"limit":{"type":"integer","description":"max lines (2000)"}},"required":["path"]}`)

const (
	readMaxLines     = 2000
	readMaxBytes     = 50 << 10
	readMaxLineBytes = 2000
	// readCountLimit bounds how far past the shown part read goes on to
	// count the remaining lines; beyond it the note gives no count.
	readCountLimit = 64 << 20
)

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

type readTool struct{}

// Read returns the read tool: a text file with numbered lines, paged.
func Read() tool.Tool { return readTool{} }

func (readTool) Spec() tool.Spec {
	return tool.Spec{Name: "read", Description: strings.TrimSpace(readDescription), Schema: readSchema, Class: tool.Read}
}

// Describe states the limits read enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (readTool) Describe() (limits []string, example string) {
	return []string{fmt.Sprintf("at most %s lines or %d KB a call; continue with offset", tool.Thousands(readMaxLines), readMaxBytes>>10), "text files only", "inside the working directory; protected paths refused"},
		"Read internal/cli/cli.go and explain how exit codes are chosen."
}

func (readTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a readArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	switch {
	case a.Path == "":
		return tool.Errorf("path is required"), nil
	case a.Offset < 0:
		return tool.Errorf("offset must be 1 or more, got %d", a.Offset), nil
	case a.Limit < 0:
		return tool.Errorf("limit must be 1 or more, got %d", a.Limit), nil
	}
	if a.Offset == 0 {
		a.Offset = 1
	}
	if a.Limit == 0 || a.Limit > readMaxLines {
		a.Limit = readMaxLines
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	space, err := filespace.Open(env)
	if err != nil {
		return tool.Result{}, err
	}
	defer space.Close()
	rel, msg := space.Resolve(a.Path)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	fi, err := space.Stat(rel)
	switch {
	case err != nil:
		return tool.Errorf("%s", statMessage(a.Path, err)), nil
	case fi.IsDir():
		return tool.Errorf("%s is a folder; use ls to list it", a.Path), nil
	case !fi.Mode().IsRegular():
		return tool.Errorf("%s is not a regular file", a.Path), nil
	}
	f, err := space.OpenRegular(rel)
	if err != nil {
		return tool.Errorf("%s", statMessage(a.Path, err)), nil
	}
	defer f.Close()

	br := bufio.NewReaderSize(f, 64<<10)
	sample, _ := br.Peek(filetext.BinarySample)
	if len(sample) == 0 {
		return tool.Result{Content: fmt.Sprintf("(%s is empty)", a.Path)}, nil
	}
	if reason := filetext.BinaryReason(sample, len(sample) < filetext.BinarySample); reason != "" {
		return tool.Errorf("%s looks like a binary file (%s); read shows text only", a.Path, reason), nil
	}
	return readLines(ctx, br, a, fi.Size())
}

// readLines renders lines offset.. of r, cat -n style, within the limits.
func readLines(ctx context.Context, r *bufio.Reader, a readArgs, size int64) (tool.Result, error) {
	var (
		out      strings.Builder
		lineNo   int   // lines seen so far
		shown    int   // lines written
		consumed int64 // bytes read from r
		cut      bool  // some line was cut
		full     bool  // stopped by a limit with lines left
	)
	for {
		line, long, n, err := nextLine(r, readMaxLineBytes)
		consumed += int64(n)
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return tool.Errorf("read %s: %v", a.Path, err), nil
		}
		lineNo++
		if lineNo < a.Offset {
			continue
		}
		if shown == a.Limit {
			full = true
			break
		}
		if !utf8.Valid(line) {
			line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
		}
		entry := fmt.Sprintf("%6d\t%s", lineNo, line)
		if long {
			cut = true
			entry += " … [line cut]"
		}
		if shown > 0 && out.Len()+len(entry)+1 > readMaxBytes {
			full = true
			break
		}
		out.WriteString(entry)
		out.WriteByte('\n')
		shown++
		if shown%1024 == 0 && ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
	}
	if shown == 0 {
		return tool.Errorf("offset %d is past the end of %s (%s)", a.Offset, a.Path, plural(lineNo, "line", "lines")), nil
	}
	next := lineNo // the first line not shown
	if full {
		rest, known := countRest(r, size-consumed)
		more := "more lines"
		if known {
			more = plural(rest+1, "more line", "more lines")
		}
		fmt.Fprintf(&out, "[... %s; call read with offset=%d to continue]\n", more, next)
	}
	if cut {
		fmt.Fprintf(&out, "[lines longer than %d bytes were cut; use grep or bash to see them whole]\n", readMaxLineBytes)
	}
	return tool.Result{Content: out.String()}, nil
}

// nextLine returns the next line of r without its line ending (\n or
// \r\n), at most max bytes of it (cut on a rune boundary, long set), and
// n, the bytes consumed. At the end of input it returns n == 0 and io.EOF.
func nextLine(r *bufio.Reader, max int) (line []byte, long bool, n int, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if room := max + 1 - len(buf); room > 0 {
			buf = append(buf, chunk[:min(room, len(chunk))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && n == 0 {
			return nil, false, 0, err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, n, err
		}
		break
	}
	buf = bytes.TrimSuffix(buf, []byte{'\n'})
	buf = bytes.TrimSuffix(buf, []byte{'\r'})
	if len(buf) > max {
		i := max
		for i > 0 && !utf8.RuneStart(buf[i]) {
			i--
		}
		buf, long = buf[:i], true
	}
	return buf, long, n, nil
}

// countRest counts the lines left in r unless more than readCountLimit
// bytes remain.
func countRest(r *bufio.Reader, remaining int64) (int, bool) {
	if remaining > readCountLimit {
		return 0, false
	}
	var (
		buf   = make([]byte, 64<<10)
		lines int
		last  byte = '\n'
	)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			lines += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
		}
		if err != nil {
			break
		}
	}
	if last != '\n' {
		lines++
	}
	return lines, true
}
