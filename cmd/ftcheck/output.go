package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// outDir is the --out directory of counterexample traces, checked before
// the search so that a violation found is never lost to a bad directory.
type outDir struct {
	path    string
	created bool // made by prepareOut: removed by done if left empty
	written bool
}

// prepareOut checks --out before a run: path must be non-empty and name a
// writable directory, which is created (with its parents) if missing. The
// error names the flag and what is wrong with it.
func prepareOut(path string) (*outDir, error) {
	if path == "" {
		return nil, errors.New(`--out "": name a directory for counterexample traces`)
	}
	o := &outDir{path: path}
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.IsDir():
		return nil, fmt.Errorf("--out %s: not a directory", path)
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("--out: %v", err)
		}
		o.created = true
	case err != nil:
		return nil, fmt.Errorf("--out: %v", err)
	}
	f, err := os.CreateTemp(path, ".ftcheck-probe-*")
	if err != nil {
		o.done()
		return nil, fmt.Errorf("--out %s: cannot write there: %v", path, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return o, nil
}

// done removes the directory if prepareOut created it and no trace was
// written to it.
func (o *outDir) done() {
	if o.created && !o.written {
		os.Remove(o.path)
	}
}

// writeTrace writes a trace's bytes to a new file at path; it fails if the
// file exists (fs.ErrExist). A variable so that tests can make it fail.
var writeTrace = func(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// save writes tr as DIR/MODEL-PROPERTY[-MUTANT]-HASH.json, HASH being
// paramsHash of the trace's parameters, so that configurations do not
// share a file. A file already there with the same bytes is reused; one
// with other bytes is kept and the trace goes to MODEL-…-HASH-2.json (-3,
// …) instead. It returns the path written.
func (o *outDir) save(model string, tr *checker.Trace) (string, error) {
	b, err := json.MarshalIndent(tr, "", "  ")
	if err != nil {
		return "", err
	}
	b = append(b, '\n')
	base := model + "-" + tr.Violation.Property
	if m := tr.Params["mutant"]; m != "" {
		base += "-" + m
	}
	base += "-" + paramsHash(tr.Params)
	for i := 1; i <= 1000; i++ {
		name := base
		if i > 1 {
			name += fmt.Sprintf("-%d", i)
		}
		path := filepath.Join(o.path, name+".json")
		err := writeTrace(path, b)
		if errors.Is(err, fs.ErrExist) {
			if old, rerr := os.ReadFile(path); rerr == nil && bytes.Equal(old, b) {
				return path, nil
			}
			continue
		}
		if err != nil {
			return "", err
		}
		o.written = true
		return path, nil
	}
	return "", fmt.Errorf("%s: 1000 files of that name with other contents", filepath.Join(o.path, base+".json"))
}

// paramsHash is the first 8 hex digits of the SHA-256 of params as sorted
// "key=value" lines: the configuration a trace belongs to.
func paramsHash(params map[string]string) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, params[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// reportViolation saves tr and, unless asJSON, prints it with the replay
// hint. If the trace cannot be written it is printed anyway (in the JSON
// reference too), with the error as a one-line warning on stderr.
func reportViolation(o *outDir, model string, tr *checker.Trace, header string, asJSON bool, stdout, stderr io.Writer) (registry.ViolationRef, error) {
	ref := registry.ViolationRef{Property: tr.Violation.Property, Steps: len(tr.Steps)}
	path, err := o.save(model, tr)
	if err != nil {
		fmt.Fprintf(stderr, "ftcheck: warning: the counterexample could not be saved (%v); it is printed %s\n",
			oneLine(err), map[bool]string{true: "in the JSON summary", false: "below"}[asJSON])
		ref.Trace = tr
	}
	ref.TraceFile = path
	if asJSON {
		return ref, nil
	}
	fmt.Fprint(stdout, header)
	if err := tr.Format(stdout); err != nil {
		return ref, err
	}
	if path != "" {
		fmt.Fprintf(stdout, "trace saved to %s (replay: %s replay %s)\n", path, invocation(os.Args[0]), path)
	}
	return ref, nil
}

// oneLine joins the lines of err's message.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// plural is "1 worker", "2 workers".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
