package conformance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	gm "github.com/ftkernel/ftkernel/models/gossipfd"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// GInstance is an instance module of gossipfd.qnt and the Go round model
// with the same parameters (the constants of the module).
type GInstance struct {
	Module        string // e.g. "brr4x2"
	N             int
	Variant       fd.Variant
	Cleanup       int    // T_cleanup, rounds
	Ping, Refresh bool   // ping phase; PongRefresh (else PongWithdrawOnly)
	F             int    // crash budget
	Window        int    // crashes before rounds 1..Window
	Horizon       int    // rounds run
	Detect        int    // completeness bound, rounds
	SpecMutant    string // MUTANT ("" for the protocol)
	// Random: the partner plan is gm.RandomPlan(N, PlanRounds, PlanSeed)
	// (the spec's PLAN); unused for RR, BRR, DBRR.
	PlanRounds int
	PlanSeed   uint64
	// Offsets is the out-of-phase start (Go Config.Offsets, the spec's
	// OFFSETS); nil is the synchronized start.
	Offsets []int
}

// GInstances are the instance modules of gossipfd.qnt (the protocol).
var GInstances = []GInstance{
	{Module: "brr4", N: 4, Variant: fd.BRR, Cleanup: 4, Ping: true, Refresh: true, F: 1, Window: 4, Horizon: 14, Detect: 9},
	{Module: "brr4x2", N: 4, Variant: fd.BRR, Cleanup: 4, Ping: true, Refresh: true, F: 2, Window: 4, Horizon: 14, Detect: 9},
	{Module: "brr4x2noping", N: 4, Variant: fd.BRR, Cleanup: 4, Refresh: true, F: 2, Window: 4, Horizon: 14, Detect: 9},
	{Module: "brr5", N: 5, Variant: fd.BRR, Cleanup: 6, Ping: true, Refresh: true, F: 1, Window: 6, Horizon: 20, Detect: 13},
	{Module: "dbrr4x2", N: 4, Variant: fd.DBRR, Cleanup: 6, Ping: true, Refresh: true, F: 2, Window: 8, Horizon: 24, Detect: 15},
	{Module: "dbrr5x2", N: 5, Variant: fd.DBRR, Cleanup: 9, Refresh: true, F: 2, Window: 12, Horizon: 35, Detect: 22},
	{Module: "rand4s3", N: 4, Variant: fd.Random, Cleanup: 5, Ping: true, Refresh: true, F: 1, Window: 8, Horizon: 23, Detect: 14, PlanRounds: 4, PlanSeed: 3},
	{Module: "rand4s1", N: 4, Variant: fd.Random, Cleanup: 5, Ping: true, Refresh: true, F: 1, Window: 8, Horizon: 23, Detect: 14, PlanRounds: 4, PlanSeed: 1},
	{Module: "rand5s4", N: 5, Variant: fd.Random, Cleanup: 4, Refresh: true, F: 0, Window: 6, Horizon: 18, Detect: 11, PlanRounds: 3, PlanSeed: 4},
	{Module: "brr4oop", N: 4, Variant: fd.BRR, Cleanup: 4, Ping: true, Refresh: true, F: 1, Window: 4, Horizon: 14, Detect: 9, Offsets: []int{0, 1, 0, 1}},
	{Module: "dbrr4x2oop", N: 4, Variant: fd.DBRR, Cleanup: 6, Ping: true, Refresh: true, F: 2, Window: 8, Horizon: 24, Detect: 15, Offsets: []int{0, 1, 2, 3}},
	{Module: "brr5x2oop", N: 5, Variant: fd.BRR, Cleanup: 6, Ping: true, Refresh: true, F: 2, Window: 6, Horizon: 20, Detect: 13, Offsets: []int{0, 1, 2, 0, 1}},
}

// gInstance looks up an instance by module name.
func gInstance(module string) (GInstance, bool) {
	for _, in := range GInstances {
		if in.Module == module {
			return in, true
		}
	}
	return GInstance{}, false
}

// Plan is the instance's Random partner plan, as a table: Plan()[i][s] is
// the partner of host s in its round i + 1 (the spec's PLAN); nil for the
// deterministic variants.
func (in GInstance) Plan() ([][]int, *fd.Plan, error) {
	if in.Variant != fd.Random {
		return nil, nil, nil
	}
	p, err := gm.RandomPlan(in.N, in.PlanRounds, in.PlanSeed)
	if err != nil {
		return nil, nil, err
	}
	tab := make([][]int, in.PlanRounds)
	for i := range tab {
		for s := range in.N {
			tab[i] = append(tab[i], int(p.Partner(core.Rank(s), uint64(i+1))))
		}
	}
	return tab, p, nil
}

