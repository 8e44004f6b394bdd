package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// cmdVersion prints the module version and VCS revision of the binary
// (runtime/debug.ReadBuildInfo).
func cmdVersion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, args, stdout, "version", "ftcheck version"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageFor("ftcheck version -h", "version: unexpected argument %q", fs.Arg(0))
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Errorf("version: the binary carries no build information")
	}
	fmt.Fprintln(stdout, versionLine(bi))
	return nil
}

// versionLine is "ftcheck MODULE VERSION, revision REV[ (modified)], TIME,
// GOVERSION": the main module's path and version ("(devel)" for a build
// from a checkout) and the vcs.revision, vcs.modified and vcs.time build
// settings ("revision unknown" when the build recorded none, as in go
// test and go run).
func versionLine(bi *debug.BuildInfo) string {
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	path, version := bi.Main.Path, bi.Main.Version
	if path == "" {
		path = bi.Path
	}
	if version == "" {
		version = "(devel)"
	}
	line := fmt.Sprintf("ftcheck %s %s", path, version)
	if rev := set["vcs.revision"]; rev != "" {
		line += ", revision " + rev
		if set["vcs.modified"] == "true" {
			line += " (modified)"
		}
		if t := set["vcs.time"]; t != "" {
			line += ", " + t
		}
	} else {
		line += ", revision unknown"
	}
	return line + ", " + bi.GoVersion
}
