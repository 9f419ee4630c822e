//go:build unix

package keys

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Start is wisp's first step (never the sandbox helper's). It marks the
// process non-dumpable. When the environment holds provider keys, it then
// re-executes the running binary with the same argv and an environment
// without them, writing their values to a pipe the new process inherits;
// on success it does not return. In the re-executed wisp it reads the
// keys from that pipe. Either way the result is the store the
// configuration reads keys from.
//
// The keys leave the environment by a re-execution because the kernel
// shows /proc/<pid>/environ from the memory the process started with;
// changing os.Environ later changes nothing there.
func Start(argv []string) (*Store, error) {
	if err := nonDumpable(); err != nil {
		return nil, fmt.Errorf("keep API keys private: mark wisp non-dumpable: %w", err)
	}
	if fd, ok := os.LookupEnv(fdVar); ok {
		return receive(fd)
	}
	vals := map[string]string{}
	for _, n := range Names() {
		if v := os.Getenv(n); v != "" {
			vals[n] = v
		}
	}
	if len(vals) == 0 {
		return &Store{vals: vals}, nil
	}
	return nil, handOver(argv, vals)
}

// handOver re-executes wisp without the key variables; it returns only
// when that fails.
func handOver(argv []string, vals map[string]string) error {
	payload := encode(vals)
	if len(payload) > maxPayload {
		return fmt.Errorf("move API keys out of the environment: %d bytes of keys, at most %d", len(payload), maxPayload)
	}
	var p [2]int
	// Pipe, not Pipe2, for the systems without pipe2; nothing else runs
	// yet that could fork between the two calls.
	if err := unix.Pipe(p[:]); err != nil {
		return fmt.Errorf("move API keys out of the environment: pipe: %w", err)
	}
	r, w := p[0], p[1]
	unix.CloseOnExec(r)
	unix.CloseOnExec(w)
	// The payload fits the pipe's buffer, so this write completes before
	// any reader exists.
	_, werr := unix.Write(w, payload)
	unix.Close(w)
	if werr != nil {
		unix.Close(r)
		return fmt.Errorf("move API keys out of the environment: write: %w", werr)
	}
	// The copy the new process inherits: F_DUPFD leaves it open across
	// exec, and at 3 or above, even when wisp started with stdin closed
	// and the pipe took descriptor 0.
	nr, err := unix.FcntlInt(uintptr(r), unix.F_DUPFD, 3)
	unix.Close(r)
	if err != nil {
		return fmt.Errorf("move API keys out of the environment: fcntl: %w", err)
	}
	r = nr
	env := make([]string, 0, len(os.Environ())+1)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(Names(), name) && name != fdVar {
			env = append(env, kv)
		}
	}
	env = append(env, fdVar+"="+strconv.Itoa(r))
	exe, err := self()
	if err == nil {
		err = unix.Exec(exe, argv, env)
	}
	unix.Close(r)
	return fmt.Errorf("move API keys out of the environment: re-execute %s: %w", exe, err)
}

// receive reads the keys the parent wrote to descriptor fd and closes it.
func receive(fd string) (*Store, error) {
	os.Unsetenv(fdVar)
	n, err := strconv.Atoi(fd)
	if err != nil || n < 3 {
		return nil, fmt.Errorf("read API keys: %s=%q is not a descriptor wisp hands keys over on", fdVar, fd)
	}
	var st unix.Stat_t
	if err := unix.Fstat(n, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, fmt.Errorf("read API keys: descriptor %d is not the hand-over pipe", n)
	}
	unix.CloseOnExec(n)
	f := os.NewFile(uintptr(n), "keys")
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read API keys from descriptor %d: %w", n, err)
	}
	if len(data) > maxPayload {
		return nil, fmt.Errorf("read API keys from descriptor %d: more than %d bytes", n, maxPayload)
	}
	vals, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read API keys from descriptor %d: %w", n, err)
	}
	return &Store{vals: vals}, nil
}
