package correction

import (
	"context"
	"flag"
	"reflect"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
)

// §3.1: checked correction colors every live process "as long as no
// failures occur during the correction", whatever gossip left uncolored.
// Exhaustive, for fixed partner plans (the seed is an input): P=3 with
// three seeds, P=4 with seed 1 and up to two failures.
func TestCorrectedGossipExhaustiveChecked(t *testing.T) {
	for _, args := range [][]string{
		{"--P", "3", "--seed", "1", "--faults", "1"},
		{"--P", "3", "--seed", "2", "--gossip-rounds", "2", "--faults", "1"},
		{"--P", "3", "--seed", "3", "--faults", "1"},
		{"--P", "4", "--seed", "1", "--faults", "2"},
	} {
		args = append(args, "--tree", "gossip", "--correction", "checked", "--faults-before-correction")
		res := buildCorrection(t, args...).BFS(checker.Options{})
		if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
			t.Fatalf("%v: err %v complete %v violations %v", args, res.Err, res.Complete, res.Violations)
		}
		t.Logf("%v: %d states", args, res.States)
	}
}

// §3.1: with opportunistic correction "due to the probabilistic nature of
// gossip there are no absolute guarantees even in the failure-free case":
// at P=6 with seed 1 and one gossip message each, p0 → p1 → p0 colors
// only {p0, p1}, and d=1 leaves p3 and p4 uncolored without any failure.
func TestCorrectedGossipOpportunisticNoGuarantee(t *testing.T) {
	res := buildCorrection(t, "--P", "6", "--tree", "gossip", "--gossip-rounds", "1", "--seed", "1",
		"--correction", "opportunistic", "--d", "1", "--faults", "0").BFS(checker.Options{})
	if res.Err != nil || len(res.Violations) == 0 || res.Violations[0].Violation.Property != "non-faulty-liveness" {
		t.Fatalf("want a fault-free liveness violation: %v %v", res.Err, res.Violations)
	}
	if n := len(res.Violations[0].Steps); n != 20 {
		t.Fatalf("shortest counterexample %d steps, want 20", n)
	}
}

// Same seed and flags, same output; another seed, other partners.
func TestCorrectedGossipSimulateDeterministic(t *testing.T) {
	args := []string{"--P", "4096", "--tree", "gossip", "--correction", "checked", "--fault-rate", "0.02", "--runs", "3"}
	a := simCorrection(t, append(args, "--seed", "5")...)
	b := simCorrection(t, append(args, "--seed", "5")...)
	c := simCorrection(t, append(args, "--seed", "6")...)
	if !reflect.DeepEqual(a.Figures, b.Figures) || a.Text != b.Text {
		t.Fatalf("same seed, different output:\n%s\n%s", a.Text, b.Text)
	}
	if reflect.DeepEqual(a.Figures["messages"], c.Figures["messages"]) {
		t.Fatal("seeds 5 and 6 sent the same numbers of messages")
	}
	if len(a.Violations) != 0 || a.Figures["uncolored"].(Dist).Max != 0 {
		t.Fatalf("checked Corrected Gossip left processes uncolored: %v", a.Text)
	}
	if !strings.Contains(a.Model, "dissemination=gossip(T=24 rounds=24 seed=5)") {
		t.Fatalf("model %q", a.Model)
	}
	one := simCorrection(t, "--P", "4096", "--tree", "gossip", "--gossip-time", "30", "--correction", "checked", "--faults", "1-40", "--seed", "5")
	again := simCorrection(t, "--P", "4096", "--tree", "gossip", "--gossip-time", "30", "--correction", "checked", "--faults", "1-40", "--seed", "5")
	if one.Text != again.Text || one.Figures["uncolored"].(int) != 0 || one.Figures["sync_start"].(int64) != 30 {
		t.Fatalf("single run:\n%s\n%s", one.Text, again.Text)
	}
}

func TestCorrectedGossipPartners(t *testing.T) {
	a, _ := GossipPartners(50, 3, 9, 2)
	b, _ := GossipPartners(50, 3, 9, 2)
	c, _ := GossipPartners(50, 3, 9, 3)
	same := true
	for r := core.Rank(0); r < 50; r++ {
		if !reflect.DeepEqual(a.Partners(r), b.Partners(r)) {
			t.Fatal("same arguments, different plans")
		}
		same = same && reflect.DeepEqual(a.Partners(r), c.Partners(r))
		for _, q := range a.Partners(r) {
			if q == r || !q.Valid(50) {
				t.Fatalf("p%d gossips to %v", r, q)
			}
		}
	}
	if same {
		t.Fatal("runs 2 and 3 have the same plan")
	}
}

func TestCorrectedGossipFlagErrors(t *testing.T) {
	p, _ := registry.Lookup("correction")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tree", "gossip", "--start", "overlapped"}, "§3.3"},
		{[]string{"--gossip-rounds", "2"}, "need --tree gossip"},
		{[]string{"--tree", "gossip", "--gossip-time", "9"}, "no clock"},
		{[]string{"--tree", "gossip", "--gossip-rounds", "-1"}, "negative"},
		{[]string{"--tree", "gossip", "--P", "1", "--faults", "0"}, "at least 2"},
		{[]string{"--tree", "gosip"}, "or gossip"},
	} {
		if _, err := p.Build(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("check %v: %v, want %q", c.args, err, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tree", "gossip", "--table1"}, "not with --tree gossip"},
		{[]string{"--tree", "gossip", "--runs", "3", "--faults", "1"}, "Monte Carlo"},
	} {
		fs := flag.NewFlagSet("sim", flag.ContinueOnError)
		run := p.Simulate(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if _, err := run(context.Background(), func(string) {}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("simulate %v: %v, want %q", c.args, err, c.want)
		}
	}
}
