package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
)

func TestCurrentDate(t *testing.T) {
	berlin := time.FixedZone("CEST", 2*3600)
	tests := []struct {
		name string
		now  time.Time
		zone string
		args string
		want string
		err  bool
	}{
		{
			name: "named local zone",
			now:  time.Date(2025, 6, 1, 14, 3, 22, 0, berlin),
			zone: "Europe/Berlin",
			want: "2025-06-01 14:03:22\nweekday: Sunday\ntime zone: CEST (UTC+02:00)\nISO 8601: 2025-06-01T14:03:22+02:00\n",
		},
		{
			name: "utc",
			now:  time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC),
			args: `{}`,
			want: "2024-02-29 23:59:59\nweekday: Thursday\ntime zone: UTC (UTC+00:00)\nISO 8601: 2024-02-29T23:59:59Z\n",
		},
		{
			name: "local zone is named",
			now:  time.Date(2025, 1, 6, 9, 0, 0, 0, time.Local),
			zone: "Test/Zone",
			args: `null`,
		},
		{name: "arguments refused", now: time.Now(), args: `{"zone":"UTC"}`, err: true},
		{name: "not an object", now: time.Now(), args: `[1]`, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := currentDate{now: func() time.Time { return tc.now }, zone: func() string { return tc.zone }}
			res, err := c.Run(context.Background(), &tool.Env{}, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.err {
				t.Fatalf("IsError %v: %s", res.IsError, res.Content)
			}
			if tc.want != "" && res.Content != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", res.Content, tc.want)
			}
			if tc.now.Location() == time.Local && !tc.err {
				abbr, _ := tc.now.Zone()
				if want := "time zone: " + abbr + " (UTC" + tc.now.Format("-07:00") + ", Test/Zone)"; !strings.Contains(res.Content, "\n"+want+"\n") {
					t.Fatalf("got\n%s\nwant line %q", res.Content, want)
				}
			}
		})
	}
}
