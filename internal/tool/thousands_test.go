package tool

import "testing"

func TestThousands(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0"}, {500, "500"}, {1000, "1,000"}, {2000, "2,000"}, {65536, "65,536"}, {1234567, "1,234,567"}}
	for _, tc := range tests {
		if got := Thousands(tc.n); got != tc.want {
			t.Errorf("Thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
