package unix

import (
	"path"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

// Programs that read, write or delete files.

func ruleRm(k *cmd) {
	sp := judge.Spec{LongVal: []string{}}
	opts, ops := sp.Scan(k.Args)
	if judge.HasOpt(opts, "--no-preserve-root") {
		k.Add(Dangerous, "deletes with --no-preserve-root")
	}
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "deletes a path only known at run time: "+a.Text)
		return
	}
	verb := "deletes"
	if len(ops) == 0 {
		k.Add(Moderate, verb+" files")
		return
	}
	for _, a := range ops {
		k.Remove(a, verb)
	}
}

func ruleCreate(k *cmd) {
	_, ops := k.ValueOpts.Scan(k.Args)
	if k.Name == "mknod" && len(ops) > 1 {
		ops = ops[:1]
	}
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "writes to a path only known at run time: "+a.Text)
		return
	}
	if len(ops) == 0 {
		k.Add(Moderate, "writes files")
	}
	for _, a := range ops {
		k.Write(a)
	}
}

func ruleCopy(k *cmd) {
	opts, ops := k.ValueOpts.Scan(k.Args)
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "copies or moves a path only known at run time: "+a.Text)
		return
	}
	if k.Name == "install" && judge.HasOpt(opts, "-d", "--directory") {
		for _, a := range ops {
			k.Write(a)
		}
		return
	}
	if v, ok := judge.OptVal(opts, "-s", "--strip-program"); ok && k.Name == "install" {
		k.NestedArgv([]judge.Arg{v})
	}
	var dest judge.Arg
	sources := ops
	if v, ok := judge.OptVal(opts, "-t", "--target-directory"); ok {
		dest = v
	} else if len(ops) >= 2 {
		dest, sources = ops[len(ops)-1], ops[:len(ops)-1]
	} else if len(ops) == 1 && k.Name == "ln" {
		dest = judge.LiteralArg(path.Base(ops[0].Val))
	} else {
		k.Add(Moderate, "copies files")
		return
	}
	k.Write(dest)
	k.copiesGitDir(sources)
	switch k.Name {
	case "mv":
		for _, s := range sources {
			k.Remove(s, "moves")
		}
	case "ln":
		for _, s := range sources {
			target := s
			if judge.HasOpt(opts, "-s", "--symbolic") && !path.IsAbs(s.Val) && !strings.HasPrefix(s.Val, "~") {
				// A relative symlink target is relative to the link's directory.
				if p, ok := k.W.Resolve(dest); ok {
					target = judge.LiteralArg(path.Join(path.Dir(p), s.Val))
				}
			}
			if pl, shown := k.W.Where(target); pl != judge.PlaceWorkspace && pl != judge.PlaceTemp {
				k.Add(Dangerous, "links to a path outside the workspace, so later writes through the link leave it: "+shown)
			}
		}
	}
}

// copiesGitDir marks copying a .git directory or gitfile (cp -r x/.git
// dest, rsync -a repo/.git .): wherever it lands, git obeys its hooks
// and config, and runs them outside the sandbox.
func (k *cmd) copiesGitDir(sources []judge.Arg) {
	for _, s := range sources {
		if p, ok := k.W.Resolve(s); ok && judge.InGitDir(p) && strings.EqualFold(path.Base(p), ".git") {
			k.Add(Dangerous, "copies a .git directory or file, whose hooks and config git runs outside the sandbox: "+k.W.Show(p))
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
	var words []judge.Arg
	recursive := false
	ref := false
	for i, a := range k.Args {
		if a.Known && a.Val == "--" {
			words = append(words, k.Args[i+1:]...)
			break
		}
		if a.Known && strings.HasPrefix(a.Val, "-") && !(k.Name == "chmod" && chmodMode(a.Val)) {
			if a.Val == "-R" || a.Val == "--recursive" || strings.HasPrefix(a.Val, "-") && !strings.HasPrefix(a.Val, "--") && strings.Contains(a.Val, "R") {
				recursive = true
			}
			if strings.HasPrefix(a.Val, "--reference") {
				ref = true
			}
			if a.Val == "--no-preserve-root" {
				k.Add(Dangerous, "changes files with --no-preserve-root")
			}
			continue
		}
		words = append(words, a)
	}
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "changes a path only known at run time: "+a.Text)
		return
	}
	files := words
	if !ref && k.Name != "setfacl" && len(words) > 0 {
		mode := words[0]
		files = words[1:]
		if k.Name == "chmod" && setuidMode(mode.Val) {
			k.Add(Dangerous, "sets the set-user-ID or set-group-ID bit")
		}
	}
	what := "changes permissions of"
	if k.Name != "chmod" {
		what = "changes the owner of"
	}
	if len(files) == 0 {
		k.Add(Moderate, what+" files")
	}
	for _, f := range files {
		pl, shown := k.W.Where(f)
		p, _ := k.W.Resolve(f)
		switch {
		case pl == judge.PlaceUnknown:
			k.Add(Dangerous, what+" a path only known at run time: "+f.Text)
		case pl != judge.PlaceWorkspace && pl != judge.PlaceTemp:
			k.Add(Dangerous, what+" a path outside the workspace: "+shown)
		case recursive && k.W.Wide(p):
			k.Add(Dangerous, what+" everything in "+shown)
		case judge.InGitDir(p):
			k.Add(Dangerous, what+" a path in .git (git hooks and config run outside the sandbox): "+shown)
		default:
			k.Add(Moderate, what+" "+shown)
		}
	}
}

