package shell

import (
	"path"
	"slices"
	"strings"
)

// Programs that read, write or delete files.

func ruleRm(k *cmd) {
	sp := spec{longVal: []string{}}
	opts, ops := sp.scan(k.args)
	if hasOpt(opts, "--no-preserve-root") {
		k.add(Dangerous, "deletes with --no-preserve-root")
	}
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "deletes a path only known at run time: "+a.text)
		return
	}
	verb := "deletes"
	if len(ops) == 0 {
		k.add(Moderate, verb+" files")
		return
	}
	for _, a := range ops {
		k.remove(a, verb)
	}
}

func ruleCreate(k *cmd) {
	_, ops := k.valueOpts.scan(k.args)
	if k.name == "mknod" && len(ops) > 1 {
		ops = ops[:1]
	}
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "writes to a path only known at run time: "+a.text)
		return
	}
	if len(ops) == 0 {
		k.add(Moderate, "writes files")
	}
	for _, a := range ops {
		k.write(a)
	}
}

func ruleCopy(k *cmd) {
	opts, ops := k.valueOpts.scan(k.args)
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "copies or moves a path only known at run time: "+a.text)
		return
	}
	if k.name == "install" && hasOpt(opts, "-d", "--directory") {
		for _, a := range ops {
			k.write(a)
		}
		return
	}
	if v, ok := optVal(opts, "-s", "--strip-program"); ok && k.name == "install" {
		k.nestedArgv([]arg{v})
	}
	var dest arg
	sources := ops
	if v, ok := optVal(opts, "-t", "--target-directory"); ok {
		dest = v
	} else if len(ops) >= 2 {
		dest, sources = ops[len(ops)-1], ops[:len(ops)-1]
	} else if len(ops) == 1 && k.name == "ln" {
		dest = literalArg(path.Base(ops[0].val))
	} else {
		k.add(Moderate, "copies files")
		return
	}
	k.write(dest)
	k.copiesGitDir(sources)
	switch k.name {
	case "mv":
		for _, s := range sources {
			k.remove(s, "moves")
		}
	case "ln":
		for _, s := range sources {
			target := s
			if hasOpt(opts, "-s", "--symbolic") && !path.IsAbs(s.val) && !strings.HasPrefix(s.val, "~") {
				// A relative symlink target is relative to the link's directory.
				if p, ok := k.c.resolve(k.x.f, dest); ok {
					target = literalArg(path.Join(path.Dir(p), s.val))
				}
			}
			if pl, shown := k.c.where(k.x.f, target); pl != placeWorkspace && pl != placeTemp {
				k.add(Dangerous, "links to a path outside the workspace, so later writes through the link leave it: "+shown)
			}
		}
	}
}

// copiesGitDir marks copying a .git directory or gitfile (cp -r x/.git
// dest, rsync -a repo/.git .): wherever it lands, git obeys its hooks
// and config, and runs them outside the sandbox.
func (k *cmd) copiesGitDir(sources []arg) {
	for _, s := range sources {
		if p, ok := k.c.resolve(k.x.f, s); ok && inGitDir(p) && strings.EqualFold(path.Base(p), ".git") {
			k.add(Dangerous, "copies a .git directory or file, whose hooks and config git runs outside the sandbox: "+k.c.show(p))
			return
		}
	}
}

// chmodMode matches a mode word like -x, -w, -rwx that chmod takes where
// an option could be.
func chmodMode(v string) bool {
	if len(v) < 2 || v[0] != '-' {
		return false
	}
	for _, c := range v[1:] {
		if !strings.ContainsRune("rwxXstugoa", c) {
			return false
		}
	}
	return true
}

