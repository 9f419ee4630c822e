package unix

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

// Programs that reach the network. Anything they send that comes from a
// command substitution may be data leaving the machine, so that is
// dangerous wherever it appears.

// sendsOutput marks a network command whose arguments hold command output.
func (k *cmd) sendsOutput() bool {
	for _, a := range k.Args {
		if a.Subst {
			k.Add(Dangerous, "sends the output of a command over the network: "+a.Text)
			return true
		}
	}
	return false
}

func ruleNetwork(reason string) rule {
	return func(k *cmd) {
		if judge.OnlyInfo(k.Args) {
			k.Add(Safe, "prints version or help")
			return
		}
		k.R.Flags.Net = true
		if k.sendsOutput() {
			return
		}
		k.Add(Moderate, reason)
	}
}

func ruleCurl(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.R.Flags.Net = true
	if k.sendsOutput() {
		return
	}
	opts, _ := k.ValueOpts.Scan(k.Args)
	for _, o := range opts {
		v := o.Val
		switch {
		case o.Is("-d", "--data", "--data-ascii", "--data-binary", "--data-urlencode", "--json"):
			k.upload(v, o.Is("--data-urlencode"))
		case o.Is("--data-raw", "--form-string", "--expand-data"):
			k.Add(Moderate, "sends data")
		case o.Is("-F", "--form"):
			if !v.Known {
				k.Add(Dangerous, "sends data only known at run time: "+v.Text)
			} else if _, val, _ := strings.Cut(v.Val, "="); strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<") {
				k.Add(Dangerous, "uploads a file: "+val[1:])
			} else {
				k.Add(Moderate, "sends data")
			}
		case o.Is("-T", "--upload-file"):
			k.Add(Dangerous, "uploads a file: "+v.Text)
		case o.Is("-K", "--config", "--netrc-file"):
			k.Add(Dangerous, "reads its options from a file, which cannot be analysed")
		case o.Is("--unix-socket", "--abstract-unix-socket"):
			k.Add(Dangerous, "talks to a local socket (a daemon such as docker)")
		case o.Is("-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc"):
			k.Write(v)
		case o.Is("--output-dir"):
			k.Write(v)
		case o.Is("-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"):
			k.Add(Moderate, "saves a download into the current directory")
		case o.Is("--variable"):
			if v.Known && strings.Contains(v.Val, "@") {
				k.Add(Dangerous, "reads a file into a variable it may send")
			}
		}
	}
	k.Add(Moderate, "reaches the network")
}

// upload judges curl's --data VALUE: @file sends a file, @- sends standard
// input.
func (k *cmd) upload(v judge.Arg, urlencode bool) {
	if !v.Known {
		k.Add(Dangerous, "sends data only known at run time: "+v.Text)
		return
	}
	val := v.Val
	if urlencode {
		if i := strings.IndexAny(val, "=@"); i >= 0 && val[i] == '@' {
			val = val[i:]
		} else if i >= 0 {
			val = val[i+1:]
			if !strings.HasPrefix(val, "@") {
				val = ""
			}
		}
	}
	switch {
	case val == "@-":
		k.Add(Dangerous, "sends its standard input over the network")
	case strings.HasPrefix(val, "@"):
		k.Add(Dangerous, "uploads a file: "+val[1:])
	default:
		k.Add(Moderate, "sends data")
	}
}

func ruleWget(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.R.Flags.Net = true
	if k.sendsOutput() {
		return
	}
	opts, _ := k.ValueOpts.Scan(k.Args)
	toStdout := false
	for _, o := range opts {
		v := o.Val
		switch {
		case o.Is("-O", "--output-document"):
			if v.Known && v.Val == "-" {
				toStdout = true
			} else {
				k.Write(v)
				toStdout = true
			}
		case o.Is("-o", "--output-file", "-a", "--append-output", "--save-cookies"):
			k.Write(v)
		case o.Is("-P", "--directory-prefix"):
			k.Write(v)
			toStdout = true
		case o.Is("--post-file", "--body-file"):
			k.Add(Dangerous, "uploads a file: "+v.Text)
		case o.Is("--post-data", "--body-data"):
			k.Add(Moderate, "sends data")
		case o.Is("-e", "--execute", "--config", "--use-askpass"):
			k.Add(Dangerous, "takes commands from its options or a file, which cannot be analysed")
		}
	}
	if !toStdout {
		k.Add(Moderate, "saves a download into the current directory")
	}
	k.Add(Moderate, "reaches the network")
}

