//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Landlock's network rules see TCP alone, and not all of it: not UDP
// (before ABI 10), raw or packet sockets, SCTP, Multipath TCP, families
// that carry TCP inside the kernel (SMC) or reach another machine without
// IP (vsock); and within TCP neither Fast Open (sendto or sendmsg with
// MSG_FASTOPEN connects without the connect hook) nor listen() on an
// unbound socket (the kernel binds it to a free port without the bind
// hook, and it accepts connections). So a command denied the network
// also gets a seccomp filter on socket(2) that refuses every IPv4 and
// IPv6 socket: a socket that is never created cannot connect, send or
// listen by any path. What is left cannot leave the machine:
//
//   - approved commands (Config.AutoRun false, AllowNetwork false) may
//     create AF_UNIX, AF_NETLINK (the kernel's own, for interface lists)
//     and AF_ALG (kernel crypto) sockets; a pathname Unix socket of a
//     daemon outside the sandbox (docker.sock) cannot be confined before
//     Landlock ABI 9;
//   - auto-run commands (Config.AutoRun) may create only datagram Unix
//     sockets and NETLINK_ROUTE sockets, what libc needs locally
//     (syslog, interface lists). Stream Unix sockets are refused because
//     the daemons behind them act outside the namespaces: a resolver
//     (systemd-resolved's varlink socket, nscd) would look a name up, and
//     so leak it over DNS; ssh-agent, gpg-agent, D-Bus and X11 hand out
//     secrets. socketpair(2) stays allowed: it reaches nobody else.
//
// Everything else gets EACCES, Landlock's own answer. io_uring is refused
// too, since its socket operation creates sockets without the system
// call, and so is i386's socketcall, whose arguments lie in memory the
// filter cannot read.
//
// The filter is written here rather than with a seccomp library because
// the one pure-Go candidate (elastic/go-seccomp-bpf) compares all 64 bits
// of an argument while the kernel reads socket's arguments as 32-bit ints:
// a family of 1<<32|AF_INET would pass its check and still create an IPv4
// socket. Here only the low half of each argument is read.

// seccompArch describes the system call numbers the filter looks at.
type seccompArch struct {
	native uint32 // AUDIT_ARCH of this build
	socket uint32 // socket(2) number
	// x32 is set on amd64, where x32 calls share the arch value and carry
	// this bit in their number.
	x32 uint32
	// compat is the 32-bit ABI the kernel may also run (0 if none), with
	// its socket(2) and socketcall(2) numbers (0 if it has none).
	compat, compatSocket, compatSocketcall uint32
}

const ioUringSetup = 425 // the same number on every architecture

// archSeccomp describes the running architecture, ok false where the
// filter is not written for it (the sandbox then confines TCP alone).
func archSeccomp(goarch string) (a seccompArch, ok bool) {
	switch goarch {
	case "amd64":
		return seccompArch{native: unix.AUDIT_ARCH_X86_64, socket: 41, x32: 0x40000000,
			compat: unix.AUDIT_ARCH_I386, compatSocket: 359, compatSocketcall: 102}, true
	case "arm64":
		return seccompArch{native: unix.AUDIT_ARCH_AARCH64, socket: 198,
			compat: unix.AUDIT_ARCH_ARM, compatSocket: 281}, true
	}
	return seccompArch{}, false
}

