package programs

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// Git. Most verbs only read; some write the repository (moderate, undone
// through git itself); a few destroy work that git cannot give back, or
// rewrite what others share (dangerous). Options can make even a reading
// verb write a file (--output) or run a program (-c core.pager=...).

// gitKey judges one -c KEY=VALUE.
func (k *cmd) gitKey(kv judge.Arg, how string) {
	if !kv.Known {
		k.Add(Dangerous, how+" sets configuration only known at run time: "+kv.Text)
		return
	}
	key, val, _ := strings.Cut(kv.Val, "=")
	key = strings.ToLower(key)
	if strings.HasPrefix(key, "pager.") || key == "core.pager" {
		switch strings.TrimSpace(val) {
		case "", "false", "true", "cat", "less", "less -r", "less -fr", "less -frx", "more":
			return
		}
	}
	// Which keys show and which run is data: rules/gitkeys.rules.
	switch rules.DefaultGitKeys().Judge(key) {
	case rules.GitKeyShows:
		return
	case rules.GitKeyRuns:
		k.Add(Dangerous, how+" sets "+key+", which can make git run programs or send data")
		return
	}
	k.Add(Moderate, how+" sets "+key+", which changes how git behaves")
}

// gitPlace is where git's global options point it: the repository
// directory when known, and the option that moved it elsewhere as given.
type gitPlace struct {
	dir       string
	dirKnown  bool
	elsewhere string // -C, --git-dir, --work-tree or --bare, as given
}

func ruleGit(k *cmd) {
	args := k.Args
	place := gitPlace{dir: k.W.Cwd(), dirKnown: k.W.Cwd() != ""}
	i, done := k.gitGlobals(args, &place)
	if done {
		return
	}
	if i >= len(args) {
		if len(k.R.Reasons) == 0 {
			k.Add(Safe, "prints help")
		}
		return
	}
	// Another repository or work tree brings its own configuration, which
	// may have been written by a command here and can make even a reading
	// verb run programs (core.fsmonitor, hooks, textconv), as GIT_DIR does.
	defer func() {
		if place.elsewhere != "" {
			k.Add(Moderate, "works on another repository or work tree ("+place.elsewhere+"), whose configuration can make git run programs")
		}
	}()
	verb := args[i].Val
	rest := args[i+1:]
	k.R.Verb = verb
	if k.Verbs.NetworkVerbs[verb] {
		k.R.Flags.Net = true
	}
	outside := false
	if !place.dirKnown {
		outside = true
	} else if pl, _ := k.W.Where(judge.LiteralArg(place.dir)); pl != judge.PlaceWorkspace && pl != judge.PlaceTemp {
		outside = true
	}
	k.gitVerb(verb, rest)
	if outside && k.R.Level == Moderate {
		k.Add(Dangerous, "changes a repository outside the workspace")
	}
}

// gitGlobals judges git's options before the verb and returns the verb's
// index; done says the options alone settled the verdict.
func (k *cmd) gitGlobals(args []judge.Arg, place *gitPlace) (i int, done bool) {
	for ; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			k.Add(Dangerous, "a git option or verb is only known at run time: "+a.Text)
			return i, true
		}
		v := a.Val
		next := func() judge.Arg {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return judge.Arg{}
		}
		switch {
		case v == "-c":
			k.gitKey(next(), "git -c")
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			k.gitKey(judge.LiteralArg(v[2:]), "git -c")
		case v == "--config-env" || strings.HasPrefix(v, "--config-env="):
			k.Add(Dangerous, "--config-env sets configuration from the environment")
			if v == "--config-env" {
				next()
			}
		case v == "--exec-path" || strings.HasPrefix(v, "--exec-path="):
			if strings.HasPrefix(v, "--exec-path=") {
				k.Add(Dangerous, "--exec-path makes git run its commands from another directory")
			} else if i == len(args)-1 {
				k.Add(Safe, "prints git's exec path")
				return i, true
			}
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || strings.HasPrefix(v, "--git-dir=") || strings.HasPrefix(v, "--work-tree="):
			k.gitDirOption(v, next, place)
		case v == "--bare":
			place.elsewhere = v
		case v == "--namespace" || v == "--super-prefix" || v == "--list-cmds" || v == "--attr-source":
			next()
		case v == "--version" || v == "--help" || v == "-h" || v == "--html-path" || v == "--man-path" || v == "--info-path":
			k.Add(Safe, "prints git information")
			return i, true
		case strings.HasPrefix(v, "-"):
		default:
			return i, false
		}
	}
	return i, false
}