func ruleChmod(k *cmd) {
	var words []arg
	recursive := false
	ref := false
	for i, a := range k.args {
		if a.known && a.val == "--" {
			words = append(words, k.args[i+1:]...)
			break
		}
		if a.known && strings.HasPrefix(a.val, "-") && !(k.name == "chmod" && chmodMode(a.val)) {
			if a.val == "-R" || a.val == "--recursive" || strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, "R") {
				recursive = true
			}
			if strings.HasPrefix(a.val, "--reference") {
				ref = true
			}
			if a.val == "--no-preserve-root" {
				k.add(Dangerous, "changes files with --no-preserve-root")
			}
			continue
		}
		words = append(words, a)
	}
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "changes a path only known at run time: "+a.text)
		return
	}
	files := words
	if !ref && k.name != "setfacl" && len(words) > 0 {
		mode := words[0]
		files = words[1:]
		if k.name == "chmod" && setuidMode(mode.val) {
			k.add(Dangerous, "sets the set-user-ID or set-group-ID bit")
		}
	}
	what := "changes permissions of"
	if k.name != "chmod" {
		what = "changes the owner of"
	}
	if len(files) == 0 {
		k.add(Moderate, what+" files")
	}
	for _, f := range files {
		pl, shown := k.c.where(k.x.f, f)
		p, _ := k.c.resolve(k.x.f, f)
		switch {
		case pl == placeUnknown:
			k.add(Dangerous, what+" a path only known at run time: "+f.text)
		case pl != placeWorkspace && pl != placeTemp:
			k.add(Dangerous, what+" a path outside the workspace: "+shown)
		case recursive && k.c.wide(p):
			k.add(Dangerous, what+" everything in "+shown)
		case inGitDir(p):
			k.add(Dangerous, what+" a path in .git (git hooks and config run outside the sandbox): "+shown)
		default:
			k.add(Moderate, what+" "+shown)
		}
	}
}

// setuidMode reports whether a chmod mode sets the setuid or setgid bit.
func setuidMode(m string) bool {
	if isDigits(m) && len(m) == 4 && strings.ContainsAny(m[:1], "246") {
		return true
	}
	return strings.Contains(m, "+s") || strings.Contains(m, "=s") || strings.ContainsAny(m, "s") && strings.ContainsAny(m, "+=")
}

func ruleDd(k *cmd) {
	wrote := false
	for _, a := range k.args {
		if !a.known {
			k.add(Dangerous, "an operand is only known at run time: "+a.text)
			continue
		}
		if v, ok := strings.CutPrefix(a.val, "of="); ok {
			wrote = true
			w := literalArg(v)
			w.home = strings.HasPrefix(v, "~")
			k.write(w)
		}
	}
	if !wrote && len(k.r.reasons) == 0 {
		k.add(Moderate, "copies raw data")
	}
}

// tarCall is what tar's arguments say: its mode (c, x, t, r or d, 0 when
// none) and the archive and directory it was given.
type tarCall struct {
	mode               byte
	archive, dir       arg
	hasArchive, hasDir bool
}

func ruleTar(k *cmd) {
	var t tarCall
	args := k.tarBundle(k.args, &t)
	opts, _ := k.valueOpts.scan(args)
	k.tarOptions(opts, &t)
	if t.hasArchive && t.archive.known && strings.Contains(t.archive.val, ":") && !strings.HasPrefix(t.archive.val, "/") {
		k.add(Dangerous, "reads or writes an archive on another machine")
		k.r.fl.net = true
	}
	switch t.mode {
	case 't', 'd':
		if len(k.r.reasons) == 0 {
			k.add(Safe, "lists an archive")
		}
	case 'x':
		target := literalArg(".")
		if t.hasDir {
			target = t.dir
		}
		if l, reason := k.c.writeTo(k.x.f, target); reason != "" {
			k.add(l, "extracts an archive: "+reason)
		}
	case 'c', 'r':
		if t.hasArchive && !(t.archive.known && t.archive.val == "-") {
			k.write(t.archive)
		} else if len(k.r.reasons) == 0 {
			k.add(Safe, "writes an archive to standard output")
		}
	default:
		k.add(Moderate, "works on an archive")
	}
}

// tarBundle reads the old style, where the first word is a bundle of
// letters without a dash and the values of f, C and friends follow in
// order, and returns the arguments after it.
func (k *cmd) tarBundle(args []arg, t *tarCall) []arg {
	if len(args) == 0 || !args[0].known || args[0].val == "" || args[0].val[0] == '-' {
		return args
	}
	bundle := args[0].val
	next := 1
	for i := 0; i < len(bundle); i++ {
		switch c := bundle[i]; c {
		case 'c', 'x', 't', 'r', 'u', 'd', 'A':
			t.mode = c
		case 'f', 'C', 'b', 'T', 'X', 'N', 'V', 'H', 'K', 'g', 'L', 'I':
			if next < len(args) {
				if c == 'f' {
					t.archive, t.hasArchive = args[next], true
				} else if c == 'C' {
					t.dir, t.hasDir = args[next], true
				} else if c == 'I' {
					k.nestedArgv([]arg{args[next]})
				}
				next++
			}
		}
	}
	return args[next:]
}

