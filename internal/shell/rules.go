package shell

import (
	"strings"
)

// rule judges one program's arguments.
type rule func(k *cmd)

// readers only read files or print; whatever their options, they write
// nothing. The text is the reason given.
var readers = map[string]string{
	"ls": "lists files", "dir": "lists files", "vdir": "lists files", "cat": "reads files",
	"tac": "reads files", "head": "reads files", "tail": "reads files", "wc": "counts",
	"grep": "searches text", "egrep": "searches text", "fgrep": "searches text", "zgrep": "searches text",
	"cut": "filters text", "tr": "filters text", "nl": "filters text", "fold": "filters text",
	"fmt": "filters text", "column": "filters text", "comm": "compares files", "join": "filters text",
	"paste": "filters text", "expand": "filters text", "unexpand": "filters text", "rev": "filters text",
	"od": "dumps bytes", "hexdump": "dumps bytes", "strings": "reads files", "base64": "encodes text",
	"base32": "encodes text", "basenc": "encodes text", "md5sum": "computes checksums",
	"sha1sum": "computes checksums", "sha224sum": "computes checksums", "sha256sum": "computes checksums",
	"sha384sum": "computes checksums", "sha512sum": "computes checksums", "b2sum": "computes checksums",
	"cksum": "computes checksums", "sum": "computes checksums", "diff": "compares files",
	"diff3": "compares files", "cmp": "compares files", "file": "inspects files", "stat": "inspects files",
	"du": "measures disk use", "df": "measures disk use", "pwd": "prints the directory", "true": "does nothing",
	"false": "does nothing", ":": "does nothing", "test": "evaluates a test", "[": "evaluates a test",
	"which": "looks up programs", "whereis": "looks up programs", "type": "looks up commands",
	"basename": "prints a name", "dirname": "prints a name", "realpath": "prints a path",
	"readlink": "prints a path", "seq": "prints numbers", "sleep": "waits", "expr": "evaluates an expression",
	"id": "prints user information", "whoami": "prints user information", "groups": "prints user information",
	"uname": "prints system information", "arch": "prints system information", "nproc": "prints system information",
	"cal": "prints a calendar", "uptime": "prints system information", "free": "prints memory use",
	"ps": "lists processes", "pgrep": "lists processes", "lsof": "lists open files", "tty": "prints the terminal",
	"locale": "prints locale settings", "getconf": "prints system settings", "lscpu": "prints system information",
	"lsblk": "lists block devices", "blkid": "lists block devices", "findmnt": "lists mounts",
	"lsmod": "lists kernel modules", "modinfo": "prints module information", "printenv": "prints the environment",
	"jq": "filters JSON", "zcat": "reads compressed files", "bzcat": "reads compressed files",
	"xzcat": "reads compressed files", "zstdcat": "reads compressed files", "look": "searches a word list",
	"yes": "prints text", "numfmt": "formats numbers", "factor": "factors numbers", "tsort": "sorts",
	"ss": "lists sockets", "netstat": "lists sockets", "w": "lists users", "who": "lists users",
	"last": "lists logins", "users": "lists users", "vmstat": "prints statistics", "iostat": "prints statistics",
	"mpstat": "prints statistics", "getent": "looks up system databases", "dpkg-query": "queries packages",
	"lsb_release": "prints the distribution", "nm": "inspects binaries", "objdump": "inspects binaries",
	"readelf": "inspects binaries", "size": "inspects binaries", "locate": "searches file names",
	"plocate": "searches file names", "mlocate": "searches file names", "info": "shows documentation",
	"help": "shows documentation", "jobs": "lists jobs", "wait": "waits", "times": "prints times",
	"caller": "prints the call stack", "shopt": "sets shell options", "ulimit": "sets shell limits",
	"dirs": "lists directories", "read": "reads input into a variable", "mapfile": "reads input into a variable",
	"readarray": "reads input into a variable", "getopts": "parses options", "shift": "shifts arguments",
	"exit": "exits", "return": "returns", "break": "leaves a loop", "continue": "continues a loop",
	"unalias": "removes an alias", "tput": "controls the terminal", "clear": "clears the terminal",
	"reset": "resets the terminal", "stty": "sets terminal options", "fg": "resumes a job", "bg": "resumes a job",
	"disown": "forgets a job", "suspend": "suspends the shell", "logout": "exits", "compgen": "lists completions",
	"complete": "sets completions", "compopt": "sets completions", "printf": "prints text", "echo": "prints text",
	"tldr": "shows documentation", "shellcheck": "checks shell scripts", "hadolint": "checks Dockerfiles",
	"yamllint": "checks YAML", "staticcheck": "checks Go code", "tokei": "counts lines", "cloc": "counts lines",
	"htop": "lists processes", "top": "lists processes", "bat": "reads files", "batcat": "reads files",
	"pstree": "lists processes", "diffstat": "summarises diffs",
}