// setuidMode reports whether a chmod mode sets the setuid or setgid bit.
func setuidMode(m string) bool {
	if judge.IsDigits(m) && len(m) == 4 && strings.ContainsAny(m[:1], "246") {
		return true
	}
	return strings.Contains(m, "+s") || strings.Contains(m, "=s") || strings.ContainsAny(m, "s") && strings.ContainsAny(m, "+=")
}

func ruleDd(k *cmd) {
	wrote := false
	for _, a := range k.Args {
		if !a.Known {
			k.Add(Dangerous, "an operand is only known at run time: "+a.Text)
			continue
		}
		if v, ok := strings.CutPrefix(a.Val, "of="); ok {
			wrote = true
			w := judge.LiteralArg(v)
			w.Home = strings.HasPrefix(v, "~")
			k.Write(w)
		}
	}
	if !wrote && len(k.R.Reasons) == 0 {
		k.Add(Moderate, "copies raw data")
	}
}

// tarCall is what tar's arguments say: its mode (c, x, t, r or d, 0 when
// none) and the archive and directory it was given.
type tarCall struct {
	mode               byte
	archive, dir       judge.Arg
	hasArchive, hasDir bool
}

func ruleTar(k *cmd) {
	var t tarCall
	args := k.tarBundle(k.Args, &t)
	opts, _ := k.ValueOpts.Scan(args)
	k.tarOptions(opts, &t)
	if t.hasArchive && t.archive.Known && strings.Contains(t.archive.Val, ":") && !strings.HasPrefix(t.archive.Val, "/") {
		k.Add(Dangerous, "reads or writes an archive on another machine")
		k.R.Flags.Net = true
	}
	switch t.mode {
	case 't', 'd':
		if len(k.R.Reasons) == 0 {
			k.Add(Safe, "lists an archive")
		}
	case 'x':
		target := judge.LiteralArg(".")
		if t.hasDir {
			target = t.dir
		}
		if l, reason := k.W.WriteTo(target); reason != "" {
			k.Add(l, "extracts an archive: "+reason)
		}
	case 'c', 'r':
		if t.hasArchive && !(t.archive.Known && t.archive.Val == "-") {
			k.Write(t.archive)
		} else if len(k.R.Reasons) == 0 {
			k.Add(Safe, "writes an archive to standard output")
		}
	default:
		k.Add(Moderate, "works on an archive")
	}
}

// tarBundle reads the old style, where the first word is a bundle of
// letters without a dash and the values of f, C and friends follow in
// order, and returns the arguments after it.
func (k *cmd) tarBundle(args []judge.Arg, t *tarCall) []judge.Arg {
	if len(args) == 0 || !args[0].Known || args[0].Val == "" || args[0].Val[0] == '-' {
		return args
	}
	bundle := args[0].Val
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
					k.NestedArgv([]judge.Arg{args[next]})
				}
				next++
			}
		}
	}
	return args[next:]
}

