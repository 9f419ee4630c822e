package sysinfo

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSysinfoFit(t *testing.T) {
	tests := []struct {
		name string
		rows []string
	}{
		{"many rows", strings.Split(strings.Repeat("row\n", 40), "\n")},
		{"long rows", []string{strings.Repeat("x", 5000), strings.Repeat("日", 3000)}},
		{"full", func() []string {
			r := make([]string, 30)
			for i := range r {
				r[i] = strings.Repeat("é", 400)
			}
			return r
		}()},
		{"invalid utf-8", []string{"a\xffb"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := Fit(tc.rows)
			if n := strings.Count(out, "\n"); n > MaxRows || len(out) > MaxBytes || !utf8.ValidString(out) {
				t.Fatalf("%d rows, %d bytes, valid %v", n, len(out), utf8.ValidString(out))
			}
		})
	}
}

func TestSysinfoTable(t *testing.T) {
	rows := []string{"1\ta", "2\tb", "3\tc", "4\td"}
	got := sysinfoTable("N\tX", rows, 3)
	want := []string{"N  X", "1  a", "2  b", "(2 more)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
	if len(rows) != 4 || rows[2] != "3\tc" {
		t.Fatalf("table changed its input: %q", rows)
	}
}

func TestParseOSRelease(t *testing.T) {
	text := "NAME=\"Debian GNU/Linux\"\n# comment\nVERSION_ID='12'\nPRETTY_NAME=\"Say \\\"hi\\\" \\$x\"\nID=debian\nBROKEN\n"
	got := parseOSRelease(text)
	want := map[string]string{"NAME": "Debian GNU/Linux", "VERSION_ID": "12", "PRETTY_NAME": `Say "hi" $x`, "ID": "debian"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v", got)
	}
}

func TestParseMeminfo(t *testing.T) {
	got := parseMeminfo("MemTotal:       16318412 kB\nMemAvailable:    9000000 kB\nHugePages_Total:       0\nbad line\nX: y kB\n")
	if got["MemTotal"] != 16318412*1024 || got["MemAvailable"] != 9000000*1024 || got["HugePages_Total"] != 0 || len(got) != 3 {
		t.Fatalf("got %v", got)
	}
}

func TestParseCPUInfo(t *testing.T) {
	text := "processor\t: 0\nmodel name\t: AMD EPYC 7B13\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n"
	if model, n := parseCPUInfo(text); model != "AMD EPYC 7B13" || n != 2 {
		t.Fatalf("got %q %d", model, n)
	}
}

func TestParseMounts(t *testing.T) {
	got := parseMounts("/dev/vda / ext4 rw 0 0\n/dev/vdb /mnt/my\\040disk xfs rw 0 0\nshort\n/dev/x /a\\\\b\\9 ext4 rw 0 0\n")
	want := []sysinfoMount{{"/dev/vda", "/", "ext4"}, {"/dev/vdb", "/mnt/my disk", "xfs"}, {"/dev/x", `/a\\b\9`, "ext4"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q", got)
	}
	if m := sysinfoMountOf(got, "/mnt/my disk/x"); m != "/mnt/my disk" {
		t.Fatalf("mount of path: %q", m)
	}
	if m := sysinfoMountOf(got, "/mnt/my diskette"); m != "/" {
		t.Fatalf("mount of sibling: %q", m)
	}
}

func TestParseNetTCP(t *testing.T) {
	// Addresses as a little-endian machine prints them.
	v4 := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0 100 0 0 10 0\n" +
		"   1: 0100007F:9357 0100007F:E008 01 00000000:00000000 00:00000000 00000000  1000        0 777 1 0 100 0 0 10 0\n"
	v6 := "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 00000000000000000000000000000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0 100 0 0 10 0\n" +
		"   1: 0000000000000000FFFF00000100007F:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 100 1 0 100 0 0 10 0\n"
	got := append(parseNetTCP(v4), parseNetTCP(v6)...)
	want := []sysinfoSocket{
		{netip.MustParseAddrPort("127.0.0.1:8080"), 4242},
		{netip.MustParseAddrPort("[::]:80"), 99},
		{netip.MustParseAddrPort("127.0.0.1:8081"), 100},
	}
	if !sysinfoLittleEndian() {
		t.Skip("fixture is little-endian")
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func sysinfoLittleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

func FuzzParseNetTCP(f *testing.F) {
	f.Add("   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1\n")
	f.Add("   0: 00000000000000000000000000000000:0050 0:0 0A a b c d e 99\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range parseNetTCP(text) {
			if !s.addr.IsValid() {
				t.Fatalf("invalid address from %q", text)
			}
		}
	})
}

func FuzzParseMounts(f *testing.F) {
	f.Add("/dev/vda / ext4 rw 0 0\n/dev/vdb /mnt/a\\040b xfs rw 0 0\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range parseMounts(text) {
			if m.fstype == "" {
				t.Fatalf("empty type from %q", text)
			}
		}
		parseOSRelease(text)
		parseMeminfo(text)
		parseCPUInfo(text)
	})
}
