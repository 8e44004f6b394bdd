package paxos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// TestScripts runs the scenarios of testdata/*.txt: events given to the
// nodes of one Paxos group by hand, with the effects they produce
// (regenerate the expected output with go test -run TestScripts -rewrite).
// Messages sent wait in a network, in the order sent, until a deliver or
// drop command takes them. The commands:
//
//	init n=7 proposers=(0,1) acceptors=(2,3,4) learners=(5,6) [mutant=NAME]
//	                                  a fresh group (every node initial)
//	propose p=1 v=x                   p calls Propose("x")
//	lead p=1                          p calls Lead
//	deliver from=1 to=2 [kind=ACCEPT] the oldest such message arrives
//	deliver-all [from=1] [to=2]       the matching messages arrive, oldest
//	                                  first, until none is left
//	drop from=1 to=2 [kind=ACCEPT]    the oldest such message is lost
//	timer p=1                         p's retransmission timer fires
//	suspect at=1 dead=0               p "at" is told p "dead" crashed
//	crash p=0                         p crashes: its messages in flight to it are lost
//	recover p=0                       p restarts from stable storage (Recover, Restart)
//	state p=1                         p's state (Node.String)
//	flight                            the messages in flight
//
// An event prints its effects on one line ("PREPARE(b=1, from=0)→p2;
// decide 0=p1:\"x\"; return 0=p1:\"x\"; timer", "(none)" for none); a
// delivery prints "p1→p2 MSG: effects".
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var sc script
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return sc.run(t, d)
		})
	})
}

type script struct {
	cfg    Config
	nodes  []*Node
	flight []envelope
}

func (sc *script) run(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd != "init" && sc.nodes == nil {
		d.Fatalf(t, "%s before init", d.Cmd)
	}
	switch d.Cmd {
	case "init":
		var n int
		var mut string
		d.ScanArgs(t, "n", &n)
		d.MaybeScanArgs(t, "mutant", &mut)
		sc.cfg = Config{N: n, Proposers: sc.ranks(t, d, "proposers"), Acceptors: sc.ranks(t, d, "acceptors"),
			Learners: sc.ranks(t, d, "learners"), Mutant: mutant.Name(mut)}
		ns, err := NewAll(sc.cfg)
		if err != nil {
			return err.Error()
		}
		sc.nodes, sc.flight = ns, nil
		return "ok"
	case "propose":
		var v string
		d.ScanArgs(t, "v", &v)
		return sc.step(sc.rank(t, d, "p"), core.Call(Propose{Data: v}))
	case "lead":
		return sc.step(sc.rank(t, d, "p"), core.Call(Lead{}))
	case "timer":
		return sc.step(sc.rank(t, d, "p"), core.Timer(TimerRetransmit))
	case "suspect":
		return sc.step(sc.rank(t, d, "at"), core.Suspect(sc.rank(t, d, "dead")))
	case "crash":
		p := sc.rank(t, d, "p")
		sc.flight = slices.DeleteFunc(sc.flight, func(e envelope) bool { return e.to == p })
		return "ok"
	case "recover":
		p := sc.rank(t, d, "p")
		sc.nodes[p] = sc.nodes[p].Recover().(*Node)
		return sc.step(p, core.Restart())
	case "state":
		return sc.nodes[sc.rank(t, d, "p")].String()
	case "flight":
		var b strings.Builder
		for _, e := range sc.flight {
			fmt.Fprintf(&b, "%v→%v %v\n", e.from, e.to, e.m)
		}
		fmt.Fprintf(&b, "(%d in flight)", len(sc.flight))
		return b.String()
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
		var b strings.Builder
		for {
			k := sc.find(t, d)
			if k < 0 {
				break
			}
			e := sc.flight[k]
			sc.flight = slices.Delete(sc.flight, k, k+1)
			fmt.Fprintf(&b, "%v→%v %v: %s\n", e.from, e.to, e.m, sc.step(e.to, core.Receive(e.from, e.m)))
		}
		return b.String()
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
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

// step gives ev to p, keeps its messages in flight and formats its effects.
func (sc *script) step(p core.Rank, ev core.Event) string {
	effs, err := sc.nodes[p].Step(ev, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	var s []string
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			sc.flight = append(sc.flight, envelope{p, e.To, e.Msg})
			s = append(s, fmt.Sprintf("%v→%v", e.Msg, e.To))
		case core.EffDecide:
			s = append(s, fmt.Sprintf("decide %d=%v", e.Instance, e.Value))
		case core.EffReturn:
			s = append(s, fmt.Sprintf("return %d=%v", e.Instance, e.Value))
		case core.EffSetTimer:
			s = append(s, "timer")
		default:
			s = append(s, e.String())
		}
	}
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, "; ")
}

func (sc *script) rank(t *testing.T, d *datadriven.TestData, key string) core.Rank {
	var r int
	d.ScanArgs(t, key, &r)
	if !core.Rank(r).Valid(len(sc.nodes)) {
		d.Fatalf(t, "%s=%d out of range", key, r)
	}
	return core.Rank(r)
}

func (sc *script) ranks(t *testing.T, d *datadriven.TestData, key string) []core.Rank {
	a, ok := d.Arg(key)
	if !ok {
		d.Fatalf(t, "init needs %s", key)
	}
	var rs []core.Rank
	for _, v := range a.Vals {
		r, err := strconv.Atoi(v)
		if err != nil {
			d.Fatalf(t, "%s: %v", key, err)
		}
		rs = append(rs, core.Rank(r))
	}
	return rs
}
