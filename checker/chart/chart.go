// Package chart draws a trace of the message-passing environment
// (checker/env) as a message sequence chart (checker/msc): it replays the
// trace and pairs each delivery with the send it consumes.
package chart

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/msc"
	"github.com/ftkernel/ftkernel/core"
)

// FromTrace replays tr on m and turns it into a chart: an arrow from the step that
// sent a message to the step that delivered it, a lost message's stub ended
// at the step that lost it, crashes (every process a step crashes: with
// env.Config.Hosts, a host's crash also marks the hosted processes that die
// with it), detections, calls and decisions marked, each process's state
// after every step, and a lasso's loop (checker.Trace.Loop).
//
// Errors: the replay's error if tr does not start from an initial state of
// m; msc.Chart.Validate's error if the chart is inconsistent. A trace
// whose replay fails part-way is drawn up to the failing step.
func FromTrace(m *env.Model, tr *checker.Trace) (msc.Chart, error) {
	worlds, err := checker.Replay[*env.World](m, tr)
	if worlds == nil {
		return msc.Chart{}, fmt.Errorf("replay: %w", err)
	}
	n := worlds[0].N()
	c := msc.Chart{Title: m.Name(), Processes: n}
	if tr.Loop > 0 && len(worlds) == len(tr.Steps)+1 {
		c.Loop = tr.Loop
	}
	if tr.Violation != nil {
		c.Violation = tr.Violation.String()
	}
	state := func(w *env.World) []string {
		row := make([]string, n)
		for p := range row {
			row[p] = w.Node(core.Rank(p)).String()
			if w.Crashed(core.Rank(p)) {
				row[p] = "crashed; last state " + row[p]
			}
		}
		return row
	}
	c.States = append(c.States, state(worlds[0]))
	// In-flight message ids, per (from, to, encoding), oldest first.
	type key struct {
		from, to core.Rank
		msg      string
	}
	inflight := map[key][]int{}
	next := 1
	for k := 1; k < len(worlds) && k <= len(tr.Steps); k++ {
		prev, w, a := worlds[k-1], worlds[k], tr.Steps[k-1].Action
		c.Steps = append(c.Steps, tr.Steps[k-1].Text)
		switch a.Kind {
		case env.Deliver, env.Lose:
			// The message consumed is the one whose copy count dropped.
			for _, e := range prev.InFlight() {
				if e.To != core.Rank(a.P) || e.From != core.Rank(a.Q) {
					continue
				}
				kk := key{e.From, e.To, string(e.Msg.AppendBinary(nil))}
				if countIn(w, kk.from, kk.to, kk.msg) < countIn(prev, kk.from, kk.to, kk.msg) && len(inflight[kk]) > 0 {
					id := inflight[kk][0]
					inflight[kk] = inflight[kk][1:]
					kind := msc.Recv
					if a.Kind == env.Lose {
						kind = msc.Lost
					}
					c.Events = append(c.Events, msc.Event{Step: k, Kind: kind, P: int(a.P), Q: int(a.Q), MsgID: id, Label: e.Msg.String()})
					break
				}
			}
		case env.Detect:
			c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Detect, P: int(a.P), Q: int(a.Q), Label: fmt.Sprintf("p%d dead", a.Q)})
		case env.Call:
			c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Call, P: int(a.P), Label: "call"})
		}
		for p := range n {
			r := core.Rank(p)
			if !w.Crashed(r) || prev.Crashed(r) {
				continue
			}
			e := msc.Event{Step: k, Kind: msc.Crash, P: p}
			if a.Kind == env.Crash && int(a.P) != p {
				e.Label = fmt.Sprintf("with its host p%d", a.P)
			}
			c.Events = append(c.Events, e)
		}
		actor := w.LastActor()
		for _, e := range w.LastEffects() {
			switch e.Kind {
			case core.EffSend:
				kk := key{actor, e.To, string(e.Msg.AppendBinary(nil))}
				inflight[kk] = append(inflight[kk], next)
				c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Send, P: int(actor), Q: int(e.To), MsgID: next, Label: e.Msg.String()})
				next++
			case core.EffDecide:
				c.Events = append(c.Events, msc.Event{Step: k, Kind: msc.Decide, P: int(actor), Label: fmt.Sprintf("decide %v", e.Value)})
			}
		}
		c.States = append(c.States, state(w))
	}
	return c, c.Validate()
}

// countIn counts the copies in flight of one message from → to.
func countIn(w *env.World, from, to core.Rank, msg string) int {
	n := 0
	for _, e := range w.InFlight() {
		if e.From == from && e.To == to && string(e.Msg.AppendBinary(nil)) == msg {
			n++
		}
	}
	return n
}