// remoteSpec reports whether an scp or rsync operand names another machine
// (host:path or user@host:path or rsync://).
func remoteSpec(a judge.Arg) bool {
	if !a.Known {
		return true
	}
	v := a.Val
	if strings.Contains(v, "://") {
		return true
	}
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return false
	}
	slash := strings.IndexByte(v, '/')
	return slash < 0 || slash > i
}

func ruleCopyRemote(k *cmd) {
	opts, ops := k.ValueOpts.Scan(k.Args)
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "copies a path only known at run time: "+a.Text)
		return
	}
	for _, o := range opts {
		switch {
		case o.Is("-e", "--rsh", "--rsync-path", "-S", "-o"):
			if o.Is("-o") && o.Val.Known && !strings.Contains(strings.ToLower(o.Val.Val), "command") {
				continue
			}
			k.Add(Dangerous, "runs a command named in its options")
		case o.Is("--log-file", "--write-batch", "--only-write-batch"):
			k.Write(o.Val)
		case o.Is("--delete", "--delete-before", "--delete-during", "--delete-after", "--delete-excluded", "--remove-source-files"):
			k.Add(Moderate, "deletes files")
		}
	}
	if len(ops) < 2 {
		k.Add(Moderate, "copies files")
		return
	}
	dest, sources := ops[len(ops)-1], ops[:len(ops)-1]
	if remoteSpec(dest) {
		k.R.Flags.Net = true
		k.Add(Dangerous, "copies files to another machine")
		return
	}
	for _, s := range sources {
		if remoteSpec(s) {
			k.R.Flags.Net = true
			k.Add(Moderate, "copies files from another machine")
			break
		}
	}
	k.Write(dest)
	k.copiesGitDir(sources)
}

func ruleRemote(k *cmd) {
	if judge.OnlyInfo(k.Args) || k.Name == "ssh" && len(k.Args) == 1 && k.Args[0].Known && k.Args[0].Val == "-V" {
		k.Add(Safe, "prints version or help")
		return
	}
	k.R.Flags.Net = true
	switch k.Name {
	case "ssh", "mosh", "rsh", "rlogin", "autossh", "sshpass":
		k.Add(Dangerous, "runs commands on another machine")
	case "sftp", "ftp", "tftp", "lftp":
		k.Add(Dangerous, "transfers files to or from another machine")
	default:
		k.Add(Dangerous, "opens a raw network connection")
	}
}

func ruleCrypto(k *cmd) {
	switch k.Name {
	case "gpg", "gpg2":
		for _, a := range k.Args {
			if a.Known && strings.HasPrefix(a.Val, "--export-secret") {
				k.Add(Dangerous, "exports secret keys")
				return
			}
			if a.Known && (a.Val == "--list-keys" || a.Val == "-k" || a.Val == "--list-secret-keys" || a.Val == "-K" || a.Val == "--version" || a.Val == "--verify" || a.Val == "--fingerprint") {
				k.Add(Safe, "lists or verifies keys")
				return
			}
		}
	case "openssl":
		if len(k.Args) > 0 && k.Args[0].Known {
			switch k.Args[0].Val {
			case "version", "help", "list", "x509", "verify", "dgst", "ciphers", "s_client":
				if k.Args[0].Val == "s_client" {
					k.R.Flags.Net = true
					k.Add(Moderate, "reaches the network")
					return
				}
				for _, a := range k.Args {
					if a.Known && a.Val == "-out" {
						k.Add(Moderate, "writes files")
						return
					}
				}
				k.Add(Safe, "inspects certificates or digests")
				return
			}
		}
	case "ssh-keygen":
		for _, a := range k.Args {
			if a.Known && (a.Val == "-l" || a.Val == "-F" || a.Val == "-y") {
				k.Add(Safe, "inspects keys")
				return
			}
		}
	}
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.Add(Moderate, "creates or changes keys")
}