// lookup returns the rule for a program name, and whether the program is
// one the classifier knows.
func lookup(name string) (rule, bool) {
	if r := known(name); r != nil {
		return r, true
	}
	return ruleUnknown, false
}

// known returns the rule for a program the classifier knows, or nil.
func known(name string) rule {
	if why, ok := readers[name]; ok && why != "" {
		switch name {
		case "echo", "printf", "test", "[", "type", "which", "whereis", "basename", "dirname",
			"realpath", "readlink", "ls", "dir", "vdir", "stat", "du", "file", "true", "false", ":":
			return func(k *cmd) {
				k.r.noScan = true
				if k.subscripts() {
					return
				}
				if name == "printf" && len(k.args) > 0 && k.args[0].known && strings.HasPrefix(k.args[0].val, "-v") {
					k.add(Moderate, "assigns a shell variable")
					if v := k.args[0].val[2:]; v != "" {
						k.setsVars([]arg{literalArg(v)})
					} else if len(k.args) > 1 {
						k.setsVars(k.args[1:2])
					}
					return
				}
				k.add(Safe, why)
			}
		case "read", "mapfile", "readarray", "getopts", "wait", "compgen":
			return func(k *cmd) {
				if k.subscripts() {
					return
				}
				if name == "mapfile" || name == "readarray" || name == "compgen" {
					opts, ops := spec{shortVal: "dnOsuCcAGPSWXFotV"}.scan(k.args)
					if name != "compgen" && len(ops) > 0 {
						k.setsVars(ops[:1])
					}
					if v, ok := optVal(opts, "-V"); ok && name == "compgen" {
						k.setsVars([]arg{v})
					}
					if v, ok := optVal(opts, "-C"); ok {
						k.add(Safe, "runs a callback (judged on its own)")
						k.nestedScript(v, "runs a callback")
						return
					}
				}
				switch name {
				case "read":
					opts, ops := spec{shortVal: "adinNptu"}.scan(k.args)
					if v, ok := optVal(opts, "-a"); ok {
						ops = append(ops, v)
					}
					k.setsVars(ops)
				case "getopts":
					if len(k.args) > 1 {
						k.setsVars(k.args[1:2])
					}
				case "wait":
					opts, _ := spec{shortVal: "p"}.scan(k.args)
					if v, ok := optVal(opts, "-p"); ok {
						k.setsVars([]arg{v})
					}
				}
				k.add(Safe, why)
			}
		}
		return func(k *cmd) { k.add(Safe, why) }
	}
	switch name {
	// Wrappers: the command they run is the command.
	case "env":
		return ruleEnv
	case "time":
		return ruleTime
	case "nice":
		return ruleNice
	case "nohup", "builtin", "unbuffer", "caffeinate", "catchsegv", "firejail":
		return ruleWrapPlain
	case "timeout":
		return ruleTimeout
	case "stdbuf":
		return ruleStdbuf
	case "command":
		return ruleCommand
	case "exec":
		return ruleExec
	case "ionice", "setsid", "chrt", "taskset", "flock":
		return ruleSched
	case "busybox":
		return ruleBusybox
	case "strace", "ltrace", "valgrind", "perf":
		return ruleTracer
	case "xargs":
		return ruleXargs
	case "watch":
		return ruleWatch
	case "parallel":
		return ruleParallel

	// Shells and interpreters.
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "rbash", "yash", "posh", "oksh", "loksh":
		return ruleShell
	case "eval":
		return ruleEval
	case "source", ".":
		return ruleSource
	case "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "ruby", "perl", "php",
		"lua", "luajit", "Rscript", "tclsh", "wish", "osascript", "irb", "ipython", "bun", "deno", "julia", "groovy":
		return ruleInterpreter
	case "awk", "gawk", "mawk", "nawk":
		return ruleAwk
	case "sed", "gsed":
		return ruleSed
	case "find", "gfind":
		return ruleFind
	case "fd", "fdfind":
		return ruleFd
	case "rg":
		return ruleRg
	case "sort":
		return ruleSort
	case "uniq", "xxd":
		return ruleSecondOperandWrites
	case "tee":
		return ruleTee
	case "tree", "shuf", "iconv":
		return ruleOutputOption
	case "date":
		return ruleDate
	case "hostname":
		return ruleHostname
	case "cd", "pushd":
		return ruleCd
	case "popd":
		return rulePopd
	case "less", "more", "most", "pg":
		return fixed(Moderate, "a pager can run commands")
	case "man":
		return ruleMan

	// Files.
	case "rm", "unlink", "rmdir":
		return ruleRm
	case "shred", "srm", "wipe":
		return fixed(Dangerous, "destroys file contents beyond recovery")
	case "mkdir", "touch", "truncate", "mkfifo", "mknod":
		return ruleCreate
	case "cp", "mv", "install", "ln":
		return ruleCopy
	case "chmod", "chown", "chgrp", "setfacl":
		return ruleChmod
	case "chattr":
		return fixed(Dangerous, "changes file attributes")
	case "dd":
		return ruleDd
	case "tar", "bsdtar", "gtar":
		return ruleTar
	case "unzip":
		return ruleUnzip
	case "zip":
		return ruleZip
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "brotli", "compress", "uncompress", "lzma", "unlzma", "pigz":
		return ruleCompress
	case "patch":
		return rulePatch
	case "split", "csplit":
		return ruleSplit
	case "mktemp", "dos2unix", "unix2dos":
		return fixed(Moderate, "writes files")
	case "vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "pico", "micro", "joe", "kak", "hx", "code", "subl":
		return fixed(Moderate, "opens an editor, which can write files and run commands")
	case "open", "xdg-open", "gio", "start":
		return fixed(Moderate, "opens a file with another program")

	// Network.
	case "curl":
		return ruleCurl
	case "wget", "wget2":
		return ruleWget
	case "http", "https", "xh", "aria2c", "fetch", "lynx", "w3m", "links", "elinks":
		return ruleNetwork("reaches the network")
	case "ping", "ping6", "traceroute", "tracepath", "mtr", "dig", "nslookup", "host", "whois", "nmap", "drill", "arping":
		return ruleNetwork("reaches the network")
	case "scp", "rsync":
		return ruleCopyRemote
	case "ssh", "mosh", "sftp", "ftp", "tftp", "lftp", "telnet", "nc", "ncat", "netcat", "socat", "rsh", "rlogin", "sshpass", "autossh":
		return ruleRemote
	case "ssh-copy-id", "sendmail", "mail", "mailx", "mutt", "msmtp", "swaks":
		return fixed(Dangerous, "sends data to another machine")
	case "ssh-keygen", "ssh-add", "ssh-agent", "gpg", "gpg2", "openssl", "keytool", "certutil":
		return ruleCrypto

	// Privilege and the system.
	case "sudo", "su", "doas", "pkexec", "runuser", "sudoedit", "run0", "chroot", "nsenter", "unshare",
		"setpriv", "sg", "newgrp", "capsh", "setcap", "systemd-run", "machinectl", "login", "polkit":
		return rulePrivilege
	case "mkfs", "mke2fs", "mkswap", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "wipefs",
		"blkdiscard", "hdparm", "badblocks", "losetup", "cryptsetup", "mdadm", "fsck", "e2fsck", "tune2fs",
		"resize2fs", "lvremove", "lvcreate", "lvresize", "vgremove", "vgcreate", "pvremove", "pvcreate",
		"dmsetup", "zpool", "zfs", "btrfs", "xfs_repair", "debugfs", "swapon", "swapoff", "mount", "umount":
		return ruleDisk
	case "shutdown", "reboot", "halt", "poweroff", "init", "telinit", "systemd-hibernate", "pm-suspend":
		return fixed(Dangerous, "shuts down or restarts the machine")
	case "insmod", "rmmod", "modprobe", "depmod", "kexec":
		return fixed(Dangerous, "changes the running kernel")
	case "sysctl":
		return ruleSysctl
	case "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "iptables-restore", "ebtables", "pfctl":
		return ruleFirewall
	case "ip", "ifconfig", "route", "nmcli", "iw", "iwconfig", "ethtool", "tc", "brctl":
		return ruleNetConfig
	case "kill":
		return ruleKill
	case "killall", "pkill", "skill", "slay":
		return ruleKillByName
	case "killall5":
		return fixed(Dangerous, "stops every process")
	case "crontab":
		return ruleCrontab
	case "at", "batch", "atrm":
		return fixed(Dangerous, "schedules commands to run later")
	case "atq":
		return fixed(Safe, "lists scheduled jobs")
	case "history":
		return ruleHistory
	case "unset":
		return func(k *cmd) {
			if !k.subscripts() {
				ruleUnset(k)
			}
		}
	case "set":
		return ruleSet
	case "trap":
		return ruleTrap
	case "alias":
		return ruleAlias
	case "hash":
		return ruleHash
	case "enable":
		return ruleEnable
	case "fc":
		return ruleFc
	case "umask":
		return ruleUmask
	case "bind":
		return fixed(Moderate, "binds keys to commands")
	case "passwd", "chpasswd", "useradd", "userdel", "usermod", "adduser", "deluser", "groupadd", "groupdel",
		"groupmod", "visudo", "vipw", "chsh", "chfn", "gpasswd", "pwck":
		return fixed(Dangerous, "changes users or their passwords")
	case "systemctl":
		return ruleSystemctl
	case "service":
		return ruleService
	case "journalctl":
		return ruleJournalctl
	case "launchctl", "rc-service", "rc-update", "update-rc.d", "chkconfig", "initctl":
		return fixed(Dangerous, "changes system services")
	case "timedatectl", "hostnamectl", "localectl", "loginctl":
		return ruleCtlStatus
	case "dmesg":
		return ruleDmesg

	// Development tools with subcommands.
	case "git":
		return ruleGit
	case "go":
		return ruleGo
	case "gofmt", "goimports", "rustfmt", "clang-format", "black", "autopep8", "yapf", "isort":
		return ruleFormatter
	case "cargo":
		return ruleCargo
	case "npm":
		return ruleNpm
	case "npx", "pnpx", "bunx", "uvx", "pipx":
		return fixed(Moderate, "downloads and runs a package")
	case "yarn", "pnpm":
		return ruleYarn
	case "pip", "pip3":
		return rulePip
	case "uv":
		return ruleUv
	case "poetry", "pdm", "hatch", "conda", "mamba":
		return rulePyProject
	case "gem", "bundle", "bundler", "composer":
		return ruleGem
	case "make", "gmake", "bmake":
		return ruleMake
	case "docker", "podman", "nerdctl":
		return ruleDocker
	case "kubectl", "oc":
		return ruleKubectl
	case "helm":
		return ruleHelm
	case "terraform", "tofu":
		return ruleTerraform
	case "gh", "glab":
		return ruleGh
	case "apt", "apt-get", "aptitude":
		return ruleApt
	case "apt-cache", "apt-file", "apt-mark":
		return fixed(Safe, "queries packages")
	case "dpkg":
		return ruleDpkg
	case "yum", "dnf", "microdnf", "zypper", "tdnf":
		return ruleYum
	case "apk":
		return ruleApk
	case "pacman", "yay", "paru":
		return rulePacman
	case "rpm":
		return ruleRpm
	case "brew":
		return ruleBrew
	case "snap", "flatpak":
		return ruleSnap
	case "pytest", "py.test", "jest", "vitest", "mocha", "rspec", "phpunit", "tox", "nox", "ava", "karma", "playwright", "cypress":
		return fixed(Moderate, "runs tests, which run project code")
	case "mvn", "mvnw", "gradle", "gradlew", "ant", "sbt", "bazel", "bazelisk", "buck", "buck2", "cmake", "ninja",
		"meson", "just", "task", "rake", "mix", "dotnet", "swift", "xcodebuild", "flutter", "dart", "scons", "waf":
		return fixed(Moderate, "runs a build, which runs project code")
	case "gcc", "cc", "clang", "g++", "c++", "clang++", "rustc", "javac", "kotlinc", "zig", "nasm", "as", "ld", "tsc", "esbuild", "swc", "ldc2", "gccgo":
		return ruleCompiler
	case "java", "kotlin", "scala", "dotnet-script", "wasmtime", "wasmer":
		return fixed(Moderate, "runs a program")
	case "ldd":
		return fixed(Moderate, "may run the program it inspects")
	case "yq":
		return ruleYq
	case "script":
		return ruleScript
	case "wisp":
		return ruleWisp
	}
	if strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "fsck.") {
		return ruleDisk
	}
	return nil
}

