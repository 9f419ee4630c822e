package keys

import (
	"testing"
)

func TestRedact(t *testing.T) {
	secrets := Secrets(func(n string) string {
		return map[string]string{"ANTHROPIC_API_KEY": "sk-ant-abcdefgh", "OPENAI_API_KEY": "short"}[n]
	}, "sk-ant-abcdefgh-longer", "sk-ant-abcdefgh", "")
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "key=sk-ant-abcdefgh\n", "key=[redacted]\n"},
		{"twice", "sk-ant-abcdefghsk-ant-abcdefgh", "[redacted][redacted]"},
		{"longer key whole", "x sk-ant-abcdefgh-longer y", "x [redacted] y"},
		{"short key kept", "short words", "short words"},
		{"nothing", "hello", "hello"},
		{"prefix only", "sk-ant-abcdefg", "sk-ant-abcdefg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.in, secrets); got != tc.want {
				t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	if len(secrets) != 2 {
		t.Errorf("Secrets = %q, want the two long keys once each", secrets)
	}
}

func TestStoreGetenv(t *testing.T) {
	s := &Store{vals: map[string]string{"OPENAI_API_KEY": "sk-o"}}
	env := map[string]string{"ANTHROPIC_API_KEY": "from-env", "HOME": "/h"}
	get := s.Getenv(func(n string) string { return env[n] })
	for _, tc := range []struct{ name, want string }{
		{"OPENAI_API_KEY", "sk-o"},
		{"ANTHROPIC_API_KEY", ""},
		{"HOME", "/h"},
	} {
		if got := get(tc.name); got != tc.want {
			t.Errorf("Getenv(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	for _, vals := range []map[string]string{
		{},
		{"ANTHROPIC_API_KEY": "a=b=c"},
		{"ANTHROPIC_API_KEY": "x", "OPENAI_API_KEY": "y y", "WISP_API_KEY": "ü"},
	} {
		got, err := decode(encode(vals))
		if err != nil || len(got) != len(vals) {
			t.Fatalf("decode(encode(%q)) = %q, %v", vals, got, err)
		}
		for k, v := range vals {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
	}
	for _, bad := range []string{"PATH=/bin\x00", "noequals\x00"} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("decode(%q) accepted", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("ANTHROPIC_API_KEY=x\x00OPENAI_API_KEY=y\x00"))
	f.Add([]byte("=\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vals, err := decode(data)
		if err != nil {
			return
		}
		again, err := decode(encode(vals))
		if err != nil || len(again) != len(vals) {
			t.Fatalf("round trip of %q: %q, %v", vals, again, err)
		}
	})
}