// tarOptions reads tar's dashed options into t, judging the ones that run
// commands or write anywhere.
func (k *cmd) tarOptions(opts []judge.Option, t *tarCall) {
	for _, o := range opts {
		switch {
		case o.Is("-c", "--create"):
			t.mode = 'c'
		case o.Is("-x", "--extract", "--get"):
			t.mode = 'x'
		case o.Is("-t", "--list"):
			t.mode = 't'
		case o.Is("-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete"):
			t.mode = 'r'
		case o.Is("-d", "--diff", "--compare"):
			t.mode = 'd'
		case o.Is("-f", "--file"):
			t.archive, t.hasArchive = o.Val, true
		case o.Is("-C", "--directory"):
			t.dir, t.hasDir = o.Val, true
		case o.Is("-I", "--use-compress-program"):
			k.NestedArgv([]judge.Arg{o.Val})
		case o.Is("--to-command", "--checkpoint-action", "--rsh-command", "--info-script", "-F", "--new-volume-script"):
			k.Add(Dangerous, "runs a command from its options, which cannot be analysed")
		case o.Is("-P", "--absolute-names"):
			k.Add(Dangerous, "keeps absolute paths, so it can write anywhere")
		case o.Is("--remove-files"):
			k.Add(Moderate, "deletes the files it archives")
		}
	}
}

func ruleUnzip(k *cmd) {
	sp := k.ValueOpts
	opts, _ := sp.Scan(k.Args)
	if judge.HasOpt(opts, "-l", "-v", "-t", "-Z", "-p", "-c", "-z") {
		k.Add(Safe, "lists or prints an archive")
		return
	}
	target := judge.LiteralArg(".")
	if v, ok := judge.OptVal(opts, "-d"); ok {
		target = v
	}
	if l, reason := k.W.WriteTo(target); reason != "" {
		k.Add(l, "extracts an archive: "+reason)
	}
}

func ruleZip(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if judge.HasOpt(opts, "-T", "--test") && judge.HasOpt(opts, "--unzip-command") {
		k.Add(Dangerous, "runs a command from its options, which cannot be analysed")
	}
	for _, o := range opts {
		if o.Name == "-T" || o.Name == "--test" {
			continue
		}
		if o.Is("--unzip-command") {
			k.Add(Dangerous, "runs a command from its options, which cannot be analysed")
		}
		if o.Is("-m", "--move") {
			k.Add(Moderate, "deletes the files it archives")
		}
	}
	if len(ops) > 0 {
		k.Write(ops[0])
		return
	}
	k.Add(Moderate, "writes an archive")
}

func ruleCompress(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if judge.HasOpt(opts, "-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test") {
		k.Add(Safe, "reads compressed data")
		return
	}
	if v, ok := judge.OptVal(opts, "-o", "--output"); ok {
		k.Write(v)
		return
	}
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "replaces a path only known at run time: "+a.Text)
		return
	}
	if len(ops) == 0 {
		k.Add(Safe, "compresses standard input")
		return
	}
	for _, a := range ops {
		if l, reason := k.W.WriteTo(a); reason != "" {
			k.Add(l, judge.RephraseWrite("replaces a file", reason))
		}
	}
}

func rulePatch(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if judge.HasOpt(opts, "--dry-run") {
		k.Add(Safe, "checks a patch")
		return
	}
	if v, ok := judge.OptVal(opts, "-o", "--output"); ok {
		k.Write(v)
	}
	if v, ok := judge.OptVal(opts, "-d", "--directory"); ok {
		k.Write(v)
	}
	if len(ops) > 0 {
		k.Write(ops[0])
	}
	k.Add(Moderate, "applies a patch to files")
}

func ruleSort(k *cmd) {
	sp := k.ValueOpts
	opts, _ := sp.Scan(k.Args)
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Moderate, "an argument only known at run time could be --output: "+a.Text)
	}
	for _, o := range opts {
		switch {
		case o.Is("-o", "--output"):
			k.Write(o.Val)
		case o.Is("--compress-program"):
			k.Add(Moderate, "runs a compression program")
			k.NestedArgv([]judge.Arg{o.Val})
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "sorts text")
	}
}

// ruleSecondOperandWrites covers uniq and xxd, which write their second
// operand.
func ruleSecondOperandWrites(k *cmd) {
	_, ops := k.ValueOpts.Scan(k.Args)
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Moderate, "an argument only known at run time could name an output file: "+a.Text)
	}
	if len(ops) >= 2 && !(ops[1].Known && ops[1].Val == "-") {
		k.Write(ops[1])
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "filters text")
	}
}