// fixed is a rule with one outcome whatever the arguments, except that
// --version and --help only print.
func fixed(l Level, reason string) rule {
	return func(k *cmd) {
		if onlyInfo(k.args) {
			k.add(Safe, "prints version or help")
			return
		}
		k.add(l, reason)
	}
}

// onlyInfo reports whether the arguments only ask for a version or help.
func onlyInfo(args []arg) bool {
	if len(args) != 1 || !args[0].known {
		return false
	}
	switch args[0].val {
	case "--version", "-version", "--help", "-help", "-h", "-V", "version", "help":
		return true
	}
	return false
}

func ruleUnknown(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "not a known command: it may write, install or reach the network")
	k.embedded()
}

// maxEmbedded bounds the known program names embedded tries, so that a
// long line of them stays cheap.
const maxEmbedded = 4

// embedded looks in the arguments of a program the classifier does not
// know for a command it may run (numactl rm -rf ~): if the words from a
// known program on would be dangerous on their own, so is this.
func (k *cmd) embedded() {
	if k.hops > 0 {
		return // a wrapper's own arguments were looked at already
	}
	tried := 0
	for i, a := range k.args {
		if tried == maxEmbedded {
			return
		}
		if !a.known || a.val == "" || a.val[0] == '-' || strings.ContainsAny(a.val, "= ") {
			continue
		}
		name := a.val
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			name = name[j+1:]
		}
		if known(name) == nil {
			continue
		}
		tried++
		scratch := &res{}
		k.c.argv(k.x.sub(), k.args[i:], scratch, k.hops+1)
		if scratch.lvl == Dangerous {
			k.add(Dangerous, "may run a dangerous command: "+normalise(k.args[i:]))
			if k.c.collect {
				k.r.forms = append(k.r.forms, normalise(k.args[i:]))
				k.r.forms = append(k.r.forms, scratch.forms...)
			}
			return
		}
	}
}

