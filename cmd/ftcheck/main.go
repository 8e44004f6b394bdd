// Command ftcheck is the front end of the ftkernel model checker.
//
//	ftcheck list [--json]
//	ftcheck check MODEL [model flags] [--workers k] [--max-states m] [--max-depth d]
//	                    [--property NAME[,NAME]] [--mutant NAME] [--json] [--out DIR]
//	ftcheck simulate MODEL [model flags] [--walks w] [--seed s] [--json]
//	ftcheck replay TRACE.json [--json] [--html FILE] [--itf FILE] [--shrink]
//	ftcheck merge [--json] [--out DIR] FILE…   (the --result files of check or simulate --shard K/N)
//	ftcheck version
//
// Every subcommand's -h (and ftcheck -h, ftcheck help) prints its flags on
// stdout and exits 0.
//
// Exit status:
//
//	0  the run is complete and every checked property holds (replay: the
//	   trace replays and no longer violates its property)
//	1  a violation was found (check, simulate), reproduced (replay), or a
//	   mutant survived check --mutants
//	2  bad usage or input: one line on stderr says what was wrong and which
//	   -h to run; nothing was checked
//	3  incomplete: no violation found, but the run stopped before it was
//	   done (Ctrl-C, SIGTERM, --max-states, --max-depth, --max-memory), so
//	   nothing was proved
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/ftkernel/ftkernel/models/all"
)

// usageError is bad input from the user: exit status 2. help is the
// command whose -h lists the right flags ("ftcheck check era -h").
type usageError struct {
	error
	help string
}

// usagef is a usage error of the whole command (help: "ftcheck -h").
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...), "ftcheck -h"}
}

// usageFor is a usage error whose flags are listed by help.
func usageFor(help, format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...), help}
}

// errViolation means a property failed, or a mutant survived: exit
// status 1.
var errViolation = errors.New("violation")

// errIncomplete means the run stopped before it was done and found no
// violation: exit status 3.
var errIncomplete = errors.New("incomplete")

// exitCodes is the exit status paragraph of every -h.
const exitCodes = `exit status: 0 complete, every property holds; 1 violation (or a surviving mutant);
  2 bad usage or input; 3 incomplete (interrupted, or a --max-* bound reached): nothing proved`

// errHelp means -h was asked for and the help was printed: exit status 0.
var errHelp = errors.New("help printed")

const usage = `usage:
  ftcheck list [--json]                      models, their properties and mutants
  ftcheck check MODEL [flags]                exhaustive breadth-first check
  ftcheck simulate MODEL [flags]             seeded random walks at scale
  ftcheck replay TRACE.json [flags]          replay a saved counterexample (--itf, --html, --shrink)
  ftcheck run MODEL [flags]                  one OS process per rank on 127.0.0.1, --kill RANK@DURATION, --trace DIR
  ftcheck validate TRACE-DIR                 replay a run's logs against its model
  ftcheck merge FILE…                        combine the --result files of a sharded check or simulate (--shard K/N)
  ftcheck version                            module version and VCS revision
Run 'ftcheck COMMAND -h' for a command's flags, 'ftcheck check MODEL -h' for a model's.
` + exitCodes

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
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "run-node": // hidden: one rank of ftcheck run
		err = cmdRunNode(args[1:], stdout, stderr)
	case "merge":
		err = cmdMerge(args[1:], stdout, stderr)
	case "validate":
		err = cmdValidate(args[1:], stdout, stderr)
	case "version":
		err = cmdVersion(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			// ftcheck help COMMAND [MODEL] is COMMAND [MODEL] -h.
			return run(append(append([]string{}, args[1:]...), "-h"), stdout, stderr)
		}
		fmt.Fprintln(stdout, usage)
		return 0
	default:
		err = usagef("%s: unknown command", args[0])
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errViolation):
		return 1
	case errors.Is(err, errIncomplete):
		return 3
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "ftcheck %v; run '%s'\n", err, ue.help)
		return 2
	default:
		fmt.Fprintf(stderr, "ftcheck: %v\n", err)
		return 2
	}
}

// invocation is how to run this binary again, for the hints printed after
// a counterexample: "go run ./cmd/ftcheck" when arg0 (os.Args[0]) is a
// binary that go run built in its temporary directory, arg0 itself
// otherwise.
func invocation(arg0 string) string {
	dir := filepath.ToSlash(filepath.Dir(arg0))
	// go run builds into a temporary go-buildNNN/bNNN/exe directory, or
	// reuses an executable cached under GOCACHE as HH/HASH-d/NAME.
	if strings.HasSuffix(dir, "/exe") && strings.Contains(dir, "/go-build") {
		return "go run ./cmd/ftcheck"
	}
	if strings.HasSuffix(dir, "-d") && strings.HasPrefix(dir, filepath.ToSlash(goCache())+"/") {
		return "go run ./cmd/ftcheck"
	}
	return arg0
}

// goCache is the go command's build cache directory: GOCACHE, else
// go-build under the user's cache directory (what "go env GOCACHE" prints
// by default), or "" when neither is known.
func goCache() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "go-build")
	}
	return ""
}