// Model is the Go round model of the instance (a deliberately broken
// variant when mut is set).
func (in GInstance) Model(mut mutant.Name) (*gm.CheckModel, error) {
	c := fd.Config{N: in.N, Variant: in.Variant, Cleanup: uint64(in.Cleanup), Ping: in.Ping, Mutant: mut,
		Offsets: slices.Clone(in.Offsets)}
	if !in.Refresh {
		c.OnPong = fd.PongWithdrawOnly
	}
	_, plan, err := in.Plan()
	if err != nil {
		return nil, err
	}
	c.Plan = plan
	return gm.NewCheckModel(gm.CheckConfig{Node: c, Crashes: in.F, CrashWindow: in.Window, Horizon: in.Horizon, DetectBound: in.Detect})
}

// quintList writes xs as a Quint list literal, "[1, 2]".
func quintList[T any](xs []T, elem func(T) string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = elem(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// quintParams is the instance's parameter list for gossipfd.qnt, as the
// instance modules of gossipfd.qnt write it (three lines).
func (in GInstance) quintParams() (string, error) {
	tab, _, err := in.Plan()
	if err != nil {
		return "", err
	}
	num := func(x int) string { return strconv.Itoa(x) }
	plan := quintList(tab, func(row []int) string { return quintList(row, num) })
	return fmt.Sprintf("N = %d, VARIANT = %q, CLEANUP = %d, PING = %v, REFRESH = %v,\n"+
		"                  F = %d, WINDOW = %d, HORIZON = %d, DETECT = %d, MUTANT = %q,\n"+
		"                  PLAN = %s, OFFSETS = %s",
		in.N, in.Variant.String(), in.Cleanup, in.Ping, in.Refresh, in.F, in.Window, in.Horizon, in.Detect, in.SpecMutant,
		plan, quintList(in.Offsets, num)), nil
}

// quintImport imports the instance's module parameters from gossipfd.qnt
// at importPath, qualified by qual.
func (in GInstance) quintImport(importPath, qual string) (string, error) {
	params, err := in.quintParams()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("  import gossipfd(%s) as %s from %q\n", params, qual, importPath), nil
}

// gAction finds the Go action of the spec step: Crash(p) is the crash of
// p, Round the round (recognised by CheckModel.Describe, "p%d crashes" and
// "round %d:"); false if the Go model does not enable it.
func gAction(m *gm.CheckModel, s *gm.RoundState, name string, p int) (checker.Action, bool) {
	want := "round "
	if name == "Crash" {
		want = fmt.Sprintf("p%d crashes ", p)
	}
	for _, a := range m.Actions(s, nil) {
		if strings.HasPrefix(m.Describe(s, a), want) {
			return a, true
		}
	}
	return checker.Action{}, false
}

// ReplayGossipITF replays the ITF trace at path, written by `quint run
// --mbt` on module in.Module of gossipfd.qnt, on the Go machines in the
// round model of the instance (a deliberately broken variant when mut is
// set: a check that the comparison notices a wrong rule). Every spec step
// is one Go action (Crash(p): p crashes; Round: a round). After every step
// the spec's state is compared with the Go state (GState); the first
// difference is a *Divergence.
func ReplayGossipITF(path string, in GInstance, mut mutant.Name) (Stats, error) {
	st, tr, m, err := readReplayModel(path, in.Model, mut)
	if err != nil {
		return st, err
	}
	s := m.Init()[0]
	div := func(i int, diff string) error {
		x := tr.States[i]
		picks := ""
		if p, ok := pick(x, "p"); ok && x["mbt::actionTaken"] == "Crash" {
			picks = fmt.Sprintf("p=%v", p)
		}
		return &Divergence{File: path, Step: i, Action: fmt.Sprint(x["mbt::actionTaken"]), Picks: picks, Diff: diff}
	}
	compare := func(i int) error {
		got, goErr := FromRoundState(s)
		return compareSpecState(&st, i, tr.States[i], fromGossipSpec, func(spec GState) error {
			if len(spec.Nodes) != in.N {
				return fmt.Errorf("%s: %d hosts in the trace, the instance %s has N = %d", path, len(spec.Nodes), in.Module, in.N)
			}
			return nil
		}, got, goErr, div)
	}
	if err := compare(0); err != nil {
		return st, err
	}
	for i := 1; i < len(tr.States); i++ {
		name, _ := tr.States[i]["mbt::actionTaken"].(string)
		p := -1
		switch name {
		case "Crash":
			v, ok := pick(tr.States[i], "p")
			if !ok {
				return st, div(i, "Crash without a pick p")
			}
			p = asInt(v)
		case "Round":
		default:
			return st, div(i, fmt.Sprintf("unknown spec action %q", name))
		}
		a, ok := gAction(m, s, name, p)
		if !ok {
			return st, div(i, fmt.Sprintf("the Go action %s(%d) is not enabled", name, p))
		}
		if s, err = m.Apply(s, a); err != nil {
			return st, div(i, err.Error())
		}
		st.GoSteps++
		if err := compare(i); err != nil {
			return st, err
		}
	}
	return st, nil
}
