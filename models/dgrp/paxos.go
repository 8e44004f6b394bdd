package dgrp

import (
	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Paxos is statemachine/paxos as the DGRP's re-admission consensus
// (dg.Consensus), used only through that package's public API, as
// models/eventlogger does: statemachine/dgrp imports only core. The group
// is Classic Paxos over the N processes (px.Classic): every process a
// proposer, an acceptor and a learner, p0 the first coordinator.
type Paxos struct{}

var _ dg.Consensus = Paxos{}

func (Paxos) New(n int, r core.Rank) (core.Machine, error) { return px.New(r, px.Classic(n)) }
func (Paxos) Propose(data string) core.Input               { return px.Propose{Data: data} }
func (Paxos) Timer() uint64                                { return px.TimerRetransmit }

func (Paxos) Decided(v core.Value) (string, bool) {
	c, ok := v.(px.Command)
	if !ok || c.IsNoop() {
		return "", false
	}
	return c.Data, true
}

func (Paxos) Log(m core.Machine) []string {
	var out []string
	for _, c := range m.(*px.Node).Log() {
		if !c.IsNoop() {
			out = append(out, c.Data)
		}
	}
	return out
}

func (Paxos) DecodeNode(n int, r core.Rank, b []byte) (core.Machine, error) {
	return px.DecodeNode(b, r, px.Classic(n))
}

func (Paxos) DecodeMessage(n int, b []byte) (core.Message, error) { return px.DecodeMessage(b, n) }
