package difftest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// TraceCmd is one record of bash's xtrace: a simple command after
// expansion, an assignment, or a compound command's header ([[, ((, for,
// case, select).
type TraceCmd struct {
	Depth    int    // nesting: 1 at the top, more in substitutions and subshells
	Function string // FUNCNAME[0]: the function (or "source") running it, "" at the top
	Text     string // the command as bash printed it, quoted for reuse
	Name     string // the first word with its quoting removed
	Assign   bool   // the record is an assignment (x=1, a[i]=2, x+=3)
}

func (c TraceCmd) String() string {
	s := strings.Repeat("+", c.Depth) + " " + c.Text
	if c.Function != "" {
		s += "   (in function " + strconv.Quote(c.Function) + ")"
	}
	return s
}

// recordStart matches the PS4 that begins a record; a line that does not
// match continues the previous record (an argument with a newline in it).
var recordStart = regexp.MustCompile("^(\\++)\x1f([^\x1f\n]*)\x1f (.*)$")

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=`)

func readTrace(path string) ([]TraceCmd, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("difftest: read trace: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTrace+1))
	if err != nil {
		return nil, false, fmt.Errorf("difftest: read trace: %w", err)
	}
	truncated := len(b) > maxTrace
	if truncated {
		b = b[:maxTrace]
	}
	return ParseTrace(string(b)), truncated, nil
}

// ParseTrace splits xtrace output written with the harness's PS4 into
// records. Text before the first record (there is none unless the line
// wrote to the trace descriptor itself) becomes a record of depth 0.
func ParseTrace(out string) []TraceCmd {
	var cmds []TraceCmd
	for ln := range strings.SplitSeq(out, "\n") {
		if m := recordStart.FindStringSubmatch(ln); m != nil {
			cmds = append(cmds, TraceCmd{Depth: len(m[1]), Function: m[2], Text: m[3]})
			continue
		}
		if len(cmds) == 0 {
			if ln == "" {
				continue
			}
			cmds = append(cmds, TraceCmd{Text: ln})
			continue
		}
		cmds[len(cmds)-1].Text += "\n" + ln
	}
	// The last record's text ends at the final newline.
	if n := len(cmds); n > 0 {
		cmds[n-1].Text = strings.TrimSuffix(cmds[n-1].Text, "\n")
	}
	for i := range cmds {
		cmds[i].Assign = assignment.MatchString(cmds[i].Text)
		cmds[i].Name = FirstWord(cmds[i].Text)
	}
	return cmds
}

// FirstWord returns the first word of a command as bash's xtrace quotes
// it ('...', $'...', backslashes), with the quoting removed.
func FirstWord(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			return b.String()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				return b.String()
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			n := ansiC(s[i+2:], &b)
			i += 2 + n
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// ansiC decodes the body of a $'...' word into b and returns how many
// bytes it used, the closing quote included.
func ansiC(s string, b *strings.Builder) int {
	simple := map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'v': '\v', '\\': '\\', '\'': '\'', '"': '"', '?': '?'}
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\'' {
			return i + 1
		}
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		e := s[i+1]
		if r, ok := simple[e]; ok {
			b.WriteByte(r)
			i += 2
			continue
		}
		n, used := escapeNumber(s[i+1:])
		if used == 0 {
			b.WriteByte('\\')
			i++
			continue
		}
		b.WriteByte(byte(n))
		i += 1 + used
	}
	return len(s)
}

// escapeNumber reads an octal (\NNN) or hex (\xHH) escape after the
// backslash and reports its value and length.
func escapeNumber(s string) (n uint64, used int) {
	base, skip, most := 8, 0, 3
	if s[0] == 'x' {
		base, skip, most = 16, 1, 2
	}
	digits := 0
	for digits < most && skip+digits < len(s) && isDigit(s[skip+digits], base) {
		digits++
	}
	if digits == 0 {
		return 0, 0
	}
	n, _ = strconv.ParseUint(s[skip:skip+digits], base, 16)
	return n, skip + digits
}

func isDigit(c byte, base int) bool {
	if base == 8 {
		return c >= '0' && c <= '7'
	}
	return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0
}

// Exec is one program a shim stood in for: what bash (or a program it
// ran) started by name through PATH.
type Exec struct {
	Name string            // the shim's name: the program's base name
	Argv []string          // argv[0] is the path the shim was run as
	Env  map[string]string // the environment it was given
}

// readExecs reads the shims' records: per shim process a file PID of
// records "argc\0argv0\0..." and a file PID.env with its environment.
func readExecs(dir string) ([]Exec, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("difftest: read shim records: %w", err)
	}
	var out []Exec
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".env") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("difftest: read shim record: %w", err)
		}
		execs, err := parseExecs(string(b))
		if err != nil {
			return nil, fmt.Errorf("difftest: shim record %s: %w", e.Name(), err)
		}
		// A missing environment file means the shim was killed between
		// its two writes; the exec still counts.
		envText, _ := os.ReadFile(filepath.Join(dir, e.Name()+".env"))
		env := ParseExportP(string(envText))
		for i := range execs {
			execs[i].Env = env
		}
		out = append(out, execs...)
		if len(out) > maxExecs {
			break
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ParseExportP reads the output of a POSIX shell's "export -p": lines
// "export NAME='value'" (or "export NAME" without a value), the value
// quoted with single quotes, backslashes and double quotes, and possibly
// spanning lines.
func ParseExportP(s string) map[string]string {
	env := map[string]string{}
	for i := 0; i < len(s); {
		if !strings.HasPrefix(s[i:], "export ") {
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			continue
		}
		i += len("export ")
		j := i
		for j < len(s) && s[j] != '=' && s[j] != '\n' && s[j] != ' ' {
			j++
		}
		name := s[i:j]
		var val strings.Builder
		if j < len(s) && s[j] == '=' {
			j = shellValue(s, j+1, &val)
		}
		env[name] = val.String()
		i = j
	}
	return env
}

// shellValue decodes one quoted shell word starting at s[i] into b and
// returns the index after it.
func shellValue(s string, i int, b *strings.Builder) int {
	for i < len(s) {
		switch c := s[i]; c {
		case '\'':
			k := strings.IndexByte(s[i+1:], '\'')
			if k < 0 {
				b.WriteString(s[i+1:])
				return len(s)
			}
			b.WriteString(s[i+1 : i+1+k])
			i += k + 2
		case '"':
			k := strings.IndexByte(s[i+1:], '"')
			if k < 0 {
				b.WriteString(s[i+1:])
				return len(s)
			}
			b.WriteString(s[i+1 : i+1+k])
			i += k + 2
		case '\\':
			if i+1 < len(s) {
				b.WriteByte(s[i+1])
			}
			i += 2
		case '\n', ' ':
			return i + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return i
}

func parseExecs(s string) ([]Exec, error) {
	fields := strings.Split(s, "\x00")
	var out []Exec
	for i := 0; i < len(fields)-1; {
		n, err := strconv.Atoi(fields[i])
		if err != nil || n < 0 || i+2+n > len(fields) {
			return out, fmt.Errorf("malformed record at field %d", i)
		}
		argv := fields[i+1 : i+2+n]
		out = append(out, Exec{Name: filepath.Base(argv[0]), Argv: argv})
		i += 2 + n
	}
	return out, nil
}
