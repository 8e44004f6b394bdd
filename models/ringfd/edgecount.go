package ringfd

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// Messages per BMG edge and detection (§4.6 (3): "every daemon forwards the
// message once, ensuring that all edges of the BMG will carry exactly one
// message per detection"), over every run of the bounded-delay checker
// model. Each daemon is wrapped in edgeNode, which counts in its own state,
// for each failed id, the FAULT messages carrying it that the daemon sent
// to each daemon and received from each daemon, and whether it started a
// broadcast of the id itself (a timeout on it). The wrapper only counts: the
// daemon's steps and effects are its own.

// edgeNode is a daemon with its edge counters.
type edgeNode struct {
	core.Machine
	n       int     // daemons (ranks 0 … n−1; no processes)
	sent    []uint8 // [to·n + id]: FAULTs carrying id sent to daemon to
	recv    []uint8 // [from·n + id]: FAULTs carrying id received from daemon from
	started []uint8 // [id]: broadcasts of id this daemon started (a timeout on id)
}

func bump(b []uint8, i int) {
	if b[i] < 255 {
		b[i]++
	}
}

func (e *edgeNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	k := len(out)
	out, err := e.Machine.Step(ev, out)
	if err != nil {
		return out, err
	}
	if ev.Kind == core.EvReceive {
		if f, ok := ev.Msg.(fd.Fault); ok && int(ev.From) < e.n {
			f.IDs.Each(func(id core.Rank) { bump(e.recv, int(ev.From)*e.n+int(id)) })
		}
	}
	var suspected core.RankSet
	for _, f := range out[k:] {
		switch f.Kind {
		case core.EffSuspect:
			suspected.Add(f.Peer)
		case core.EffSend:
			if m, ok := f.Msg.(fd.Fault); ok && int(f.To) < e.n {
				m.IDs.Each(func(id core.Rank) { bump(e.sent, int(f.To)*e.n+int(id)) })
			}
		}
	}
	suspected.Each(func(id core.Rank) {
		for _, f := range out[k:] {
			if m, ok := f.Msg.(fd.Fault); ok && f.Kind == core.EffSend && m.IDs.Has(id) {
				bump(e.started, int(id))
				return
			}
		}
	})
	return out, nil
}

func (e *edgeNode) Clone() core.Machine {
	return &edgeNode{Machine: e.Machine.Clone(), n: e.n, sent: slices.Clone(e.sent), recv: slices.Clone(e.recv), started: slices.Clone(e.started)}
}

func (e *edgeNode) AppendBinary(b []byte) []byte {
	b = e.Machine.AppendBinary(b)
	b = append(b, e.sent...)
	b = append(b, e.recv...)
	return append(b, e.started...)
}

// EdgeCase names one class of settled runs: which daemons started the
// broadcast of the first failed daemon (by timeout) and how many of the
// FAULTs a crashed starter sent were never delivered to a live daemon.
type EdgeCase struct {
	Starters string // e.g. "p1", "p1 p2"
	Lost     int    // FAULTs carrying the id sent by crashed daemons and lost
}

// EdgeStats is, for one EdgeCase, the counts of FAULTs carrying the id on
// each directed BMG edge, over the settled states of that class: min and
// max over the edges whose tail is alive ("live"), and over the edges whose
// tail crashed ("dead"), of messages sent; Delivered is the same over
// deliveries at live heads.
type EdgeStats struct {
	States                    int
	LiveMin, LiveMax          int
	DeadMin, DeadMax          int
	DeliveredMin, DelivMax    int
	Hist                      map[int]int // sends per live-tail edge → number of (state, edge)
	Witness                   string      // one state of the class, its counters
	liveSeen, deadSeen, dSeen bool
}

// EdgeReport is EdgeCounts' answer.
type EdgeReport struct {
	Model          string
	States, Edges  int64
	Complete       bool
	Settled        int
	ByCase         map[EdgeCase]*EdgeStats
	EveryStarted   int // settled states in which some daemon started the id twice or more
	MaxPerDaemonID int // largest number of broadcasts of one id by one daemon, over settled states
}

