package gossipfd

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/msc"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

var (
	_ registry.ModelCharter = (*CheckModel)(nil)
	_ registry.ModelCharter = noSymmetry{}
)

// Chart draws tr, a trace of the round model, as a message sequence chart
// (ftcheck replay --html): a row per crash or round; a round's messages
// (gossip, PING, PONG, in the order the round takes them) drawn within its
// row, one to a crashed host as a stub; a crash as a cross, each new
// declaration as a detection and each new suspicion as a note; each host's
// state after every step.
func (m *CheckModel) Chart(tr *checker.Trace) (msc.Chart, error) {
	states, err := checker.Replay[*RoundState](m, tr)
	if len(states) == 0 {
		return msc.Chart{}, fmt.Errorf("replay: %w", err)
	}
	n := m.node.N
	c := msc.Chart{Title: m.Name(), Processes: n}
	if tr.Violation != nil {
		c.Violation = tr.Violation.String()
	}
	if tr.Loop > 0 && len(states) == len(tr.Steps)+1 {
		c.Loop = tr.Loop
	}
	c.States = append(c.States, hostStates(states[0]))
	id := 1
	for k := 1; k < len(states) && k <= len(tr.Steps); k++ {
		prev, next := states[k-1], states[k]
		c.Steps = append(c.Steps, tr.Steps[k-1].Text)
		if next.G == prev.G {
			for h := range n {
				if next.Crashed[h] != 0 && prev.Crashed[h] == 0 {
					c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Crash, P: h})
				}
			}
		} else {
			nodes := make([]*fd.Node, n)
			for h, nd := range prev.Nodes {
				nodes[h] = nd.Clone().(*fd.Node)
			}
			live := func(h core.Rank) bool { return prev.Crashed[h] == 0 }
			err := runRound(nodes, live, nil, func(from, to core.Rank, msg core.Message) {
				c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Send, P: int(from), Q: int(to), MsgID: id, Label: msg.String()})
				if live(to) {
					c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Recv, P: int(to), Q: int(from), MsgID: id})
				}
				id++
			})
			if err != nil {
				return msc.Chart{}, fmt.Errorf("step %d: %w", k, err)
			}
		}
		for h := range n {
			if next.Crashed[h] != 0 {
				continue
			}
			was, now := prev.Nodes[h], next.Nodes[h]
			now.Declared().Each(func(x core.Rank) {
				if !was.Declared().Has(x) {
					c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Detect, P: h, Q: int(x), Label: fmt.Sprintf("declares p%d", x)})
				}
			})
			now.Suspected().Each(func(x core.Rank) {
				if !was.Suspected().Has(x) {
					c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Note, P: h, Label: fmt.Sprintf("suspects p%d", x)})
				}
			})
		}
		c.States = append(c.States, hostStates(next))
	}
	return c, c.Validate()
}

// hostStates is each host's state in s, a crashed host's with its crash.
func hostStates(s *RoundState) []string {
	row := make([]string, len(s.Nodes))
	for h, nd := range s.Nodes {
		row[h] = nd.String()
		if c := s.Crashed[h]; c != 0 {
			row[h] = fmt.Sprintf("crashed before round %d; last state %s", c, row[h])
		}
	}
	return row
}

// Chart draws the wrapped round model's charts.
func (m noSymmetry) Chart(tr *checker.Trace) (msc.Chart, error) {
	if cm, ok := m.Model.(registry.ModelCharter); ok {
		return cm.Chart(tr)
	}
	return msc.Chart{}, errors.New("gossipfd: the model draws no chart")
}