// gitDirOption follows -C, --git-dir or --work-tree (v), taking its value
// from v or from next.
func (k *cmd) gitDirOption(v string, next func() judge.Arg, place *gitPlace) {
	var d judge.Arg
	shown := v
	if _, val, ok := strings.Cut(v, "="); ok {
		d = judge.LiteralArg(val)
	} else {
		d = next()
		shown = v + " " + d.Text
	}
	p, ok := k.W.Resolve(d)
	if !ok {
		place.elsewhere = shown
		place.dirKnown = false
		return
	}
	if !(v == "-C" && p == k.W.Cwd() || strings.HasPrefix(v, "--git-dir") && p == k.W.Cwd()+"/.git" ||
		strings.HasPrefix(v, "--work-tree") && p == k.W.Cwd()) {
		place.elsewhere = shown
	}
	place.dir = p
}

// gitArgs are a git verb's arguments as the verb's judgements read them.
type gitArgs struct {
	verb  string
	rest  []judge.Arg    // everything after the verb
	opts  []judge.Option // its options, with their values
	ops   []judge.Arg    // its operands
	first string         // the first operand when it is known: a sub-verb (stash drop)
}

func (g gitArgs) has(names ...string) bool { return judge.HasOpt(g.opts, names...) }

// gitVerb judges a git verb and its arguments: first the options that
// write or run whatever the verb, then the verbs that only read, then
// the ones that change something. Verbs whose outcome the options do not
// change are in commands.rules (moderate and dangerous lines under git).
func (k *cmd) gitVerb(verb string, rest []judge.Arg) {
	opts, ops := k.ValueOpts.Scan(rest)
	g := gitArgs{verb: verb, rest: rest, opts: opts, ops: ops}
	if len(ops) > 0 && ops[0].Known {
		g.first = ops[0].Val
	}
	unknown, bad := judge.UnknownArgs(rest)
	k.gitAnyVerbOptions(g)
	if k.gitReads(g, unknown, bad) {
		return
	}
	if bad && verb != "commit" {
		k.Add(Moderate, "an argument is only known at run time: "+unknown.Text)
	}
	if k.gitRefsVerb(g) || k.gitTreeVerb(g) || k.gitOtherVerb(g) {
		return
	}
	switch {
	case k.Verbs.Dangerous[verb] != "":
		k.Add(Dangerous, k.Verbs.Dangerous[verb])
	case k.Verbs.Moderate[verb] != "":
		k.Add(Moderate, k.Verbs.Moderate[verb])
	default:
		k.Add(Moderate, "not a known git verb (it may be an alias)")
	}
}

// gitAnyVerbOptions judges the options that write files or run programs,
// whatever the verb.
func (k *cmd) gitAnyVerbOptions(g gitArgs) {
	verb := g.verb
	for _, o := range g.opts {
		switch {
		case o.Is("--output") && verb != "grep":
			k.Write(o.Val)
		case o.Is("--ext-diff"):
			k.Add(Moderate, "--ext-diff runs the external diff program configured")
		case len(o.Name) > len("--text") && strings.HasPrefix("--textconv", o.Name), o.Name == "--filters":
			k.Add(Moderate, o.Name+" runs the conversion programs configured for the files (textconv, filters)")
		case o.Is("--upload-pack", "--receive-pack") || (o.Name == "-u" && (verb == "clone" || verb == "ls-remote" || verb == "fetch")):
			k.Add(Dangerous, "runs a program named in its options on the remote side")
		case o.Is("--exec") && verb != "rebase":
			k.Add(Dangerous, "runs a program named in its options")
		case o.Is("--template"):
			k.Add(Dangerous, "installs hooks from a template directory")
		case o.Is("--config") || o.Name == "-c" && (verb == "clone" || verb == "submodule"):
			k.gitKey(o.Val, "git "+verb+" --config")
		}
	}
}

