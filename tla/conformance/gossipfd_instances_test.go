package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/internal/mutant"
	gm "github.com/ftkernel/ftkernel/models/gossipfd"
)

// TestGossipfdInstancesMatch checks that the instance modules of
// gossipfd.qnt are exactly GInstances, with the same parameters: in
// particular that each Random instance's PLAN literal is the plan Go draws
// from its seed (gm.RandomPlan) and each OFFSETS the Go Offsets. It needs
// no quint.
func TestGossipfdInstancesMatch(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(tlaDir(t), "gossipfd.qnt"))
	if err != nil {
		t.Fatal(err)
	}
	mods := regexp.MustCompile(`(?m)^module (\w+) \{\n((?:.*\n)*?)\}`).FindAllStringSubmatch(string(src), -1)
	var names []string
	for _, m := range mods {
		if m[1] == "gossipfd" {
			continue
		}
		names = append(names, m[1])
		in, ok := gInstance(m[1])
		if !ok {
			t.Errorf("gossipfd.qnt's instance %s is not in GInstances", m[1])
			continue
		}
		params, err := in.quintParams()
		if err != nil {
			t.Fatal(err)
		}
		if want := "  import gossipfd(" + params + ").*\n"; m[2] != want {
			t.Errorf("instance %s: gossipfd.qnt has\n%s\nGInstances gives\n%s", m[1], m[2], want)
		}
	}
	for _, in := range GInstances {
		if !slices.Contains(names, in.Module) {
			t.Errorf("GInstances' %s is not an instance module of gossipfd.qnt", in.Module)
		}
	}
	if len(names) != len(GInstances) {
		t.Errorf("%d instance modules in gossipfd.qnt, %d GInstances", len(names), len(GInstances))
	}
}

// gVerdicts are the properties of the Go round model each instance
// violates, as ci/quint.sh expects of the spec (Inv holds where none is
// listed; the others are expected violations).
var gVerdicts = map[string][]string{
	"brr4x2":       {"no-false-suspicion"},
	"brr4x2noping": {"accuracy", "no-false-suspicion"},
	"rand4s1":      {"no-false-suspicion"},
	"brr5x2oop":    {"completeness"},
}

// TestGossipfdInstanceVerdicts runs the Go checker exhaustively on the
// round model of every instance (one search per property, no symmetry)
// and checks the verdicts ci/quint.sh and tla/README.md expect of quint.
func TestGossipfdInstanceVerdicts(t *testing.T) {
	for _, in := range GInstances {
		m, err := in.Model(mutant.None)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		states := int64(0)
		for _, p := range []string{"accuracy", "completeness", "no-false-suspicion"} {
			r := checker.Search[*gm.RoundState](m, checker.Options{Properties: []string{p}})
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if len(r.Violations) > 0 {
				got = append(got, p)
			} else if !r.Complete {
				t.Fatalf("%s: the search for %s did not complete (%v)", in.Module, p, r.Stop)
			}
			states = max(states, r.States)
		}
		slices.Sort(got)
		if want := gVerdicts[in.Module]; !slices.Equal(got, want) {
			t.Errorf("%s: the Go checker finds %v violated, want %v", in.Module, got, want)
		}
		verdict := "none violated"
		if got != nil {
			verdict = strings.Join(got, ", ") + " violated"
		}
		t.Logf("%s: %s (largest search %d states)", in.Module, verdict, states)
	}
}
