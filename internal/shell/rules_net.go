package shell

import (
	"strings"
)

// Programs that reach the network. Anything they send that comes from a
// command substitution may be data leaving the machine, so that is
// dangerous wherever it appears.

// sendsOutput marks a network command whose arguments hold command output.
func (k *cmd) sendsOutput() bool {
	for _, a := range k.args {
		if a.subst {
			k.add(Dangerous, "sends the output of a command over the network: "+a.text)
			return true
		}
	}
	return false
}

func ruleNetwork(reason string) rule {
	return func(k *cmd) {
		if onlyInfo(k.args) {
			k.add(Safe, "prints version or help")
			return
		}
		k.r.fl.net = true
		if k.sendsOutput() {
			return
		}
		k.add(Moderate, reason)
	}
}

func ruleCurl(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.r.fl.net = true
	if k.sendsOutput() {
		return
	}
	opts, _ := k.valueOpts.scan(k.args)
	for _, o := range opts {
		v := o.val
		switch {
		case o.is("-d", "--data", "--data-ascii", "--data-binary", "--data-urlencode", "--json"):
			k.upload(v, o.is("--data-urlencode"))
		case o.is("--data-raw", "--form-string", "--expand-data"):
			k.add(Moderate, "sends data")
		case o.is("-F", "--form"):
			if !v.known {
				k.add(Dangerous, "sends data only known at run time: "+v.text)
			} else if _, val, _ := strings.Cut(v.val, "="); strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<") {
				k.add(Dangerous, "uploads a file: "+val[1:])
			} else {
				k.add(Moderate, "sends data")
			}
		case o.is("-T", "--upload-file"):
			k.add(Dangerous, "uploads a file: "+v.text)
		case o.is("-K", "--config", "--netrc-file"):
			k.add(Dangerous, "reads its options from a file, which cannot be analysed")
		case o.is("--unix-socket", "--abstract-unix-socket"):
			k.add(Dangerous, "talks to a local socket (a daemon such as docker)")
		case o.is("-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc"):
			k.write(v)
		case o.is("--output-dir"):
			k.write(v)
		case o.is("-O", "--remote-name", "--remote-name-all", "-J", "--remote-header-name"):
			k.add(Moderate, "saves a download into the current directory")
		case o.is("--variable"):
			if v.known && strings.Contains(v.val, "@") {
				k.add(Dangerous, "reads a file into a variable it may send")
			}
		}
	}
	k.add(Moderate, "reaches the network")
}

// upload judges curl's --data VALUE: @file sends a file, @- sends standard
// input.
func (k *cmd) upload(v arg, urlencode bool) {
	if !v.known {
		k.add(Dangerous, "sends data only known at run time: "+v.text)
		return
	}
	val := v.val
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
		k.add(Dangerous, "sends its standard input over the network")
	case strings.HasPrefix(val, "@"):
		k.add(Dangerous, "uploads a file: "+val[1:])
	default:
		k.add(Moderate, "sends data")
	}
}

func ruleWget(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.r.fl.net = true
	if k.sendsOutput() {
		return
	}
	opts, _ := k.valueOpts.scan(k.args)
	toStdout := false
	for _, o := range opts {
		v := o.val
		switch {
		case o.is("-O", "--output-document"):
			if v.known && v.val == "-" {
				toStdout = true
			} else {
				k.write(v)
				toStdout = true
			}
		case o.is("-o", "--output-file", "-a", "--append-output", "--save-cookies"):
			k.write(v)
		case o.is("-P", "--directory-prefix"):
			k.write(v)
			toStdout = true
		case o.is("--post-file", "--body-file"):
			k.add(Dangerous, "uploads a file: "+v.text)
		case o.is("--post-data", "--body-data"):
			k.add(Moderate, "sends data")
		case o.is("-e", "--execute", "--config", "--use-askpass"):
			k.add(Dangerous, "takes commands from its options or a file, which cannot be analysed")
		}
	}
	if !toStdout {
		k.add(Moderate, "saves a download into the current directory")
	}
	k.add(Moderate, "reaches the network")
}

// remoteSpec reports whether an scp or rsync operand names another machine
// (host:path or user@host:path or rsync://).
func remoteSpec(a arg) bool {
	if !a.known {
		return true
	}
	v := a.val
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
	opts, ops := k.valueOpts.scan(k.args)
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "copies a path only known at run time: "+a.text)
		return
	}
	for _, o := range opts {
		switch {
		case o.is("-e", "--rsh", "--rsync-path", "-S", "-o"):
			if o.is("-o") && o.val.known && !strings.Contains(strings.ToLower(o.val.val), "command") {
				continue
			}
			k.add(Dangerous, "runs a command named in its options")
		case o.is("--log-file", "--write-batch", "--only-write-batch"):
			k.write(o.val)
		case o.is("--delete", "--delete-before", "--delete-during", "--delete-after", "--delete-excluded", "--remove-source-files"):
			k.add(Moderate, "deletes files")
		}
	}
	if len(ops) < 2 {
		k.add(Moderate, "copies files")
		return
	}
	dest, sources := ops[len(ops)-1], ops[:len(ops)-1]
	if remoteSpec(dest) {
		k.r.fl.net = true
		k.add(Dangerous, "copies files to another machine")
		return
	}
	for _, s := range sources {
		if remoteSpec(s) {
			k.r.fl.net = true
			k.add(Moderate, "copies files from another machine")
			break
		}
	}
	k.write(dest)
	k.copiesGitDir(sources)
}

func ruleRemote(k *cmd) {
	if onlyInfo(k.args) || k.name == "ssh" && len(k.args) == 1 && k.args[0].known && k.args[0].val == "-V" {
		k.add(Safe, "prints version or help")
		return
	}
	k.r.fl.net = true
	switch k.name {
	case "ssh", "mosh", "rsh", "rlogin", "autossh", "sshpass":
		k.add(Dangerous, "runs commands on another machine")
	case "sftp", "ftp", "tftp", "lftp":
		k.add(Dangerous, "transfers files to or from another machine")
	default:
		k.add(Dangerous, "opens a raw network connection")
	}
}

func ruleCrypto(k *cmd) {
	switch k.name {
	case "gpg", "gpg2":
		for _, a := range k.args {
			if a.known && strings.HasPrefix(a.val, "--export-secret") {
				k.add(Dangerous, "exports secret keys")
				return
			}
			if a.known && (a.val == "--list-keys" || a.val == "-k" || a.val == "--list-secret-keys" || a.val == "-K" || a.val == "--version" || a.val == "--verify" || a.val == "--fingerprint") {
				k.add(Safe, "lists or verifies keys")
				return
			}
		}
	case "openssl":
		if len(k.args) > 0 && k.args[0].known {
			switch k.args[0].val {
			case "version", "help", "list", "x509", "verify", "dgst", "ciphers", "s_client":
				if k.args[0].val == "s_client" {
					k.r.fl.net = true
					k.add(Moderate, "reaches the network")
					return
				}
				for _, a := range k.args {
					if a.known && a.val == "-out" {
						k.add(Moderate, "writes files")
						return
					}
				}
				k.add(Safe, "inspects certificates or digests")
				return
			}
		}
	case "ssh-keygen":
		for _, a := range k.args {
			if a.known && (a.val == "-l" || a.val == "-F" || a.val == "-y") {
				k.add(Safe, "inspects keys")
				return
			}
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "creates or changes keys")
}
