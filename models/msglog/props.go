package msglog

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// Property names, as ftcheck --property takes them.
const (
	Faithful    = "recovery-faithful"
	NoOrphan    = "no-orphan"
	NoDuplicate = "no-duplicate-delivery"
	GCSafe      = "gc-safe"
	Pessimism   = "pessimism"
	Termination = "termination"
	DetsKept    = "determinants-kept"
)

// events are the application events in p's history: every incarnation's,
// with the index of their program operation.
func events(w *env.World, p core.Rank) ([]uint64, []ml.Event) {
	var is []uint64
	var es []ml.Event
	for _, r := range w.History(p) {
		if e, ok := r.Value.(ml.Event); ok && r.Kind == core.EffDeliver {
			is, es = append(is, r.Instance), append(es, e)
		}
	}
	return is, es
}

func proc(w *env.World, p core.Rank) *ml.Process { return asProcess(w.Node(p)) }

// Properties are the guarantees of pessimistic message logging (§2.1.3,
// chapter 5) over the application processes' histories (each event an
// EffDeliver record whose instance is its operation's index, kept across
// restarts) and their states.
func Properties(p Params) []checker.Property[*env.World] {
	n := core.Rank(p.Procs)
	ps := []checker.Property[*env.World]{
		{Name: Faithful, Kind: checker.Invariant,
			Doc: "recovery is faithful: a restarted process's re-execution delivers, probes (with the same repetitions), sends and outputs exactly what its earlier incarnations did at the same operation (§5.1.2: \"Os eventos não-determinísticos serão substituídos pelas informações contidas nos determinantes\")",
			Check: func(w *env.World) error {
				for q := range n {
					is, es := events(w, q)
					seen := map[uint64]ml.Event{}
					for k, i := range is {
						if e, ok := seen[i]; ok && !e.Same(es[k]) {
							return fmt.Errorf("p%d operation %d: %v, then %v after a restart", q, i, e, es[k])
						}
						seen[i] = es[k]
					}
				}
				return nil
			}},
		{Name: NoOrphan, Kind: checker.Invariant,
			Doc: "no orphan process (§2.1.3): every message a process delivered is the one its sender sends, in every incarnation, under that sequence number (\"se o estado de um processo reflete uma mensagem recebida, então o estado correspondente do emissor deve refletir o envio daquela mensagem\")",
			Check: func(w *env.World) error {
				type key struct {
					from, to core.Rank
					seq      uint64
				}
				sent := map[key]uint64{}
				for q := range n {
					_, es := events(w, q)
					for _, e := range es {
						if e.Kind == ml.EvSend {
							k := key{q, e.Peer, e.Seq}
							if v, ok := sent[k]; ok && v != e.Val {
								sent[k] = ^uint64(0) // two incarnations sent different payloads
							} else {
								sent[k] = e.Val
							}
						}
					}
				}
				for q := range n {
					_, es := events(w, q)
					for _, e := range es {
						if e.Kind != ml.EvRecv {
							continue
						}
						if v, ok := sent[key{e.Peer, q, e.Seq}]; ok && v != e.Val {
							return fmt.Errorf("p%d delivered %v, but p%d's recovered execution sends another message #%d to it: p%d is an orphan", q, e, e.Peer, e.Seq, q)
						}
					}
				}
				return nil
			}},
		{Name: NoDuplicate, Kind: checker.Invariant,
			Doc: "no duplicate delivery: no process delivers one message (sender, sequence number) at two operations, re-sends included",
			Check: func(w *env.World) error {
				type key struct {
					from core.Rank
					seq  uint64
				}
				for q := range n {
					is, es := events(w, q)
					at := map[key]uint64{}
					for k, e := range es {
						if e.Kind != ml.EvRecv {
							continue
						}
						if i, ok := at[key{e.Peer, e.Seq}]; ok && i != is[k] {
							return fmt.Errorf("p%d delivered message #%d of p%d at operations %d and %d", q, e.Seq, e.Peer, i, is[k])
						}
						at[key{e.Peer, e.Seq}] = is[k]
					}
				}
				return nil
			}},
		{Name: GCSafe, Kind: checker.Invariant,
			Doc: "GC is safe: a live sender keeps every message its receiver's last checkpoint does not cover (lines 20–30: deleted only when seq ≤ the receiver's stable counter)",
			Check: func(w *env.World) error {
				for s := range n {
					if w.Crashed(s) {
						continue
					}
					ps := proc(w, s)
					for r := range n {
						if r == s {
							continue
						}
						for seq := proc(w, r).CheckpointRecv(s) + 1; seq <= ps.SeqSent(r); seq++ {
							if !ps.Logged(r, seq) {
								return fmt.Errorf("p%d deleted its message #%d to p%d, which p%d's checkpoint (received %d) does not cover", s, seq, r, r, proc(w, r).CheckpointRecv(s))
							}
						}
					}
				}
				return nil
			}},
		{Name: Pessimism, Kind: checker.Invariant,
			Doc: "pessimism (§2.1.3, §5.2): every send depends only on stable determinants: when a process sent, every determinant it had generated was on the logger's stable storage (centralized: in the logger's log or removed by a checkpoint; Paxos: chosen)",
			Check: func(w *env.World) error {
				for q := range n {
					_, es := events(w, q)
					stable := stableDets(w, p, q)
					for _, e := range es {
						if e.Kind == ml.EvSend && e.Dets > stable {
							return fmt.Errorf("p%d sent %v depending on %d determinants, %d of them stable", q, e, e.Dets, stable)
						}
					}
				}
				return nil
			}},
		{Name: DetsKept, Kind: checker.Invariant,
			Doc: "no determinant is lost (centralized logger): the logger holds every acknowledged determinant of a live process that its last checkpoint does not cover (Algorithm 4 line 18 removes only what the checkpoint covers; ambiguity C)",
			Check: func(w *env.World) error {
				if p.Logger != el.Centralized {
					return nil
				}
				lg := w.Node(core.Rank(p.Procs)).(*el.Node)
				for q := range n {
					if w.Crashed(q) {
						continue
					}
					pq := proc(w, q)
					have := map[uint64]bool{}
					for _, e := range lg.Entries(q) {
						have[e.ID] = true
					}
					for id := pq.CheckpointCovers() + 1; id <= pq.DetID(); id++ {
						if !have[id] {
							return fmt.Errorf("p%d's determinant %d is acknowledged, not covered by its checkpoint (which covers %d), and no longer on the logger", q, id, pq.CheckpointCovers())
						}
					}
				}
				return nil
			}},
		props.LiveDone(Termination,
			"when nothing is left to do, every process has run its whole program (with every crashed process restarted: a process that stays down blocks its peers' receives)",
			"unfinished", func(w *env.World, q core.Rank) bool {
				if int(q) >= p.Procs {
					return true
				}
				for r := range n {
					if w.Crashed(r) {
						return true // a process down: not this property's case
					}
				}
				return proc(w, q).Done()
			}),
	}
	ps = append(ps, onlyFailedRollsBack(n)) // rollback.go
	if p.Recoveries > 0 {
		ps = append(ps, env.FaultProperties()...)
	}
	if p.Logger != el.Centralized {
		ps = append(ps, env.TimingProperties()...)
	}
	return ps
}

// stableDets is how many of q's determinants are on stable storage: the
// highest id the centralized logger holds for q, or that q's checkpoint
// removed; under the Paxos loggers the ids q's client saw chosen.
func stableDets(w *env.World, p Params, q core.Rank) uint64 {
	pq := proc(w, q)
	best := pq.CheckpointDetID()
	if p.Logger == el.Centralized {
		for _, e := range w.Node(core.Rank(p.Procs)).(*el.Node).Entries(q) {
			best = max(best, e.ID)
		}
		return best
	}
	return max(best, pq.Logger().(*el.Node).LastID())
}