// tarOptions reads tar's dashed options into t, judging the ones that run
// commands or write anywhere.
func (k *cmd) tarOptions(opts []option, t *tarCall) {
	for _, o := range opts {
		switch {
		case o.is("-c", "--create"):
			t.mode = 'c'
		case o.is("-x", "--extract", "--get"):
			t.mode = 'x'
		case o.is("-t", "--list"):
			t.mode = 't'
		case o.is("-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete"):
			t.mode = 'r'
		case o.is("-d", "--diff", "--compare"):
			t.mode = 'd'
		case o.is("-f", "--file"):
			t.archive, t.hasArchive = o.val, true
		case o.is("-C", "--directory"):
			t.dir, t.hasDir = o.val, true
		case o.is("-I", "--use-compress-program"):
			k.nestedArgv([]arg{o.val})
		case o.is("--to-command", "--checkpoint-action", "--rsh-command", "--info-script", "-F", "--new-volume-script"):
			k.add(Dangerous, "runs a command from its options, which cannot be analysed")
		case o.is("-P", "--absolute-names"):
			k.add(Dangerous, "keeps absolute paths, so it can write anywhere")
		case o.is("--remove-files"):
			k.add(Moderate, "deletes the files it archives")
		}
	}
}

func ruleUnzip(k *cmd) {
	sp := k.valueOpts
	opts, _ := sp.scan(k.args)
	if hasOpt(opts, "-l", "-v", "-t", "-Z", "-p", "-c", "-z") {
		k.add(Safe, "lists or prints an archive")
		return
	}
	target := literalArg(".")
	if v, ok := optVal(opts, "-d"); ok {
		target = v
	}
	if l, reason := k.c.writeTo(k.x.f, target); reason != "" {
		k.add(l, "extracts an archive: "+reason)
	}
}

func ruleZip(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if hasOpt(opts, "-T", "--test") && hasOpt(opts, "--unzip-command") {
		k.add(Dangerous, "runs a command from its options, which cannot be analysed")
	}
	for _, o := range opts {
		if o.name == "-T" || o.name == "--test" {
			continue
		}
		if o.is("--unzip-command") {
			k.add(Dangerous, "runs a command from its options, which cannot be analysed")
		}
		if o.is("-m", "--move") {
			k.add(Moderate, "deletes the files it archives")
		}
	}
	if len(ops) > 0 {
		k.write(ops[0])
		return
	}
	k.add(Moderate, "writes an archive")
}

func ruleCompress(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if hasOpt(opts, "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test") {
		k.add(Safe, "reads compressed data")
		return
	}
	if v, ok := optVal(opts, "-o", "--output"); ok {
		k.write(v)
		return
	}
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "replaces a path only known at run time: "+a.text)
		return
	}
	if len(ops) == 0 {
		k.add(Safe, "compresses standard input")
		return
	}
	for _, a := range ops {
		if l, reason := k.c.writeTo(k.x.f, a); reason != "" {
			k.add(l, rephraseWrite("replaces a file", reason))
		}
	}
}

func rulePatch(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if hasOpt(opts, "--dry-run") {
		k.add(Safe, "checks a patch")
		return
	}
	if v, ok := optVal(opts, "-o", "--output"); ok {
		k.write(v)
	}
	if v, ok := optVal(opts, "-d", "--directory"); ok {
		k.write(v)
	}
	if len(ops) > 0 {
		k.write(ops[0])
	}
	k.add(Moderate, "applies a patch to files")
}

func ruleSort(k *cmd) {
	sp := k.valueOpts
	opts, _ := sp.scan(k.args)
	if a, bad := unknownArgs(k.args); bad {
		k.add(Moderate, "an argument only known at run time could be --output: "+a.text)
	}
	for _, o := range opts {
		switch {
		case o.is("-o", "--output"):
			k.write(o.val)
		case o.is("--compress-program"):
			k.add(Moderate, "runs a compression program")
			k.nestedArgv([]arg{o.val})
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "sorts text")
	}
}

// ruleSecondOperandWrites covers uniq and xxd, which write their second
// operand.
func ruleSecondOperandWrites(k *cmd) {
	_, ops := k.valueOpts.scan(k.args)
	if a, bad := unknownArgs(k.args); bad {
		k.add(Moderate, "an argument only known at run time could name an output file: "+a.text)
	}
	if len(ops) >= 2 && !(ops[1].known && ops[1].val == "-") {
		k.write(ops[1])
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "filters text")
	}
}

