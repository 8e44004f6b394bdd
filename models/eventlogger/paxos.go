package eventlogger

import (
	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Paxos is statemachine/paxos as the logger's el.Consensus, used only
// through that package's public API (New, Propose, Lead, Log, Votes,
// Coordinating), as any embedder would. statemachine/eventlogger cannot
// import it (statemachine/deps_test.go: a protocol imports only core), so
// the composition is made here, where the logger's nodes are built.
type Paxos struct {
	// Retransmit is the groups' Config.Retransmit (0: the default).
	Retransmit uint64
}

var _ el.Consensus = Paxos{}

// New builds local rank r of group g.
func (p Paxos) New(g el.Group, r core.Rank) (core.Machine, error) {
	return px.New(r, px.Config{N: len(g.Global), Proposers: g.Proposers, Acceptors: g.Acceptors,
		Learners: g.Learners, Retransmit: p.Retransmit})
}

func (Paxos) Propose(data string) core.Input { return px.Propose{Data: data} }
func (Paxos) Lead() core.Input               { return px.Lead{} }
func (Paxos) Timer() uint64                  { return px.TimerRetransmit }

func (Paxos) Command(v core.Value) (string, bool) {
	c, ok := v.(px.Command)
	if !ok || c.IsNoop() {
		return "", false
	}
	return c.Data, true
}

func (Paxos) Log(m core.Machine) []el.Decision {
	var out []el.Decision
	for _, c := range m.(*px.Node).Log() {
		out = append(out, el.Decision{Data: c.Data, Cmd: !c.IsNoop()})
	}
	return out
}

func (Paxos) Votes(m core.Machine) []el.Vote {
	var out []el.Vote
	for _, v := range m.(*px.Node).Votes() {
		out = append(out, el.Vote{Inst: v.Inst, Ballot: uint64(v.B), Data: v.V.Data, Cmd: !v.V.IsNoop()})
	}
	return out
}

// Coordinating reports whether m coordinates its group.
func (Paxos) Coordinating(m core.Machine) bool {
	_, ok := m.(*px.Node).Coordinating()
	return ok
}

func (p Paxos) config(g el.Group) px.Config {
	return px.Config{N: len(g.Global), Proposers: g.Proposers, Acceptors: g.Acceptors, Learners: g.Learners, Retransmit: p.Retransmit}
}

func (p Paxos) DecodeNode(g el.Group, r core.Rank, b []byte) (core.Machine, error) {
	return px.DecodeNode(b, r, p.config(g))
}

func (Paxos) DecodeMessage(g el.Group, b []byte) (core.Message, error) {
	return px.DecodeMessage(b, len(g.Global))
}
