package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/internal/cli"
	"github.com/wisp-agent/wisp/internal/provider/fake/fakescript"
	"github.com/wisp-agent/wisp/internal/sandbox"
)

// TestMain lets the scripts run the real wisp binary: testscript re-executes
// this test binary as `wisp`.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"wisp": func() {
			if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
				os.Exit(sandbox.Main(os.Args[2:]))
			}
			os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Environ()))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the built
// binary against the fake provider over HTTP, through the official SDK
// clients, with HOME and WISP_HOME in the script's own folder.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: fakescript.Setup,
		Cmds:  fakescript.Cmds(),
	})
}