// ruleSplit covers split and csplit, which write files named from a
// prefix: split's second operand, csplit's -f (x and xx by default, in
// the working directory). split --filter hands each piece to a command.
func ruleSplit(k *cmd) {
	prefix := literalArg("x")
	if k.name == "csplit" {
		prefix = literalArg("xx")
	}
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "an argument only known at run time could be an option that writes or runs a command: "+a.text)
		return
	}
	opts, ops := k.valueOpts.scan(k.args)
	if k.name == "split" {
		if len(ops) > 1 {
			prefix = ops[1]
		}
		if v, ok := optVal(opts, "--filter"); ok {
			k.add(Moderate, "hands each piece to a command")
			k.nestedScript(v, "runs a command")
			return
		}
		if v, ok := optVal(opts, "--additional-suffix"); ok && strings.Contains(v.val, "/") {
			k.add(Dangerous, "the suffix holds a slash, so pieces land in another directory: "+v.text)
		}
	} else if v, ok := optVal(opts, "-f", "--prefix"); ok {
		prefix = v
	}
	// The pieces are the prefix and a suffix: where the prefix lands is
	// where they do.
	k.write(prefix)
}

func ruleTee(k *cmd) {
	sp := k.valueOpts
	_, ops := sp.scan(k.args)
	if len(ops) == 0 {
		k.add(Safe, "copies its input to its output")
	}
	for _, a := range ops {
		k.write(a)
	}
}

// ruleOutputOption covers readers whose -o option names an output file.
func ruleOutputOption(k *cmd) {
	opts, _ := k.valueOpts.scan(k.args)
	if v, ok := optVal(opts, "-o", "--output"); ok {
		k.write(v)
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "prints text")
	}
}

func ruleDate(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if hasOpt(opts, "-s", "--set") {
		k.add(Dangerous, "sets the system clock")
		return
	}
	for _, a := range ops {
		if !a.known || !strings.HasPrefix(a.val, "+") {
			k.add(Dangerous, "sets the system clock")
			return
		}
	}
	k.add(Safe, "prints the date")
}

func ruleHostname(k *cmd) {
	for _, a := range k.args {
		if !a.known || !strings.HasPrefix(a.val, "-") || a.val == "-F" || a.val == "--file" || a.val == "-b" || a.val == "--boot" {
			k.add(Dangerous, "renames the machine")
			return
		}
	}
	k.add(Safe, "prints the host name")
}

func ruleCd(k *cmd) {
	k.r.noScan = true
	var target *arg
	physical := false
	for i := range k.args {
		a := k.args[i]
		if a.known && len(a.val) > 1 && a.val[0] == '-' && a.val != "--" {
			physical = physical || strings.Contains(a.val, "P")
			continue
		}
		if a.known && a.val == "--" {
			continue
		}
		target = &k.args[i]
		break
	}
	f := k.x.f
	switch {
	case target == nil:
		if k.c.home != "" {
			f.cwd = k.c.home
		} else {
			f.cwd = "/\x00home"
		}
	case target.known && target.val == "-":
		f.cwd = ""
	case f.cdpath && target.known && cdpathApplies(target.val):
		// cd looks the name up in CDPATH first: it may land anywhere.
		f.cwd = ""
	case physical && (!target.known || slices.Contains(strings.Split(target.val, "/"), "..")):
		// cd -P resolves links before "..": link/.. is where the link
		// leads, not where its name is.
		f.cwd = ""
	default:
		if p, ok := k.c.resolve(f, *target); ok {
			f.cwd = p
		} else {
			f.cwd = ""
		}
	}
	k.add(Safe, "changes directory")
}

// cdpathApplies reports whether cd looks a directory up in CDPATH: bash
// does for any name that does not start with /, . or .. (nor ~, which
// the shell expands first).
func cdpathApplies(dir string) bool {
	if dir == "" || dir[0] == '/' || dir[0] == '~' {
		return false
	}
	return dir != "." && dir != ".." && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../")
}

func rulePopd(k *cmd) {
	k.x.f.cwd = ""
	k.add(Safe, "changes directory")
}

func ruleMan(k *cmd) {
	sp := k.valueOpts
	opts, _ := sp.scan(k.args)
	for _, o := range opts {
		if o.is("-P", "--pager", "-H", "--html") {
			k.add(Moderate, "runs a pager or browser named in its options")
			if o.has {
				k.nestedScript(o.val, "runs a command")
			}
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "shows documentation")
	}
}
