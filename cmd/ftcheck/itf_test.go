package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/msc"
	"github.com/ftkernel/ftkernel/registry"
)

// exportCase is a small configuration of a registered model with a
// counterexample found in well under a second, and the variables its ITF
// export declares.
type exportCase struct {
	name, model string
	args        []string
	property    string
	vars        []string
	chart       bool
}

var exportCases = []exportCase{
	{"era", "era", []string{"--n", "3", "--crashes", "2"}, "uniform-agreement", nil, true},
	{"correction", "correction", []string{"--mutant", "uncolored-corrects"}, "", nil, true},
	{"gossipfd", "gossipfd", []string{"--mutant", "never-suspect"}, "", []string{"round", "crashed", "hb", "lastInc", "suspected", "declared", "falseSusp", "mbt::actionTaken"}, true},
	{"gossipfd-bounded", "gossipfd", []string{"--timing", "bounded", "--n", "3", "--cleanup", "1", "--ping=false"}, "", envITFVars, true},
	{"replica", "replica", []string{"--mutant", "no-backup-resend"}, "", []string{"node", "crashed", "msgs"}, true},
	{"ringfd", "ringfd", []string{"--n", "2", "--procs", "1", "--mutant", "hosted-not-reported"}, "", envITFVars, true},
	{"eventlogger", "eventlogger", []string{"--logger", "parallel", "--procs", "1", "--crashes", "0", "--loss", "2", "--mutant", "retrieve-since-one-acceptor"}, "linearizable", envITFVars, true},
	{"paxos", "paxos", []string{"--instances", "2", "--crashes", "0", "--compete", "--mutant", "accept-lower-ballot"}, "", envITFVars, true},
	{"abcast", "abcast", []string{"--variant", "bb", "--core", "3", "--messages", "1", "--crashes", "0", "--mutant", "deliver-on-payload"}, "", envITFVars, true},
	{"dgrp", "dgrp", []string{"--mutant", "no-events-broadcast"}, "", envITFVars, true},
	{"msglog", "msglog", []string{"--mutant", "gc-live-counter"}, "", envITFVars, true},
	{"twophase", "twophase", []string{"--mutant", "broken-commit"}, "", twoPhaseITFVars, false},
	{"adsd", "adsd", []string{"--n", "4", "--mutant", "diagnose-skip"}, "", textITFVars, false},
	{"hiadsd", "hiadsd", []string{"--n", "8", "--mutant", "cluster-no-xor"}, "", textITFVars, false},
	{"vcube", "vcube", []string{"--n", "4", "--mutant", "tester-own-cluster"}, "", textITFVars, false},
	{"hyperquicksort", "hyperquicksort", []string{"--mutant", "skip-store"}, "", textITFVars, false},
}

// counterexample builds c's model and returns its first counterexample.
func (c exportCase) counterexample(t *testing.T) (registry.Runner, *checker.Trace) {
	t.Helper()
	p, err := registry.Lookup(c.model)
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Build(c.args)
	if err != nil {
		t.Fatal(err)
	}
	opt := checker.Options{MaxStates: 1 << 20}
	if c.property != "" {
		opt.Properties = []string{c.property}
	}
	res := r.BFS(opt)
	if len(res.Violations) == 0 {
		t.Fatalf("%s %v: no counterexample", c.model, c.args)
	}
	return r, res.Violations[0]
}