// EdgeCounts explores every run of the bounded-delay model of p (daemons
// only: p.Procs must be 0) in which the daemons of fail crash, at any
// steps, messages from a crashed sender being lost if loss is
// env.LossOnCrash, and records, in each settled state (every fail daemon
// crashed, every live daemon has reported every crashed one, no FAULT in
// flight), the FAULTs carrying id on every BMG edge.
func EdgeCounts(p CheckParams, fail []core.Rank, id core.Rank, loss env.Loss, maxStates int64) (*EdgeReport, error) {
	if p.Procs != 0 {
		return nil, fmt.Errorf("ringfd: EdgeCounts counts daemons only, want --procs 0")
	}
	cfg, err := fd.Normalize(p.Config())
	if err != nil {
		return nil, err
	}
	n := p.N
	rep := &EdgeReport{ByCase: map[EdgeCase]*EdgeStats{}}
	var mu sync.Mutex
	var failSet core.RankSet
	for _, f := range fail {
		failSet.Add(f)
	}
	c := &cfg
	// The edges counted are those of the BMG of p without its mutant, so
	// that a mutant that sends elsewhere shows as edges carrying 0.
	ref := p.Config()
	ref.Mutant = ""
	rc, err := fd.Normalize(ref)
	if err != nil {
		return nil, err
	}
	record := func(w *env.World) error {
		if w.NumCrashed() != len(fail) {
			return nil
		}
		for _, m := range w.InFlight() {
			if _, ok := m.Msg.(fd.Fault); ok {
				return nil
			}
		}
		nodes := make([]*edgeNode, n)
		for d := range n {
			nodes[d] = w.Node(core.Rank(d)).(*edgeNode)
			if w.Crashed(core.Rank(d)) {
				continue
			}
			dm := nodes[d].Machine.(*fd.Daemon)
			settled := true
			failSet.Each(func(f core.Rank) { settled = settled && dm.Knows(f) })
			if !settled {
				return nil
			}
		}
		var starters []string
		lost, maxStart := 0, 0
		for d := range n {
			s := int(nodes[d].started[id])
			maxStart = max(maxStart, s)
			if s > 0 {
				starters = append(starters, core.Rank(d).String())
			}
		}
		type edge struct{ from, to, sent, deliv int }
		var edges []edge
		for i := range n {
			var seen core.RankSet // Open MPI's BMG lists a neighbour twice at N = 4
			for _, t := range rc.Targets(core.Rank(i), core.RankSet{}) {
				if seen.Has(t) {
					continue
				}
				seen.Add(t)
				j := int(t)
				e := edge{from: i, to: j, sent: int(nodes[i].sent[j*n+int(id)]), deliv: -1}
				if !w.Crashed(t) {
					e.deliv = int(nodes[j].recv[i*n+int(id)])
					if w.Crashed(core.Rank(i)) {
						lost += e.sent - e.deliv
					}
				}
				edges = append(edges, e)
			}
		}
		key := EdgeCase{Starters: strings.Join(starters, " "), Lost: lost}
		mu.Lock()
		defer mu.Unlock()
		rep.Settled++
		rep.MaxPerDaemonID = max(rep.MaxPerDaemonID, maxStart)
		if maxStart > 1 {
			rep.EveryStarted++
		}
		st := rep.ByCase[key]
		if st == nil {
			st = &EdgeStats{Hist: map[int]int{}}
			rep.ByCase[key] = st
			var b strings.Builder
			for _, e := range edges {
				fmt.Fprintf(&b, " %d→%d:%d", e.from, e.to, e.sent)
				if e.deliv >= 0 {
					fmt.Fprintf(&b, "/%d", e.deliv)
				}
			}
			st.Witness = strings.TrimSpace(b.String())
		}
		st.States++
		for _, e := range edges {
			if w.Crashed(core.Rank(e.from)) {
				st.DeadMin, st.DeadMax = minmax(st.deadSeen, st.DeadMin, st.DeadMax, e.sent)
				st.deadSeen = true
			} else {
				st.LiveMin, st.LiveMax = minmax(st.liveSeen, st.LiveMin, st.LiveMax, e.sent)
				st.liveSeen = true
				st.Hist[e.sent]++
			}
			if e.deliv >= 0 {
				st.DeliveredMin, st.DelivMax = minmax(st.dSeen, st.DeliveredMin, st.DelivMax, e.deliv)
				st.dSeen = true
			}
		}
		return nil
	}
	ranks := cfg.Ranks()
	sched := make([][]core.Input, ranks)
	for d := range n {
		sched[d] = []core.Input{fd.Start{}}
	}
	m, err := env.New(env.Config{
		Name: fmt.Sprintf("ringfd edge counts daemons=%d period=%d timeout=%d fail=%v", n, p.Period, p.Timeout, fail),
		N:    ranks, Crashes: p.Crashes, Fail: fail, Network: p.Network, Loss: loss,
		Timing: env.BoundedDelay, Delta: p.Delta, Detector: env.DetectorNone, // daemons only: heartbeats are the only detector
		Schedules: [][][]core.Input{sched},
		NewNode: func(r core.Rank, _ int) core.Machine {
			d, _ := fd.New(r, *c)
			return &edgeNode{Machine: d, n: n, sent: make([]uint8, n*n), recv: make([]uint8, n*n), started: make([]uint8, n)}
		},
		Properties: []checker.Property[*env.World]{{Name: "edge-counts", Kind: checker.Invariant,
			Doc: "records the FAULTs per BMG edge in every settled state (never violated)", Check: record}},
	})
	if err != nil {
		return nil, err
	}
	rep.Model = m.Name()
	res := checker.BFS[*env.World](m, checker.Options{MaxStates: maxStates, MaxMemory: 3 << 30})
	if res.Err != nil {
		return nil, res.Err
	}
	rep.States, rep.Edges, rep.Complete = res.States, res.Transitions, res.Complete
	return rep, nil
}

func minmax(seen bool, lo, hi, v int) (int, int) {
	if !seen {
		return v, v
	}
	return min(lo, v), max(hi, v)
}

// String prints the report, one line per case.
func (r *EdgeReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d states, %d transitions, complete=%v; %d settled states\n", r.Model, r.States, r.Edges, r.Complete, r.Settled)
	keys := make([]EdgeCase, 0, len(r.ByCase))
	for k := range r.ByCase {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Starters != keys[j].Starters {
			return keys[i].Starters < keys[j].Starters
		}
		return keys[i].Lost < keys[j].Lost
	})
	for _, k := range keys {
		s := r.ByCase[k]
		fmt.Fprintf(&b, "  started by [%s], %d lost: %d states; sends per edge from a live daemon %d…%d", k.Starters, k.Lost, s.States, s.LiveMin, s.LiveMax)
		if s.deadSeen {
			fmt.Fprintf(&b, ", from a crashed one %d…%d", s.DeadMin, s.DeadMax)
		}
		fmt.Fprintf(&b, ", delivered to a live daemon %d…%d; histogram %v\n    e.g. (from→to:sent/delivered) %s\n", s.DeliveredMin, s.DelivMax, s.Hist, s.Witness)
	}
	fmt.Fprintf(&b, "  largest number of broadcasts of the id started by one daemon: %d\n", r.MaxPerDaemonID)
	return b.String()
}
