package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/internal/provider/fake/fakescript"
)

// TestMain lets the scripts run the real wisp binary: testscript re-executes
// this test binary as `wisp`.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"wisp": func() { os.Exit(run()) },
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
		// WISP_UPDATE_SCRIPTS=1 rewrites the scripts' expected files (cmp) from what ran.
		UpdateScripts: os.Getenv("WISP_UPDATE_SCRIPTS") == "1",
	})
}
