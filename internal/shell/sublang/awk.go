package sublang

import "strings"

// skipQuoted returns the index of the delimiter that closes the string or
// regular expression opened at s[i], skipping backslash escapes.
func skipQuoted(s string, i int) int {
	delim := s[i]
	for i++; i < len(s) && s[i] != delim; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i
}

// awkRedirect reads print's output redirection at s[i] ('>' or '>>'):
// when its target is a plain string, the file and the index of the
// string's closing quote.
func awkRedirect(s string, i int) (file string, end int, ok bool) {
	j := i + 1
	if j < len(s) && s[j] == '>' {
		j++
	}
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	e := strings.IndexByte(s[min(j+1, len(s)):], '"')
	if j < len(s) && s[j] == '"' && e >= 0 && !strings.ContainsAny(s[j+1:j+1+e], "\\") && isAwkTargetEnd(s[j+2+e:]) {
		return s[j+1 : j+1+e], j + 1 + e, true
	}
	return "", 0, false
}

// Awk scans an awk program for ways to run commands (system(),
// pipes, @load) and to write files (print > file). files are the targets
// written as string literals; writes is set for any other target.
func Awk(s string) (execs, writes bool, files []string) {
	inPrint, depth := false, 0
	prev := byte(0) // last significant character
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			inPrint = false
			prev = '\n'
			continue
		case ch == '"' || ch == '/' && !isOperandEnd(prev):
			i = skipQuoted(s, i)
			prev = ch
			continue
		case ch == ' ' || ch == '\t':
			continue
		case ch == '\n' || ch == ';' || ch == '{' || ch == '}':
			inPrint, depth = false, 0
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case ch == '|':
			if i+1 < len(s) && s[i+1] == '|' {
				i++
			} else {
				execs = true
			}
		case ch == '>':
			if inPrint && depth <= 0 {
				if file, end, ok := awkRedirect(s, i); ok {
					files = append(files, file)
					i = end
					prev = '"'
					continue
				}
				writes = true
			}
		case ch == '@':
			if strings.HasPrefix(s[i:], "@load") {
				execs = true
			}
		case isIdentStart(ch):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			switch word {
			case "print", "printf":
				inPrint, depth = true, 0
			case "system":
				rest := strings.TrimLeft(s[j:], " \t")
				if strings.HasPrefix(rest, "(") {
					execs = true
				}
			}
			i = j - 1
			prev = 'a'
			continue
		}
		prev = ch
	}
	return execs, writes, files
}

// isAwkTargetEnd reports whether a string literal after > is the whole
// target (print > "f" ...) rather than the start of a concatenation.
func isAwkTargetEnd(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || strings.ContainsRune(";}\n)", rune(rest[0]))
}

// isOperandEnd reports whether a '/' after prev is division rather than
// the start of a regular expression.
func isOperandEnd(prev byte) bool {
	return prev == 'a' || prev == ')' || prev == ']' || prev == '"' || prev == '$' || prev >= '0' && prev <= '9'
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
