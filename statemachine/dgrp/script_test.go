package dgrp_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	mdg "github.com/ftkernel/ftkernel/models/dgrp"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// TestScripts runs the scenarios of testdata/*.txt: the thesis's figures
// and the specification's test cases, with events given to the nodes of one
// DGRP by hand (regenerate the expected output with go test -run
// TestScripts -rewrite). The re-admission consensus is statemachine/paxos
// through models/dgrp's adapter (Classic Paxos over the N processes).
// Messages sent wait in a network, in the order sent, until a deliver or
// drop command takes them. The commands:
//
//	init n=8 zeta=2 rounds=4 [lossy] [ignore-when-out] [mutant=NAME]
//	                                  a fresh group (every node initial)
//	start slow=(0>1@1, *>3@2-4)       every node gets Start: "T>P@R" is
//	                                  tester T's test of P in round R slow
//	                                  (T may be *, every tester; R a range)
//	tick [p=1]                        the test interval fires at p (at every
//	                                  node, in rank order, without p)
//	consensus-timer p=1               p's consensus timer fires
//	deliver from=1 to=2 [kind=EVENTS] the oldest such message arrives
//	deliver-all [from=1] [to=2] [kind=EVENTS]
//	                                  the matching messages arrive, oldest
//	                                  first, new ones included, until none
//	                                  is left; only notable steps print
//	drop from=1 to=2 [kind=EVENTS]    the oldest such message is lost
//	views                             every node's counters and view
//	                                  (nodes with equal ones on one line)
//	flight                            the messages in flight, by kind
//	estimator f=2.5 initial=8000      a fresh recommendation threshold
//	                                  (Estimator; times in ms)
//	observe rtt=(19.5, 20.1)          it takes these response times
//	judge rtt=62.39                   a test's verdict on one (Pass)
//
// A step prints what it changed: "view -p0 +p6", "barrier r=1
// view={…}", "readmit p6@1" (a decision applied), "propose p6@1", and its
// sends, one broadcast on one line ("EVENTS(…)→all"). deliver-all prints
// the steps that did more than acknowledge or run the consensus, then how
// many messages of each kind arrived. Equal lines print once, after the
// nodes (or deliveries) they are about.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var sc script
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return sc.run(t, d)
		})
	})
}

type envelope struct {
	from, to core.Rank
	m        core.Message
}

type script struct {
	nodes  []*dg.Node
	flight []envelope

	est     dg.Estimator // the estimator commands' own
	f, init float64      // its factor F and initial threshold
}

