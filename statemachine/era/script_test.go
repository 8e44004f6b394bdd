package era

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// TestPaperScripts runs the scenarios of testdata/*.txt, each a sequence of
// events given to ERA processes, with the effects and states they produce
// (regenerate the expected output with go test -run TestPaperScripts
// -rewrite). The commands:
//
//	init n=8 [topology=binary|star|string|X/Y] [node-size=S] [op=and|ulfm]
//	     [gc] [rebalance] [mutant=NAME]   a fresh communicator; processes
//	                                       start in their initial state
//	call p=1 a=0 v=0b101                  p calls Agreement(v, a)
//	call p=1 a=0 v=1 ack                  p calls AckAgree(flag=v, a) (ulfm:
//	                                      acknowledge S_p, then agree)
//	recv UP|DOWN|RESULTREQUEST from=2 to=1 a=0 [v=6]
//	                                      p "to" receives the message
//	suspect at=1 dead=0                   p "at" discovers p "dead" dead
//	state p=1 [a=0]                       p's variables for agreement a
//
// An event prints its effects on one line ("UP(a=0, v=0x1)→p1; decide
// 0=0x1; return 0=0x1", "(none)" for none), or the error. With op=ulfm a
// value is v=FLAG failed=R,R acked=R,R.
func TestPaperScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var sc script
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return sc.run(t, d)
		})
	})
}

// script is the state of one script: a communicator's nodes.
type script struct {
	cfg   Config
	nodes map[core.Rank]*Node
}

func (sc *script) run(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd != "init" && sc.nodes == nil {
		d.Fatalf(t, "%s before init", d.Cmd)
	}
	switch d.Cmd {
	case "init":
		return sc.init(t, d)
	case "call":
		p, a := sc.rank(t, d, "p"), sc.uint(t, d, "a", 0)
		if d.HasArg("ack") {
			return sc.step(p, core.Call(AckAgree{A: a, Flag: sc.uint(t, d, "v", 0)}))
		}
		return sc.step(p, core.Call(Contribute{A: a, V: sc.value(t, d)}))
	case "recv":
		from, to, a := sc.rank(t, d, "from"), sc.rank(t, d, "to"), sc.uint(t, d, "a", 0)
		var m core.Message
		switch {
		case d.HasArg("UP"):
			m = Up{A: a, V: sc.value(t, d)}
		case d.HasArg("DOWN"):
			m = Down{A: a, V: sc.value(t, d)}
		case d.HasArg("RESULTREQUEST"):
			m = ResultRequest{A: a}
		default:
			d.Fatalf(t, "recv needs UP, DOWN or RESULTREQUEST")
		}
		return sc.step(to, core.Receive(from, m))
	case "suspect":
		return sc.step(sc.rank(t, d, "at"), core.Suspect(sc.rank(t, d, "dead")))
	case "state":
		n := sc.node(sc.rank(t, d, "p"))
		a := sc.uint(t, d, "a", 0)
		var b strings.Builder
		fmt.Fprintf(&b, "status: %v\ncalled: %v\ncontributed: %v\ncurrent: %v\nresult: %v\nrequested: %v\n",
			n.Status(a), n.Called(a), n.Contributed(a), bot(n.Current(a)), bot(n.Result(a)), n.RequestedResult(a))
		fmt.Fprintf(&b, "dead: %v\nparent: %v\nchildren: %v\n", n.Dead(), n.ParentIn(a), n.ChildrenIn(a))
		return b.String()
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// init reads the configuration.
func (sc *script) init(t *testing.T, d *datadriven.TestData) string {
	topo, size, op, mut := "binary", 0, "and", ""
	var n int
	d.ScanArgs(t, "n", &n)
	d.MaybeScanArgs(t, "topology", &topo)
	d.MaybeScanArgs(t, "node-size", &size)
	d.MaybeScanArgs(t, "op", &op)
	d.MaybeScanArgs(t, "mutant", &mut)
	tree, err := ParseTree(topo, size)
	if err != nil {
		return err.Error()
	}
	sc.cfg = Config{N: n, GC: d.HasArg("gc"), Rebalance: d.HasArg("rebalance"), Mutant: mutant.Name(mut)}.WithTree(tree)
	if op == "ulfm" {
		sc.cfg.Op = ULFM
	}
	if _, err := New(0, sc.cfg); err != nil {
		return err.Error()
	}
	sc.nodes = map[core.Rank]*Node{}
	return "ok"
}

// node is process p, created in its initial state on first use.
func (sc *script) node(p core.Rank) *Node {
	if n, ok := sc.nodes[p]; ok {
		return n
	}
	n, err := New(p, sc.cfg)
	if err != nil {
		panic(err) // rank checked by rank()
	}
	sc.nodes[p] = n
	return n
}

// step gives ev to p and formats the effects.
func (sc *script) step(p core.Rank, ev core.Event) string {
	effs, err := sc.node(p).Step(ev, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	if len(effs) == 0 {
		return "(none)"
	}
	return effects(effs)
}

// rank reads a rank argument.
func (sc *script) rank(t *testing.T, d *datadriven.TestData, key string) core.Rank {
	var r int
	d.ScanArgs(t, key, &r)
	if !core.Rank(r).Valid(sc.cfg.N) {
		d.Fatalf(t, "%s=%d out of range for n=%d", key, r, sc.cfg.N)
	}
	return core.Rank(r)
}

// uint reads an unsigned argument in Go syntax (0b101, 0x5, 5), or def.
func (sc *script) uint(t *testing.T, d *datadriven.TestData, key string, def uint64) uint64 {
	arg, ok := d.Arg(key)
	if !ok {
		return def
	}
	v, err := strconv.ParseUint(arg.SingleVal(t), 0, 64)
	if err != nil {
		d.Fatalf(t, "%s: %v", key, err)
	}
	return v
}

// value reads v (and, with op=ulfm, failed and acked).
func (sc *script) value(t *testing.T, d *datadriven.TestData) Value {
	v := sc.uint(t, d, "v", 0)
	if sc.cfg.Op != ULFM {
		return Flag(v)
	}
	set := func(key string) core.RankSet {
		var s core.RankSet
		if arg, ok := d.Arg(key); ok {
			for _, x := range arg.Vals {
				r, err := strconv.Atoi(x)
				if err != nil {
					d.Fatalf(t, "%s: %v", key, err)
				}
				s.Add(core.Rank(r))
			}
		}
		return s
	}
	return NewContribution(v, set("failed"), set("acked"))
}