// subscripts marks a builtin whose argument names an array element with a
// command substitution in its subscript: the shell runs it (read
// 'a[$(id)]', test -v 'a[$(id)]').
func (k *cmd) subscripts() bool {
	for _, a := range k.args {
		if subscriptRuns(a) {
			k.add(Dangerous, "an array subscript holds a command substitution, which the shell runs")
			return true
		}
	}
	return false
}

// subscriptRuns reports whether a literal word is a variable name with a
// subscript that holds a command substitution.
func subscriptRuns(a arg) bool {
	if !a.known {
		return false
	}
	i := strings.IndexByte(a.val, '[')
	return i > 0 && (strings.Contains(a.val[i:], "$(") || strings.Contains(a.val[i:], "`"))
}

// verbAt returns the first operand and its index, skipping the values of
// the options in sp.
func verbAt(args []arg, sp spec) (string, int) {
	i := sp.firstOperand(args)
	if i >= len(args) {
		return "", i
	}
	if !args[i].known {
		return args[i].text, i
	}
	return args[i].val, i
}

// hasOpt reports whether any option matches one of names.
func hasOpt(opts []option, names ...string) bool {
	for _, o := range opts {
		if o.is(names...) {
			return true
		}
	}
	return false
}

// optVal returns the value of the last option matching names.
func optVal(opts []option, names ...string) (arg, bool) {
	var v arg
	found := false
	for _, o := range opts {
		if o.is(names...) && o.has {
			v, found = o.val, true
		}
	}
	return v, found
}