// gitReads judges the verbs that only read (and grep's pager, reflog's
// and fsck's writing forms), and reports whether it has judged the verb.
func (k *cmd) gitReads(g gitArgs, unknown judge.Arg, bad bool) bool {
	switch g.verb {
	case "grep":
		if bad {
			k.Add(Dangerous, "an argument only known at run time could be -O, which runs a program: "+unknown.Text)
			return true
		}
		for _, o := range g.opts {
			if o.Is("-O", "--open-files-in-pager") {
				if o.Has && o.Val.Val != "" {
					k.Add(Dangerous, "opens matches with a program named in its options")
				} else {
					k.Add(Moderate, "opens matches in the pager")
				}
			}
		}
	case "reflog":
		if len(g.ops) > 0 && g.ops[0].Known && (g.ops[0].Val == "expire" || g.ops[0].Val == "delete") {
			k.Add(Dangerous, "erases reflog entries, the record that recovers lost commits")
			return true
		}
	case "fsck":
		if g.has("--lost-found") {
			k.Add(Moderate, "writes dangling objects into .git")
		}
	}
	if k.Verbs.Safe[g.verb] == "" && g.verb != "reflog" {
		return false
	}
	if bad {
		k.Add(Moderate, "an argument only known at run time could be an option that writes: "+unknown.Text)
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "reads the repository")
	}
	return true
}

// gitRefsVerb judges the verbs that list or change references, remotes,
// configuration and the repository's side lists (stashes, worktrees,
// notes, submodules, bisection), and reports whether it knew the verb.
func (k *cmd) gitRefsVerb(g gitArgs) bool {
	switch g.verb {
	case "branch":
		k.gitBranch(g)
	case "tag":
		switch {
		case g.has("-d", "--delete"):
			k.Add(Moderate, "deletes a tag")
		case len(g.ops) > 0 && !g.has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "-n", "--verify", "-v"):
			k.Add(Moderate, "creates a tag")
		default:
			k.Add(Safe, "lists tags")
		}
	case "remote":
		switch g.first {
		case "", "show", "get-url":
			if g.first == "show" && !g.has("-n") {
				k.Add(Moderate, "reaches the network")
				k.R.Flags.Net = true
				return true
			}
			k.R.Flags.Net = false
			k.Add(Safe, "lists remotes")
		default:
			k.R.Flags.Net = false
			k.Add(Moderate, "changes remotes")
		}
	case "config":
		// -f is --file here, not --force.
		k.gitConfig(gitConfigSpec.Scan(g.rest))
	case "stash":
		switch g.first {
		case "list", "show":
			k.Add(Safe, "lists stashes")
		case "drop", "clear":
			k.Add(Dangerous, "discards stashed changes for good")
		default:
			k.Add(Moderate, "stashes or restores uncommitted changes")
		}
	case "notes":
		if g.first == "" || g.first == "list" || g.first == "show" || g.first == "get-ref" {
			k.Add(Safe, "reads notes")
			return true
		}
		k.Add(Moderate, "changes notes")
	default:
		return k.gitSideVerb(g)
	}
	return true
}