// ruleSplit covers split and csplit, which write files named from a
// prefix: split's second operand, csplit's -f (x and xx by default, in
// the working directory). split --filter hands each piece to a command.
func ruleSplit(k *cmd) {
	prefix := judge.LiteralArg("x")
	if k.Name == "csplit" {
		prefix = judge.LiteralArg("xx")
	}
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "an argument only known at run time could be an option that writes or runs a command: "+a.Text)
		return
	}
	opts, ops := k.ValueOpts.Scan(k.Args)
	if k.Name == "split" {
		if len(ops) > 1 {
			prefix = ops[1]
		}
		if v, ok := judge.OptVal(opts, "--filter"); ok {
			k.Add(Moderate, "hands each piece to a command")
			k.NestedScript(v, "runs a command")
			return
		}
		if v, ok := judge.OptVal(opts, "--additional-suffix"); ok && strings.Contains(v.Val, "/") {
			k.Add(Dangerous, "the suffix holds a slash, so pieces land in another directory: "+v.Text)
		}
	} else if v, ok := judge.OptVal(opts, "-f", "--prefix"); ok {
		prefix = v
	}
	// The pieces are the prefix and a suffix: where the prefix lands is
	// where they do.
	k.Write(prefix)
}

func ruleTee(k *cmd) {
	sp := k.ValueOpts
	_, ops := sp.Scan(k.Args)
	if len(ops) == 0 {
		k.Add(Safe, "copies its input to its output")
	}
	for _, a := range ops {
		k.Write(a)
	}
}

// ruleOutputOption covers readers whose -o option names an output file.
func ruleOutputOption(k *cmd) {
	opts, _ := k.ValueOpts.Scan(k.Args)
	if v, ok := judge.OptVal(opts, "-o", "--output"); ok {
		k.Write(v)
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "prints text")
	}
}

func ruleDate(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if judge.HasOpt(opts, "-s", "--set") {
		k.Add(Dangerous, "sets the system clock")
		return
	}
	for _, a := range ops {
		if !a.Known || !strings.HasPrefix(a.Val, "+") {
			k.Add(Dangerous, "sets the system clock")
			return
		}
	}
	k.Add(Safe, "prints the date")
}

func ruleHostname(k *cmd) {
	for _, a := range k.Args {
		if !a.Known || !strings.HasPrefix(a.Val, "-") || a.Val == "-F" || a.Val == "--file" || a.Val == "-b" || a.Val == "--boot" {
			k.Add(Dangerous, "renames the machine")
			return
		}
	}
	k.Add(Safe, "prints the host name")
}

func ruleCd(k *cmd) {
	k.R.NoScan = true
	var target *judge.Arg
	physical := false
	for i := range k.Args {
		a := k.Args[i]
		if a.Known && len(a.Val) > 1 && a.Val[0] == '-' && a.Val != "--" {
			physical = physical || strings.Contains(a.Val, "P")
			continue
		}
		if a.Known && a.Val == "--" {
			continue
		}
		target = &k.Args[i]
		break
	}
	w := k.W
	switch {
	case target == nil:
		if w.Home() != "" {
			w.Chdir(w.Home())
		} else {
			w.Chdir("/\x00home")
		}
	case target.Known && target.Val == "-":
		w.Chdir("")
	case w.CdPath() && target.Known && cdpathApplies(target.Val):
		// cd looks the name up in CDPATH first: it may land anywhere.
		w.Chdir("")
	case physical && (!target.Known || slices.Contains(strings.Split(target.Val, "/"), "..")):
		// cd -P resolves links before "..": link/.. is where the link
		// leads, not where its name is.
		w.Chdir("")
	default:
		p, _ := w.Resolve(*target) // "" when only known at run time
		w.Chdir(p)
	}
	k.Add(Safe, "changes directory")
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
	k.W.Chdir("")
	k.Add(Safe, "changes directory")
}

func ruleMan(k *cmd) {
	sp := k.ValueOpts
	opts, _ := sp.Scan(k.Args)
	for _, o := range opts {
		if o.Is("-P", "--pager", "-H", "--html") {
			k.Add(Moderate, "runs a pager or browser named in its options")
			if o.Has {
				k.NestedScript(o.Val, "runs a command")
			}
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "shows documentation")
	}
}