// subcommands is a rule for programs with a verb: verbs in safe only read,
// verbs in danger are dangerous, everything else is moderate.
func subcommands(sp spec, safe, danger map[string]string, other string) rule {
	return func(k *cmd) {
		if onlyInfo(k.args) {
			k.add(Safe, "prints version or help")
			return
		}
		verb, _ := verbAt(k.args, sp)
		k.r.verb = verb
		if why, ok := danger[verb]; ok {
			k.add(Dangerous, why)
			return
		}
		if why, ok := safe[verb]; ok {
			if a, bad := unknownArgs(k.args); bad {
				k.add(Moderate, "an argument only known at run time may change what it does: "+a.text)
				return
			}
			k.add(Safe, why)
			return
		}
		k.add(Moderate, other)
	}
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

func reasons(reason string, words ...string) map[string]string {
	m := make(map[string]string, len(words))
	for _, w := range words {
		m[w] = reason
	}
	return m
}

// ruleWisp keeps wisp from steering itself: a nested agent, or an answer to
// its own approval requests, would step around the gate.
func ruleWisp(k *cmd) {
	if len(k.args) == 0 {
		k.add(Dangerous, "starts another wisp agent")
		return
	}
	first, second := k.args[0].val, ""
	if len(k.args) > 1 {
		second = k.args[1].val
	}
	switch {
	case !k.args[0].known:
		k.add(Dangerous, "runs wisp with a command only known at run time")
	case first == "approvals" && (second == "approve" || second == "deny"):
		k.add(Dangerous, "answers wisp's own approval requests")
	case first == "trust" && second != "status" && second != "":
		k.add(Dangerous, "changes which projects wisp trusts")
	case first == "classify" || first == "logs" || first == "tools" || first == "trust" || first == "approvals" || onlyInfo(k.args):
		k.add(Safe, "prints wisp information")
	default:
		k.add(Dangerous, "starts another wisp agent")
	}
}

// ruleScript covers script(1), which records a command's session.
func ruleScript(k *cmd) {
	sp := spec{shortVal: "cEIOBTmo", longVal: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"}}
	opts, ops := sp.scan(k.args)
	if v, ok := optVal(opts, "-c", "--command"); ok {
		k.add(Safe, "runs a command and records it (judged on its own)")
		k.nestedScript(v, "runs a script")
	} else {
		k.add(Dangerous, "starts a shell that reads commands from standard input")
	}
	for _, o := range ops {
		k.write(o)
	}
	for _, o := range opts {
		if o.is("-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing") {
			k.write(o.val)
		}
	}
	if len(ops) == 0 {
		k.write(literalArg("typescript"))
	}
}