func (k *cmd) gitBranch(g gitArgs) {
	switch {
	case g.has("-D") || g.has("-d", "--delete") && g.has("-f", "--force"):
		k.Add(Moderate, "deletes a branch (its commits stay in the reflog)")
	case g.has("-d", "--delete", "-m", "--move", "-M", "-c", "--copy", "-C", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-f", "--force", "-t", "--track"):
		k.Add(Moderate, "changes branches")
	case len(g.ops) > 0 && !g.has("-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"):
		k.Add(Moderate, "creates a branch")
	default:
		k.Add(Safe, "lists branches")
	}
}

// gitSideVerb judges worktree, submodule and bisect, which take a
// sub-verb and may run commands, and reports whether it knew the verb.
func (k *cmd) gitSideVerb(g gitArgs) bool {
	switch g.verb {
	case "worktree":
		switch g.first {
		case "list":
			k.Add(Safe, "lists worktrees")
		case "add":
			if len(g.ops) > 1 {
				k.Write(g.ops[1])
			}
			k.Add(Moderate, "adds a worktree")
		case "remove":
			if g.has("-f", "--force") {
				k.Add(Dangerous, "removes a worktree with uncommitted changes")
				return true
			}
			k.Add(Moderate, "removes a worktree")
		default:
			k.Add(Moderate, "changes worktrees")
		}
	case "submodule":
		switch g.first {
		case "", "status", "summary":
			k.R.Flags.Net = false
			k.Add(Safe, "lists submodules")
		case "foreach":
			k.Add(Moderate, "runs a command in every submodule")
			if len(g.ops) > 1 {
				k.NestedScript(judge.LiteralArg(judge.Normalise(g.ops[1:])), "runs a script")
				for _, o := range g.ops[1:] {
					if !o.Known {
						k.Add(Dangerous, "runs a script only known at run time: "+o.Text)
					}
				}
			}
		default:
			k.Add(Moderate, "changes submodules")
		}
	case "bisect":
		switch g.first {
		case "log", "view", "visualize", "terms":
			k.Add(Safe, "shows the bisection")
		case "run":
			k.Add(Moderate, "runs a command at every step")
			k.NestedArgv(g.ops[1:])
		default:
			k.Add(Moderate, "moves through history")
		}
	default:
		return false
	}
	return true
}

// gitTreeVerb judges the verbs that write files or overwrite the work
// tree, and reports whether it knew the verb.
func (k *cmd) gitTreeVerb(g gitArgs) bool {
	switch g.verb {
	case "apply":
		if g.has("--check", "--stat", "--numstat", "--summary") && !g.has("--apply") {
			k.Add(Safe, "checks a patch")
			return true
		}
		if g.has("--unsafe-paths") {
			k.Add(Dangerous, "applies a patch outside the work tree")
		}
		if v, ok := judge.OptVal(g.opts, "--directory"); ok {
			k.Write(v)
		}
		k.Add(Moderate, "applies a patch")
	case "format-patch":
		if g.has("--stdout") {
			k.Add(Safe, "prints patches")
			return true
		}
		if v, ok := judge.OptVal(g.opts, "-o", "--output-directory"); ok {
			k.Write(v)
		}
		k.Add(Moderate, "writes patch files")
	case "archive":
		k.gitArchive(g)
	case "bundle":
		if g.first == "verify" || g.first == "list-heads" {
			k.Add(Safe, "reads a bundle")
			return true
		}
		if g.first == "create" && len(g.ops) > 1 {
			k.Write(g.ops[1])
		}
		k.Add(Moderate, "writes a bundle")
	case "clean":
		k.gitClean(g)
	case "checkout":
		switch {
		case g.has("-f", "--force") || hasDashDash(g.rest) || g.first == "." || g.has("--ours", "--theirs", "-p", "--patch") || len(g.ops) > 1:
			k.Add(Dangerous, "overwrites uncommitted changes in the work tree for good")
		default:
			k.Add(Moderate, "switches branches or restores files")
		}
	case "restore":
		if (g.has("-S", "--staged") && !g.has("-W", "--worktree")) || g.has("--dry-run") {
			k.Add(Moderate, "unstages changes")
			return true
		}
		k.Add(Dangerous, "overwrites uncommitted changes in the work tree for good")
	case "clone":
		if len(g.ops) > 1 {
			k.Write(g.ops[1])
		}
		k.Add(Moderate, "downloads a repository")
	case "init":
		if len(g.ops) > 0 {
			k.Write(g.ops[0])
		}
		k.Add(Moderate, "creates a repository")
	default:
		return false
	}
	return true
}

func (k *cmd) gitArchive(g gitArgs) {
	if g.has("--list", "-l") {
		k.Add(Safe, "lists archive formats")
		return
	}
	if v, ok := judge.OptVal(g.opts, "-o", "--output"); ok {
		k.Write(v)
	}
	if g.has("--remote") {
		k.Add(Moderate, "reaches the network")
		return
	}
	k.R.Flags.Net = false
	if !g.has("-o", "--output") && len(k.R.Reasons) == 0 {
		k.Add(Safe, "writes an archive to standard output")
	}
}

func (k *cmd) gitClean(g gitArgs) {
	if g.has("-n", "--dry-run") && !g.has("-f", "--force") {
		k.Add(Safe, "lists untracked files")
		return
	}
	if g.has("-i", "--interactive") && !g.has("-f", "--force") {
		k.Add(Moderate, "deletes untracked files it asks about")
		return
	}
	k.Add(Dangerous, "deletes untracked files for good")
}

// gitOtherVerb judges the remaining verbs whose options change the
// outcome: pushing, rebasing, resetting, and the ones that run tools.
func (k *cmd) gitOtherVerb(g gitArgs) bool {
	switch g.verb {
	case "push":
		k.gitPush(g.opts, g.ops)
	case "rebase":
		if v, ok := judge.OptVal(g.opts, "-x", "--exec"); ok {
			k.Add(Moderate, "runs a command after every commit")
			k.NestedScript(v, "runs a script")
		}
		k.Add(Moderate, "rewrites local commits")
	case "difftool", "mergetool":
		if v, ok := judge.OptVal(g.opts, "-x", "--extcmd"); ok {
			k.NestedScript(v, "runs a script")
		}
		k.Add(Moderate, "runs a diff or merge tool")
	case "gc":
		if v, ok := judge.OptVal(g.opts, "--prune"); ok && v.Val == "now" {
			k.Add(Dangerous, "deletes unreachable objects for good")
			return true
		}
		k.Add(Moderate, "compacts the repository")
	case "hash-object":
		if g.has("-w") {
			k.Add(Moderate, "writes objects into the repository")
			return true
		}
		k.Add(Safe, "hashes files")
	case "symbolic-ref":
		if len(g.ops) <= 1 && !g.has("-d", "--delete") {
			k.Add(Safe, "reads a reference")
			return true
		}
		k.Add(Moderate, "changes a reference")
	default:
		return k.gitOptionVerb(g)
	}
	return true
}

// gitOptionVerb judges the verbs that an option makes worse, as
// commands.rules lists them ("when VERB LEVEL OPTION... : why"), and
// reports whether one of those options was given; without them the verb
// has its moderate or dangerous line.
func (k *cmd) gitOptionVerb(g gitArgs) bool {
	for _, w := range k.Verbs.When[g.verb] {
		if g.has(w.Options...) {
			k.Add(levelNamed(w.Level), w.Why)
			return true
		}
	}
	return false
}

func hasDashDash(args []judge.Arg) bool {
	for _, a := range args {
		if a.Known && a.Val == "--" {
			return true
		}
	}
	return false
}

func (k *cmd) gitPush(opts []judge.Option, ops []judge.Arg) {
	switch {
	case judge.HasOpt(opts, "-f", "--force", "--force-with-lease", "--force-if-includes"):
		k.Add(Dangerous, "force-pushes, rewriting shared history")
		return
	case judge.HasOpt(opts, "--mirror", "--prune"):
		k.Add(Dangerous, "pushes deletions of remote branches")
		return
	case judge.HasOpt(opts, "-d", "--delete"):
		k.Add(Dangerous, "deletes remote branches")
		return
	}
	for i, o := range ops {
		if i == 0 {
			continue // the remote
		}
		if !o.Known {
			k.Add(Dangerous, "pushes a refspec only known at run time: "+o.Text)
			return
		}
		if strings.HasPrefix(o.Val, "+") {
			k.Add(Dangerous, "force-pushes a refspec, rewriting shared history")
			return
		}
		if strings.HasPrefix(o.Val, ":") {
			k.Add(Dangerous, "deletes a remote branch")
			return
		}
	}
	k.Add(Moderate, "publishes commits to a remote")
}

// gitConfigSpec are git config's options that take a value.
var gitConfigSpec = judge.Spec{ShortVal: "f", LongVal: []string{"file", "blob", "type", "default", "comment", "value", "url"}}

func (k *cmd) gitConfig(opts []judge.Option, ops []judge.Arg) {
	has := func(names ...string) bool { return judge.HasOpt(opts, names...) }
	switch {
	case has("-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--show-origin", "--show-scope"):
		k.Add(Safe, "reads configuration")
		return
	case len(ops) > 0 && ops[0].Known && (ops[0].Val == "list" || ops[0].Val == "get"):
		k.Add(Safe, "reads configuration")
		return
	case has("-e", "--edit") || len(ops) > 0 && ops[0].Known && ops[0].Val == "edit":
		if v, ok := judge.OptVal(opts, "-f", "--file"); ok {
			k.Write(v)
		}
		k.Add(Moderate, "opens the configuration in an editor")
		return
	}
	scope := "the repository's"
	if has("--global", "--system") {
		scope = "your global"
	}
	verb := ""
	if len(ops) > 0 && ops[0].Known && (ops[0].Val == "set" || ops[0].Val == "unset") {
		verb = ops[0].Val
		ops = ops[1:]
	}
	if len(ops) == 1 && verb == "" && !has("--unset", "--unset-all", "--remove-section", "--rename-section", "--add", "--replace-all") {
		k.Add(Safe, "reads configuration")
		return
	}
	what := "changes " + scope + " git configuration"
	if v, ok := judge.OptVal(opts, "-f", "--file"); ok {
		k.Write(v)
		what = "changes the git configuration file " + v.Text
	}
	if len(ops) >= 2 {
		if !ops[0].Known || !ops[1].Known {
			k.Add(Dangerous, "sets configuration only known at run time")
			return
		}
		k.gitKey(judge.LiteralArg(ops[0].Val+"="+ops[1].Val), "git config")
	}
	k.Add(Moderate, what)
}
