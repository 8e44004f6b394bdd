package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses args into fs for the command cmd ("check era",
// "replay"). On -h or --help it prints synopsis and fs's flags to stdout
// and returns errHelp (exit 0). A bad flag or flag value is a one-line
// usage error that names help, the -h command listing the right flags.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer, cmd, synopsis string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printFlags(fs, stdout, synopsis)
		return errHelp
	}
	help := "ftcheck " + cmd + " -h"
	if err != nil {
		return usageFor(help, "%s: %s", cmd, flagMessage(err, args))
	}
	return nil
}

// printFlags prints synopsis, the flags of fs with their defaults and the
// exit statuses.
func printFlags(fs *flag.FlagSet, w io.Writer, synopsis string) {
	fmt.Fprintf(w, "usage: %s\nflags:\n", synopsis)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprintln(w, exitCodes)
}

// flagMessage rewrites the flag package's "flag provided but not defined:
// -foo" as "unknown flag --foo", spelled as the user typed it; other flag
// errors (bad values, missing arguments) are kept.
func flagMessage(err error, args []string) string {
	const undefined = "flag provided but not defined: -"
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, undefined)
	if !ok {
		return msg
	}
	for _, a := range args {
		bare, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && bare == name {
			return "unknown flag " + strings.SplitN(a, "=", 2)[0]
		}
	}
	return "unknown flag -" + name
}
