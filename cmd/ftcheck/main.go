// Command ftcheck is the front end of the ftkernel model checker.
//
//	ftcheck list [--json]
//	ftcheck check MODEL [model flags] [--workers k] [--max-states m] [--max-depth d]
//	                    [--property NAME[,NAME]] [--mutant NAME] [--json] [--out DIR]
//	ftcheck simulate MODEL [model flags] [--walks w] [--seed s] [--json]
//	ftcheck replay TRACE.json [--json]
//
// Exit status: 0 when every property holds, 1 on a violation, 2 on bad
// usage (with a message saying what was wrong).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	_ "github.com/ftkernel/ftkernel/models/all"
)

// usageError is bad input from the user: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errViolation means a property failed: exit status 1.
var errViolation = errors.New("violation")

const usage = `usage:
  ftcheck list [--json]                      models, their properties and mutants
  ftcheck check MODEL [flags]                exhaustive breadth-first check
  ftcheck simulate MODEL [flags]             seeded random walks at scale
  ftcheck replay TRACE.json                  replay a saved counterexample
Run 'ftcheck check MODEL -h' for a model's flags.`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "list":
		err = cmdList(args[1:], stdout)
	case "check":
		err = cmdCheck(args[1:], stdout, stderr)
	case "simulate":
		err = cmdSimulate(args[1:], stdout, stderr)
	case "replay":
		err = cmdReplay(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q", args[0])
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errViolation):
		return 1
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "ftcheck: %v\n%s\n", err, usage)
		return 2
	default:
		fmt.Fprintf(stderr, "ftcheck: %v\n", err)
		return 2
	}
}
