package audit

import (
	"testing"
)

// BenchmarkWrite measures one audit line, as the gate writes several per
// tool call.
func BenchmarkWrite(b *testing.B) {
	dir := isolate(b)
	l, err := Open(dir, Options{Version: "bench", MaxBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := Entry{Session: "3f2a1b0c9d8e7f60", Turn: 3, Call: "toolu_01A", Details: CommandOutcome{Line: "go test ./...", DurationMS: 1200, Sandboxed: true}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Write(e); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
}

// BenchmarkWriteParallel measures lines written from many goroutines at
// once, all serialised on the one file.
func BenchmarkWriteParallel(b *testing.B) {
	dir := isolate(b)
	l, err := Open(dir, Options{Version: "bench", MaxBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := Entry{Session: "3f2a1b0c9d8e7f60", Turn: 3, Call: "toolu_01A", Details: ToolResult{Tool: "bash", Bytes: 5000, DurationMS: 12, Preview: "ok"}}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := l.Write(e); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
}

// BenchmarkRead measures reading and filtering a full 10 MiB log file.
func BenchmarkRead(b *testing.B) {
	dir := isolate(b)
	l, err := Open(dir, Options{Version: "bench", MaxBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	e := Entry{Session: "3f2a1b0c9d8e7f60", Turn: 3, Call: "toolu_01A", Details: CommandOutcome{Line: "go test ./...", DurationMS: 1200, Sandboxed: true}}
	n := 0
	for size := int64(0); size < DefaultMaxBytes; {
		if err := l.Write(e); err != nil {
			b.Fatal(err)
		}
		n++
		if n%1000 == 0 {
			fi, _ := l.f.Stat()
			size = fi.Size()
		}
	}
	_ = l.Close()
	for b.Loop() {
		lines, err := Read(dir, Filter{Tool: "bash", Last: 10})
		if err != nil || len(lines) != 0 {
			b.Fatal(err, len(lines))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
}