func (sc *script) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "estimator", "observe", "judge":
		return sc.estimator(t, d)
	}
	if d.Cmd != "init" && sc.nodes == nil {
		d.Fatalf(t, "%s before init", d.Cmd)
	}
	switch d.Cmd {
	case "init":
		var n, zeta, rounds int
		var mut string
		d.ScanArgs(t, "n", &n)
		d.ScanArgs(t, "zeta", &zeta)
		d.ScanArgs(t, "rounds", &rounds)
		d.MaybeScanArgs(t, "mutant", &mut)
		cfg := dg.Config{N: n, Zeta: zeta, Rounds: rounds, Lossy: d.HasArg("lossy"),
			IgnoreWhenOut: d.HasArg("ignore-when-out"), Consensus: mdg.Paxos{}, Mutant: mutant.Name(mut)}
		sc.nodes, sc.flight = make([]*dg.Node, n), nil
		for r := range sc.nodes {
			node, err := dg.New(core.Rank(r), cfg)
			if err != nil {
				sc.nodes = nil
				return err.Error()
			}
			sc.nodes[r] = node
		}
		return "ok"
	case "start":
		slow := sc.slow(t, d)
		var g grouped
		for r := range sc.nodes {
			g.add(sc.step(core.Rank(r), core.Call(dg.Start{Slow: slow[r]})), core.Rank(r).String())
		}
		return g.String(": ")
	case "tick":
		if d.HasArg("p") {
			return sc.step(sc.rank(t, d, "p"), core.Timer(dg.TimerTick))
		}
		var g grouped
		for r := range sc.nodes {
			g.add(sc.step(core.Rank(r), core.Timer(dg.TimerTick)), core.Rank(r).String())
		}
		return g.String(": ")
	case "consensus-timer":
		return sc.step(sc.rank(t, d, "p"), core.Timer(dg.TimerConsensus))
	case "deliver", "drop":
		k := sc.find(t, d)
		if k < 0 {
			return "no such message"
		}
		e := sc.flight[k]
		sc.flight = slices.Delete(sc.flight, k, k+1)
		if d.Cmd == "drop" {
			return fmt.Sprintf("%v→%v %v lost", e.from, e.to, e.m)
		}
		return fmt.Sprintf("%v→%v %v: %s", e.from, e.to, e.m, sc.step(e.to, core.Receive(e.from, e.m)))
	case "deliver-all":
		var g grouped
		kinds := map[string]int{}
		for {
			k := sc.find(t, d)
			if k < 0 {
				break
			}
			e := sc.flight[k]
			sc.flight = slices.Delete(sc.flight, k, k+1)
			kinds[e.m.Kind()]++
			before := len(sc.flight)
			notes, out := sc.stepNotes(e.to, core.Receive(e.from, e.m))
			if len(notes) > 0 || sentDGRP(sc.flight[before:]) {
				g.add(fmt.Sprintf("%v→\x00%v: %s", e.from, e.m, out), e.to.String())
			}
		}
		return g.String(" ") + "delivered: " + countKinds(kinds)
	case "views":
		return sc.views()
	case "flight":
		kinds := map[string]int{}
		for _, e := range sc.flight {
			kinds[e.m.Kind()]++
		}
		return fmt.Sprintf("%d in flight: %s", len(sc.flight), countKinds(kinds))
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// sentDGRP reports whether sent holds a DGRP message other than ACK (not
// the consensus's).
func sentDGRP(sent []envelope) bool {
	return slices.ContainsFunc(sent, func(e envelope) bool {
		switch e.m.(type) {
		case dg.Events, dg.Readmit, dg.Decide:
			return true
		}
		return false
	})
}

func countKinds(kinds map[string]int) string {
	if len(kinds) == 0 {
		return "none"
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %d", k, kinds[k])
	}
	return strings.Join(parts, ", ")
}

// views prints every node's counters and view, nodes with the same ones on
// one line.
func (sc *script) views() string {
	var g grouped
	for r, n := range sc.nodes {
		l := fmt.Sprintf("counters=%s view=%v", fmtCounters(n.Syndrome()), n.View())
		if b := n.LastBarrier(); b > 0 {
			v, _, _ := n.ViewAt(b)
			l += fmt.Sprintf(" barrier %d read %v", b, v)
		}
		g.add(l, core.Rank(r).String())
	}
	return g.String(": ")
}

// grouped gathers output lines, each with the names it is about, in order
// of first appearance: equal lines print once, after all their names. A
// line "prefix\x00rest" prints as prefix, names, rest.
type grouped struct {
	lines []string
	who   [][]string
}

func (g *grouped) add(line, name string) {
	if i := slices.Index(g.lines, line); i >= 0 {
		g.who[i] = append(g.who[i], name)
		return
	}
	g.lines = append(g.lines, line)
	g.who = append(g.who, []string{name})
}

// String prints each line after its names, joined by sep.
func (g *grouped) String(sep string) string {
	var b strings.Builder
	for i, l := range g.lines {
		prefix, rest, ok := strings.Cut(l, "\x00")
		if !ok {
			prefix, rest = "", l
		}
		fmt.Fprintf(&b, "%s%s%s%s\n", prefix, strings.Join(g.who[i], ","), sep, rest)
	}
	return b.String()
}

func fmtCounters(cs []uint32) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = strconv.Itoa(int(c))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// step gives ev to p, keeps its messages in flight and says what changed.
func (sc *script) step(p core.Rank, ev core.Event) string {
	_, out := sc.stepNotes(p, ev)
	return out
}

// stepNotes is step, with the changes to p's DGRP state (view, barrier,
// proposal, decision applied, error) apart from the whole line.
func (sc *script) stepNotes(p core.Rank, ev core.Event) ([]string, string) {
	n := sc.nodes[p]
	view, barrier := n.View(), n.LastBarrier()
	admitted, proposals := len(n.Admitted()), len(n.Proposals())
	effs, err := n.Step(ev, nil)
	if err != nil {
		return []string{"error"}, "error: " + err.Error()
	}
	var s []string
	if v := n.View(); !v.Equal(view) {
		s = append(s, "view"+viewDiff(view, v))
	}
	if b := n.LastBarrier(); b != barrier {
		v, _, _ := n.ViewAt(b)
		s = append(s, fmt.Sprintf("barrier r=%d view=%v", b, v))
	}
	for _, pr := range n.Proposals()[proposals:] {
		s = append(s, fmt.Sprintf("propose %v@%d", pr.K, pr.C))
	}
	for _, e := range n.Admitted()[admitted:] {
		s = append(s, fmt.Sprintf("readmit %v@%d", e.K, e.C))
	}
	notes := slices.Clone(s)
	// Sends: one line per message, its destinations together ("all" when
	// it goes to every other process).
	var msgs []string
	to := map[string][]string{}
	timer := false
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			sc.flight = append(sc.flight, envelope{p, e.To, e.Msg})
			k := e.Msg.String()
			if _, ok := to[k]; !ok {
				msgs = append(msgs, k)
			}
			to[k] = append(to[k], e.To.String())
		case core.EffSetTimer:
			timer = true
		}
	}
	for _, m := range msgs {
		dst := strings.Join(to[m], ",")
		if len(to[m]) == len(sc.nodes)-1 && len(sc.nodes) > 2 {
			dst = "all"
		}
		s = append(s, m+"→"+dst)
	}
	if timer {
		s = append(s, "timer")
	}
	if len(s) == 0 {
		return notes, "(none)"
	}
	return notes, strings.Join(s, "; ")
}

