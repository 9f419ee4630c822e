package sublang

import "strings"

// Sed reads a sed script the way GNU sed does, far enough to find
// the files it writes (w, W, s///w) and reads (r, R), and whether it runs
// commands (e, s///e). ok is false when the script does not read as sed.
func Sed(s string) (writes, reads []string, execs, ok bool) {
	p := &sedParser{s: s}
	for p.i < len(s) {
		switch s[p.i] {
		case ' ', '\t', '\n', ';', '{', '}':
			p.i++
			continue
		case '#':
			p.toEOL()
			continue
		}
		if !p.command() {
			return nil, nil, false, false
		}
	}
	return p.writes, p.reads, p.execs, true
}

// sedParser is Sed's position in the script and what it has found.
type sedParser struct {
	s      string
	i      int
	writes []string
	reads  []string
	execs  bool
}

// toEOL returns the rest of the line, trimmed, and moves to its end.
func (p *sedParser) toEOL() string {
	j := p.i
	for j < len(p.s) && p.s[j] != '\n' {
		j++
	}
	out := strings.TrimSpace(p.s[p.i:j])
	p.i = j
	return out
}

// skipRe moves past a regular expression (or replacement) that delim
// ends, and reports whether it ended.
func (p *sedParser) skipRe(delim byte) bool {
	s, n := p.s, len(p.s)
	for ; p.i < n; p.i++ {
		switch s[p.i] {
		case '\\':
			p.i++
		case delim:
			p.i++
			return true
		case '\n':
			if delim != '\n' {
				return false
			}
		}
	}
	return false
}

// addr moves past an address (a line, $, /re/ or \cREc), if any.
func (p *sedParser) addr() bool {
	s, n := p.s, len(p.s)
	switch {
	case p.i < n && s[p.i] >= '0' && s[p.i] <= '9':
		for p.i < n && (s[p.i] >= '0' && s[p.i] <= '9' || s[p.i] == '~') {
			p.i++
		}
		return true
	case p.i < n && s[p.i] == '$':
		p.i++
		return true
	case p.i < n && s[p.i] == '/':
		p.i++
		if !p.skipRe('/') {
			return false
		}
	case p.i+1 < n && s[p.i] == '\\':
		d := s[p.i+1]
		p.i += 2
		if !p.skipRe(d) {
			return false
		}
	default:
		return true
	}
	for p.i < n && (s[p.i] == 'I' || s[p.i] == 'M') {
		p.i++
	}
	return true
}

// command reads one command with its addresses, and reports whether it
// reads as sed.
func (p *sedParser) command() bool {
	s, n := p.s, len(p.s)
	if !p.addr() {
		return false
	}
	if p.i < n && s[p.i] == ',' {
		p.i++
		if p.i < n && (s[p.i] == '+' || s[p.i] == '~') {
			p.i++
		}
		if !p.addr() {
			return false
		}
	}
	for p.i < n && (s[p.i] == ' ' || s[p.i] == '\t' || s[p.i] == '!') {
		p.i++
	}
	if p.i >= n {
		return false
	}
	c := s[p.i]
	p.i++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		for p.i < n && (s[p.i] == ' ' || s[p.i] >= '0' && s[p.i] <= '9') {
			p.i++
		}
	case ':', 'b', 't', 'T', 'v':
		for p.i < n && s[p.i] != '\n' && s[p.i] != ';' {
			p.i++
		}
	case 'a', 'i', 'c':
		for {
			line := p.toEOL()
			if !strings.HasSuffix(line, "\\") || p.i >= n {
				break
			}
			p.i++
		}
	case 'r', 'R':
		p.reads = append(p.reads, p.toEOL())
	case 'w', 'W':
		p.writes = append(p.writes, p.toEOL())
	case 'e':
		p.execs = true
		p.toEOL()
	case 's':
		return p.pair() && p.substFlags()
	case 'y':
		return p.pair()
	default:
		return false
	}
	return true
}

// pair moves past the pattern and replacement of s or y, which the
// character after the command delimits.
func (p *sedParser) pair() bool {
	s, n := p.s, len(p.s)
	if p.i >= n || s[p.i] == '\n' || s[p.i] == '\\' {
		return false
	}
	d := s[p.i]
	p.i++
	return p.skipRe(d) && p.skipRe(d)
}

// substFlags reads the flags of s///, where e runs the pattern space and
// w writes a file.
func (p *sedParser) substFlags() bool {
	s, n := p.s, len(p.s)
flags:
	for p.i < n {
		switch f := s[p.i]; {
		case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
			p.i++
		case f == 'e':
			p.execs = true
			p.i++
		case f == 'w':
			p.i++
			p.writes = append(p.writes, p.toEOL())
			break flags
		default:
			break flags
		}
	}
	return p.i >= n || strings.ContainsRune(" \t\n;}", rune(s[p.i]))
}