// TestITFEveryModel: `ftcheck replay --itf` writes an ITF document for a
// counterexample of every registered model: the variables declared (those
// of the table where the export is fixed), one state per step plus the
// initial one, each with its #meta index, every declared variable in
// every state and no other, and integers as {"#bigint": "…"}.
func TestITFEveryModel(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range exportCases {
		covered[c.model] = true
	}
	for _, p := range registry.All() {
		if !covered[p.Name] {
			t.Errorf("model %s has no row in exportCases", p.Name)
		}
	}
	for _, c := range exportCases {
		t.Run(c.name, func(t *testing.T) {
			_, tr := c.counterexample(t)
			dir := t.TempDir()
			file := filepath.Join(dir, "trace.json")
			if err := tr.WriteFile(file); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "trace.itf.json")
			code, stdout, stderr := ftcheck(t, "replay", file, "--itf", out)
			if code != 1 || !strings.Contains(stdout, "ITF trace written to") {
				t.Fatalf("replay --itf: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			checkITF(t, b, c.vars, len(tr.Steps)+1)
		})
	}
}

// checkITF decodes doc as an ITF trace of states states and checks its
// shape; want, when not nil, are the variables it must declare.
func checkITF(t *testing.T, doc []byte, want []string, states int) {
	t.Helper()
	var d struct {
		Meta   map[string]any   `json:"#meta"`
		Vars   []string         `json:"vars"`
		States []map[string]any `json:"states"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if d.Meta["format"] != "ITF" || len(d.Vars) == 0 {
		t.Fatalf("#meta %v, vars %v", d.Meta, d.Vars)
	}
	if want != nil && !slices.Equal(d.Vars, want) {
		t.Errorf("vars %v, want %v", d.Vars, want)
	}
	if len(d.States) != states {
		t.Fatalf("%d states, want %d", len(d.States), states)
	}
	for i, st := range d.States {
		meta, _ := st["#meta"].(map[string]any)
		if idx, ok := meta["index"].(float64); !ok || int(idx) != i {
			t.Errorf("state %d: #meta %v", i, st["#meta"])
		}
		for _, v := range d.Vars {
			if _, ok := st[v]; !ok && !strings.HasPrefix(v, "mbt::") {
				t.Errorf("state %d lacks %s", i, v)
			}
		}
		for k, v := range st {
			if k == "#meta" {
				continue
			}
			if !slices.Contains(d.Vars, k) && !strings.HasPrefix(k, "mbt::") {
				t.Errorf("state %d: undeclared variable %s", i, k)
			}
			if path, ok := rawNumber(v); ok {
				t.Errorf("state %d: %s%s is a JSON number, not {\"#bigint\": …}", i, k, path)
			}
		}
	}
}

// rawNumber finds a JSON number in v, an ITF value, and where.
func rawNumber(v any) (string, bool) {
	switch x := v.(type) {
	case float64:
		return "", true
	case []any:
		for i, y := range x {
			if p, ok := rawNumber(y); ok {
				return "[" + strconv.Itoa(i) + "]" + p, true
			}
		}
	case map[string]any:
		for k, y := range x {
			if p, ok := rawNumber(y); ok {
				return "." + k + p, true
			}
		}
	}
	return "", false
}

// TestChartEveryModel: every registered model but twophase (one global
// state, no processes) draws its counterexample as a message sequence
// chart, gossipfd's round model included, and `ftcheck replay --html`
// writes the page.
func TestChartEveryModel(t *testing.T) {
	for _, c := range exportCases {
		t.Run(c.name, func(t *testing.T) {
			r, tr := c.counterexample(t)
			ch, ok := registry.ChartOf(r)
			if ok != c.chart {
				t.Fatalf("ChartOf: %v, want %v", ok, c.chart)
			}
			if !ok {
				return
			}
			chart, err := ch.Chart(tr)
			if err != nil {
				t.Fatal(err)
			}
			if chart.Processes < 2 || len(chart.Steps) != len(tr.Steps) || len(chart.Events) == 0 {
				t.Fatalf("chart of %d processes, %d steps, %d events", chart.Processes, len(chart.Steps), len(chart.Events))
			}
			if tr.Loop > 0 && chart.Loop != tr.Loop {
				t.Errorf("lasso of %d steps drawn with loop %d", tr.Loop, chart.Loop)
			}
			if err := msc.WriteHTML(new(strings.Builder), chart); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "trace.json")
			if err := tr.WriteFile(file); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, "chart.html")
			if code, stdout, stderr := ftcheck(t, "replay", file, "--html", page); code != 1 || !strings.Contains(stdout, "message sequence chart written") {
				t.Fatalf("replay --html: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}
