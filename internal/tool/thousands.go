package tool

import "strconv"

// Thousands writes n (not negative) with a comma between each group of
// three digits, as the tools' descriptions quote their limits ("2,000 lines").
func Thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
