package abcast

import (
	"github.com/ftkernel/ftkernel/core"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Paxos is statemachine/paxos as the consensus variant's ab.Consensus,
// used only through its public API (New, Lead, Propose, Command), as any
// embedder would: statemachine/abcast cannot import it (a protocol imports
// only core). Member 0 is the one proposer (the coordinator) and the one
// learner, which tells the others the decision (DECISION); every member is
// an acceptor, so a quorum is a majority of the core.
type Paxos struct{}

var _ ab.Consensus = Paxos{}

// Config is the Paxos group of a core of n members.
func (Paxos) Config(n int) px.Config {
	c := px.Config{N: n, Proposers: []core.Rank{ab.Sequencer}, Learners: []core.Rank{ab.Sequencer}}
	for r := range core.Rank(n) {
		c.Acceptors = append(c.Acceptors, r)
	}
	return c
}

// New builds member r's Paxos node.
func (p Paxos) New(n int, r core.Rank) (core.Machine, error) { return px.New(r, p.Config(n)) }

// Lead is px.Lead.
func (Paxos) Lead() core.Input { return px.Lead{} }

// Propose is px.Propose.
func (Paxos) Propose(data string) core.Input { return px.Propose{Data: data} }

// Decided is a decided command's data, "" for the no-op.
func (Paxos) Decided(v core.Value) string {
	c, ok := v.(px.Command)
	if !ok || c.IsNoop() {
		return ""
	}
	return c.Data
}

// Owns reports whether m is a Paxos message.
func (Paxos) Owns(m core.Message) bool {
	switch m.(type) {
	case px.Request, px.Prepare, px.Promise, px.Accept, px.Accepted, px.Nack, px.Decided, px.Learned:
		return true
	}
	return false
}

// DecodeNode reads member r's Paxos node.
func (p Paxos) DecodeNode(b []byte, n int, r core.Rank) (core.Machine, error) {
	return px.DecodeNode(b, r, p.Config(n))
}

// DecodeMessage reads a Paxos message.
func (Paxos) DecodeMessage(b []byte, n int) (core.Message, error) { return px.DecodeMessage(b, n) }