// slow reads the start command's slow=(T>P@R, …) into each tester's slow
// tests.
func (sc *script) slow(t *testing.T, d *datadriven.TestData) [][]dg.Slow {
	out := make([][]dg.Slow, len(sc.nodes))
	a, ok := d.Arg("slow")
	if !ok {
		return out
	}
	for _, v := range a.Vals {
		tp, rr, ok1 := strings.Cut(v, "@")
		ts, ps, ok2 := strings.Cut(tp, ">")
		lo, hi, rng := strings.Cut(rr, "-")
		if !rng {
			hi = lo
		}
		peer, e1 := strconv.Atoi(ps)
		r0, e2 := strconv.Atoi(lo)
		r1, e3 := strconv.Atoi(hi)
		if !ok1 || !ok2 || e1 != nil || e2 != nil || e3 != nil || !core.Rank(peer).Valid(len(sc.nodes)) {
			d.Fatalf(t, "slow test %q: want T>P@R or T>P@R0-R1", v)
		}
		testers := []int{}
		if ts == "*" {
			for i := range sc.nodes {
				if i != peer {
					testers = append(testers, i)
				}
			}
		} else {
			i, err := strconv.Atoi(ts)
			if err != nil || !core.Rank(i).Valid(len(sc.nodes)) {
				d.Fatalf(t, "slow test %q: bad tester", v)
			}
			testers = append(testers, i)
		}
		for _, i := range testers {
			for r := r0; r <= r1; r++ {
				out[i] = append(out[i], dg.Slow{Round: uint32(r), Peer: core.Rank(peer)})
			}
		}
	}
	return out
}

// find is the index of the oldest message in flight matching the from, to
// and kind arguments that are given; -1 if none.
func (sc *script) find(t *testing.T, d *datadriven.TestData) int {
	return slices.IndexFunc(sc.flight, func(e envelope) bool {
		if a, ok := d.Arg("from"); ok && a.SingleVal(t) != strconv.Itoa(int(e.from)) {
			return false
		}
		if a, ok := d.Arg("to"); ok && a.SingleVal(t) != strconv.Itoa(int(e.to)) {
			return false
		}
		if a, ok := d.Arg("kind"); ok && a.SingleVal(t) != e.m.Kind() {
			return false
		}
		return true
	})
}

func (sc *script) rank(t *testing.T, d *datadriven.TestData, key string) core.Rank {
	var r int
	d.ScanArgs(t, key, &r)
	if !core.Rank(r).Valid(len(sc.nodes)) {
		d.Fatalf(t, "%s=%d out of range", key, r)
	}
	return core.Rank(r)
}

// viewDiff is " -p2 +p6": the ranks that left and joined a view.
func viewDiff(before, after core.RankSet) string {
	var s string
	before.Each(func(r core.Rank) {
		if !after.Has(r) {
			s += " -" + r.String()
		}
	})
	after.Each(func(r core.Rank) {
		if !before.Has(r) {
			s += " +" + r.String()
		}
	})
	return s
}

// estimator runs the estimator, observe and judge commands.
func (sc *script) estimator(t *testing.T, d *datadriven.TestData) string {
	state := func() string {
		return fmt.Sprintf("SRTT=%.2f RTTVAR=%.2f RTO=%.2f threshold=%.2f", sc.est.SRTT, sc.est.RTTVar, sc.est.RTO(), sc.est.Threshold(sc.f, sc.init))
	}
	switch d.Cmd {
	case "estimator":
		d.ScanArgs(t, "f", &sc.f)
		d.ScanArgs(t, "initial", &sc.init)
		sc.est = dg.Estimator{}
		return fmt.Sprintf("threshold=%.2f", sc.est.Threshold(sc.f, sc.init))
	case "observe":
		var b strings.Builder
		a, _ := d.Arg("rtt")
		for _, v := range a.Vals {
			r, err := strconv.ParseFloat(v, 64)
			if err != nil {
				d.Fatalf(t, "rtt %q: %v", v, err)
			}
			sc.est.Observe(r)
			fmt.Fprintf(&b, "rtt=%s: %s\n", v, state())
		}
		return b.String()
	}
	var r float64
	d.ScanArgs(t, "rtt", &r)
	th := sc.est.Threshold(sc.f, sc.init)
	verdict := "recommended"
	if !sc.est.Pass(r, sc.f, sc.init) {
		verdict = "non-recommended"
	}
	return fmt.Sprintf("rtt=%.2f threshold=%.2f: %s; then %s", r, th, verdict, state())
}