// Offsets in struct seccomp_data; both architectures are little-endian,
// so the low half of each argument comes first.
const (
	offNr    = 0
	offArch  = 4
	offArg0  = 16 + 0*8 // domain
	offArg1  = 16 + 1*8 // type
	offArg2  = 16 + 2*8 // protocol
	retAllow = unix.SECCOMP_RET_ALLOW
	// retRefuse answers a socket the filter does not let be created,
	// with the error a Landlock refusal gives.
	retRefuse = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	retNoSys  = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// socketProfile says which sockets a command denied the network may
// create.
type socketProfile int

const (
	// approvedSockets: Unix, netlink and kernel-crypto sockets.
	approvedSockets socketProfile = iota
	// autoRunSockets: datagram Unix and NETLINK_ROUTE sockets only.
	autoRunSockets
)

// approvedFamilies are the socket families that cannot reach another
// machine, allowed whatever their type for approved commands.
var approvedFamilies = [...]uint32{unix.AF_UNIX, unix.AF_NETLINK, unix.AF_ALG}

// socketFilter builds the filter for a and profile p.
func socketFilter(a seccompArch, p socketProfile) ([]bpf.RawInstruction, error) {
	var l labelled
	foreign := "allow"
	if a.compat != 0 {
		foreign = "foreign"
	}
	l.op(bpf.LoadAbsolute{Off: offArch, Size: 4})
	l.jeq(a.native, "", foreign)
	l.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
	if a.x32 != 0 {
		l.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ^a.x32})
	}
	l.jeq(ioUringSetup, "nosys", "")
	l.jeq(a.socket, "family", "allow")

	if a.compat != 0 {
		l.label("foreign") // the arch is still loaded
		l.jeq(a.compat, "", "allow")
		l.op(bpf.LoadAbsolute{Off: offNr, Size: 4})
		l.jeq(ioUringSetup, "nosys", "")
		if a.compatSocketcall != 0 {
			l.jeq(a.compatSocketcall, "nosys", "")
		}
		l.jeq(a.compatSocket, "family", "allow")
	}

	l.label("family")
	l.op(bpf.LoadAbsolute{Off: offArg0, Size: 4})
	if p == autoRunSockets {
		l.jeq(unix.AF_UNIX, "unix", "")
		l.jeq(unix.AF_NETLINK, "netlink", "refuse")
		l.label("unix")
		l.op(bpf.LoadAbsolute{Off: offArg1, Size: 4})
		// The kernel takes these two flags from the type and refuses
		// any other bit outside the type itself, so what is left must
		// be exactly SOCK_DGRAM.
		l.op(bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: ^uint32(unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC)})
		l.jeq(unix.SOCK_DGRAM, "allow", "refuse")
		l.label("netlink")
		l.op(bpf.LoadAbsolute{Off: offArg2, Size: 4})
		l.jeq(unix.NETLINK_ROUTE, "allow", "refuse")
	} else {
		for i, f := range approvedFamilies {
			no := ""
			if i == len(approvedFamilies)-1 {
				no = "refuse"
			}
			l.jeq(f, "allow", no)
		}
	}

	l.label("refuse")
	l.op(bpf.RetConstant{Val: retRefuse})
	l.label("nosys")
	l.op(bpf.RetConstant{Val: retNoSys})
	l.label("allow")
	l.op(bpf.RetConstant{Val: retAllow})
	return l.assemble()
}

// denyUnconfinedSockets installs the filter on the calling thread, which
// must hold no_new_privs and must be the thread that execs.
func denyUnconfinedSockets(p socketProfile) error {
	a, ok := archSeccomp(runtime.GOARCH)
	if !ok {
		return nil
	}
	raw, err := socketFilter(a, p)
	if err != nil {
		return fmt.Errorf("assemble the socket filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("install the socket filter: %w", err)
	}
	runtime.KeepAlive(filter)
	return nil
}

// labelled is a BPF program whose conditional jumps name their targets;
// "" is the next instruction. BPF only jumps forward.
type labelled struct {
	ins     []bpf.Instruction
	targets map[int][2]string
	labels  map[string]int
}

func (p *labelled) op(i bpf.Instruction) { p.ins = append(p.ins, i) }

func (p *labelled) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

func (p *labelled) jeq(val uint32, yes, no string) {
	if p.targets == nil {
		p.targets = map[int][2]string{}
	}
	p.targets[len(p.ins)] = [2]string{yes, no}
	p.op(bpf.JumpIf{Cond: bpf.JumpEqual, Val: val})
}

func (p *labelled) assemble() ([]bpf.RawInstruction, error) {
	skip := func(from int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := p.labels[name]
		if !ok || to <= from || to-from-1 > 255 {
			return 0, fmt.Errorf("jump from %d to %q cannot be encoded", from, name)
		}
		return uint8(to - from - 1), nil
	}
	for at, t := range p.targets {
		j := p.ins[at].(bpf.JumpIf)
		var err error
		if j.SkipTrue, err = skip(at, t[0]); err != nil {
			return nil, err
		}
		if j.SkipFalse, err = skip(at, t[1]); err != nil {
			return nil, err
		}
		p.ins[at] = j
	}
	return bpf.Assemble(p.ins)
}
