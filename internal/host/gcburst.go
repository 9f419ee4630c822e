package host

import (
	"runtime/debug"
	"sync"
)

// resumeGCPercent is the collector's target while a resumed transcript
// is read and its first request encoded. That burst allocates the whole
// history two or three times over (decoded records, the SDK's params,
// the encoded body) and keeps only the last; at the default 100 the
// collector ran through it several times and took about a third of the
// time to the first request of a 10,000-record session.
const resumeGCPercent = 400

// gcBurst raises the collector's target until the returned func is
// called; calling it again does nothing.
func gcBurst() func() {
	old := debug.SetGCPercent(resumeGCPercent)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(old) }) }
}
