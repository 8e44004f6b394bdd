package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The transcripts of the docs, and which of them this test re-runs.
//
// A transcript is a line of a fenced code block in a Markdown file of the
// module that starts with "$ ftcheck " or "$ go run ./cmd/ftcheck ",
// followed by the command's output up to the next "$ " line or the end of
// the block (an output may be cut short with "…").
//
// cheapTranscripts lists the commands (as written after "ftcheck ") that
// finish in a second or two; TestDocTranscripts finds each one in the docs
// (it fails when a listed command is in no doc, so the list follows the
// docs), runs it through run with --json --quiet --out DIR added, and
// compares the stable lines of the doc's output with the result: the
// counts line ("N distinct states, M generated, depth D, complete=B"), each
// violation ("VIOLATION of P (…) after N steps", "violated: KIND P violated
// after step N": the property and the length) and "all checked properties
// hold". Wording, seconds and rates are not compared. To cover another
// transcript, add its command here; a transcript that takes longer is
// covered by its model's TestDocsCounts row instead.
var cheapTranscripts = []string{
	// docs/era.md
	"check era --n 3 --crashes 2 --mutant no-up-to-new-parent",
	"check era --n 3 --crashes 2 --property uniform-agreement",
	// docs/correction.md
	"check correction --P 6 --correction opportunistic --d 1 --faults 2 --faults-before-correction --mutant opportunistic-left-only",
	"check correction --P 6 --tree binomial-inorder --correction checked --faults 4 --timing rounds --quiet",
	"check correction --tree gossip --P 3 --correction checked --faults 1 --faults-before-correction --quiet",
	// docs/ringfd.md
	"check ringfd --n 3 --procs 1 --crashes 1 --delta 2 --period 2 --timeout 4",
	"check ringfd --n 6 --procs 0 --crashes 1 --delta 1 --period 3 --timeout 5 --mutant forward-never --symmetry",
	// docs/gossipfd.md
	"check gossipfd --variant brr --n 4 --crashes 2 --cleanup 4 --ping=false",
	// docs/replica.md
	"check replica --program gather-diff-any-source --procs 3 --degree 2 --crashes 0 --quiet",
	// docs/msglog.md
	"check msglog --mutant gc-live-counter",
	// docs/twophase.md
	"check twophase --rm 3 --mutants --quiet",
	// docs/diagnosis.md
	"check vcube --n 8 --events 1 --property TestsPerCycle",
	"check vcube --timing bounded --n 4 --crashes 1 --mutant round-2delta",
}

type transcript struct {
	file   string
	line   int
	args   string
	output []string
}

var (
	transcriptCmd = regexp.MustCompile(`^\$ (?:go run \./cmd/ftcheck|ftcheck) (.*)$`)
	countsLine    = regexp.MustCompile(`(\d+) distinct states, (\d+) generated, depth (\d+), complete=(true|false)`)
	violationLine = regexp.MustCompile(`^(?:VIOLATION of (\S+) \(.*\) after (\d+) steps?|violated: \S+ (\S+) violated after step (\d+))`)
	holdLine      = regexp.MustCompile(`^all checked properties hold`)
	codeFence     = regexp.MustCompile("^\\s{0,3}(```+|~~~+)")
)

// docTranscripts returns every transcript of the module's Markdown files
// (hidden directories and node_modules left out).
func docTranscripts(t *testing.T) []transcript {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []transcript
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(path), ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		inFence := false
		var cur *transcript
		for i, line := range strings.Split(string(b), "\n") {
			if codeFence.MatchString(line) {
				inFence = !inFence
				cur = nil
				continue
			}
			if !inFence {
				continue
			}
			if m := transcriptCmd.FindStringSubmatch(line); m != nil {
				out = append(out, transcript{file: filepath.ToSlash(rel), line: i + 1, args: strings.Join(strings.Fields(m[1]), " ")})
				cur = &out[len(out)-1]
				continue
			}
			if strings.HasPrefix(line, "$ ") {
				cur = nil
				continue
			}
			if cur != nil {
				cur.output = append(cur.output, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type verdict struct {
	property string
	steps    int
}

// TestDocTranscripts re-runs the cheap transcripts of the docs and compares
// their stable lines (see cheapTranscripts).
func TestDocTranscripts(t *testing.T) {
	all := docTranscripts(t)
	for _, cmd := range cheapTranscripts {
		var found []transcript
		for _, tr := range all {
			if tr.args == cmd {
				found = append(found, tr)
			}
		}
		if len(found) == 0 {
			t.Errorf("%q is in no doc's transcript: update cheapTranscripts", cmd)
			continue
		}
		t.Run(cmd, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append(strings.Fields(cmd), "--json", "--quiet", "--out", t.TempDir())
			code := run(args, &out, &errb)
			var res struct {
				States      int64 `json:"states"`
				Transitions int64 `json:"transitions"`
				MaxDepth    int   `json:"max_depth"`
				Complete    bool  `json:"complete"`
				Violations  []struct {
					Property string `json:"property"`
					Steps    int    `json:"steps"`
				} `json:"violations"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("exit %d, not one JSON object (%v):\n%s\n%s", code, err, out.String(), errb.String())
			}
			got := map[verdict]bool{}
			for _, v := range res.Violations {
				got[verdict{v.Property, v.Steps}] = true
			}
			for _, tr := range found {
				where := tr.file + ":" + strconv.Itoa(tr.line)
				stable := 0
				for _, line := range tr.output {
					if m := countsLine.FindStringSubmatch(line); m != nil {
						stable++
						want := m[1] + " " + m[2] + " " + m[3] + " " + m[4]
						have := strconv.FormatInt(res.States, 10) + " " + strconv.FormatInt(res.Transitions, 10) + " " +
							strconv.Itoa(res.MaxDepth) + " " + strconv.FormatBool(res.Complete)
						if want != have {
							t.Errorf("%s: distinct, generated, depth, complete: the doc says %s, the run gives %s", where, want, have)
						}
					}
					if m := violationLine.FindStringSubmatch(line); m != nil {
						stable++
						prop, steps := m[1], m[2]
						if prop == "" {
							prop, steps = m[3], m[4]
						}
						n, _ := strconv.Atoi(steps)
						if !got[verdict{prop, n}] {
							t.Errorf("%s: the doc shows a violation of %s after %d steps; the run gives %+v (exit %d)", where, prop, n, res.Violations, code)
						}
						if code != 1 {
							t.Errorf("%s: a violation, but exit %d", where, code)
						}
					}
					if holdLine.MatchString(line) {
						stable++
						if len(res.Violations) != 0 || code != 0 {
							t.Errorf("%s: the doc says every property holds; the run gives %+v (exit %d)", where, res.Violations, code)
						}
					}
				}
				if stable == 0 {
					t.Errorf("%s: the transcript of %q shows no counts line and no verdict to compare", where, cmd)
				}
			}
		})
	}
}
