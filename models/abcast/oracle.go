package abcast

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// Oracle is a decided-batch consensus, the abstraction of tla/abcast.qnt:
// member 0's node answers the proposal of instance i (instances numbered
// in proposal order) with CONS(i, data) to itself, and the delivery of
// that message is the decision of i. Decisions may so come out of
// instance order, as Paxos's may; every proposal is decided, with the
// value proposed (validity, agreement and termination of consensus, with
// the coordinator never crashing). The other members' nodes do nothing.
// `--consensus oracle` checks the consensus variant over it: the
// atomic broadcast above a consensus object, with Paxos checked on its own
// (models/paxos). tla/conformance drives the Go members over it too.
type Oracle struct{}

var (
	_ ab.Consensus      = Oracle{}
	_ ab.ConsensusCodec = Oracle{}
)

// OracleNode is a member's node of Oracle: Next is the next instance.
type OracleNode struct{ Next uint64 }

// Cons is Oracle's message: instance Inst decides Data.
type Cons struct {
	Inst uint64
	Data string
}

// tagCons is Cons's encoding tag, apart from abcast's (101–103).
const tagCons = 110

// oracleValue is a decided value.
type oracleValue string

type oracleLead struct{}

type oraclePropose string

func (Cons) Kind() string { return "CONS" }

// AppendBinary encodes the tag, Inst and Data.
func (m Cons) AppendBinary(b []byte) []byte {
	return core.AppendString(core.AppendUint(append(b, tagCons), m.Inst), m.Data)
}
func (m Cons) String() string { return fmt.Sprintf("CONS(%d, %s)", m.Inst, m.Data) }

func (v oracleValue) AppendBinary(b []byte) []byte   { return core.AppendString(b, string(v)) }
func (v oracleValue) String() string                 { return string(v) }
func (oracleLead) AppendBinary(b []byte) []byte      { return b }
func (oracleLead) String() string                    { return "lead" }
func (p oraclePropose) AppendBinary(b []byte) []byte { return core.AppendString(b, string(p)) }
func (p oraclePropose) String() string               { return "propose " + string(p) }

// New builds member r's node.
func (Oracle) New(int, core.Rank) (core.Machine, error) { return &OracleNode{}, nil }

// Lead is a no-op input.
func (Oracle) Lead() core.Input { return oracleLead{} }

// Propose proposes data.
func (Oracle) Propose(data string) core.Input { return oraclePropose(data) }

// Decided is the data of a decision.
func (Oracle) Decided(v core.Value) string { s, _ := v.(oracleValue); return string(s) }

// Owns reports whether m is a Cons.
func (Oracle) Owns(m core.Message) bool { _, ok := m.(Cons); return ok }

// DecodeNode reads a node written by OracleNode.AppendBinary.
func (Oracle) DecodeNode(b []byte, _ int, _ core.Rank) (core.Machine, error) {
	d := core.NewDecoder(b)
	n := &OracleNode{Next: d.Uint()}
	return n, d.Finish()
}

// DecodeMessage reads a Cons.
func (Oracle) DecodeMessage(b []byte, _ int) (core.Message, error) {
	d := core.NewDecoder(b)
	if t := d.Byte(); t != tagCons && d.Err() == nil {
		d.Fail("tag %d is not CONS", t)
	}
	m := Cons{Inst: d.Uint(), Data: d.String(1 << 20)}
	return m, d.Finish()
}

// Step: a Propose at member 0 sends Cons to itself; a Cons decides.
func (n *OracleNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		if p, ok := ev.Input.(oraclePropose); ok {
			n.Next++
			return append(out, core.Send(ab.Sequencer, Cons{Inst: n.Next - 1, Data: string(p)})), nil
		}
	case core.EvReceive:
		if c, ok := ev.Msg.(Cons); ok {
			return append(out, core.Decide(c.Inst, oracleValue(c.Data))), nil
		}
	}
	return out, nil
}

// Clone returns a copy.
func (n *OracleNode) Clone() core.Machine { c := *n; return &c }

// AppendBinary encodes Next.
func (n *OracleNode) AppendBinary(b []byte) []byte { return core.AppendUint(b, n.Next) }

func (n *OracleNode) String() string { return fmt.Sprintf("oracle next=%d", n.Next) }
