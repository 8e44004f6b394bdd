package msglog

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// The domino effect (§2.1.3, Fig. 2.2): with uncoordinated checkpoints
// and no message logging, a crashed process restarts from its last
// checkpoint and every other process must roll back to a checkpoint that
// leaves no orphan message; the rollbacks can cascade to the initial
// state. This file computes the recovery lines of a run's checkpoint and
// message pattern by exhaustive search over the cuts of checkpoints.

// PatternEvent is a send or a delivery of an application message, named by
// its sender, receiver and sequence number.
type PatternEvent struct {
	Send     bool
	From, To core.Rank
	Seq      uint64
}

func (e PatternEvent) msg() string { return fmt.Sprintf("%v→%v#%d", e.From, e.To, e.Seq) }

// Pattern is a run's checkpoint and message pattern: per process, its
// sends and deliveries in order, and the positions of its checkpoints (a
// position is the number of the process's events before the checkpoint).
// Position 0, the initial state, is always a checkpoint (the thesis's
// recovery lines may end at "o estado inicial da aplicação").
type Pattern struct {
	Events      [][]PatternEvent
	Checkpoints [][]int
}

// Placement says where the processes checkpoint in a pattern read from a
// run: the program's own chkp() operations and, when Every > 0, one after
// every Every-th delivery of each rank in Ranks (of every rank when Ranks
// is nil).
type Placement struct {
	Every int
	Ranks []core.Rank
}

// Fig22Placement is Fig. 2.2's: P0 checkpoints after each delivery
// (Ck_{0,0} after m1, Ck_{0,1} after m5), P1 has its program's Ck_{1,0}
// (before it sends m1), P2 only its initial state.
var Fig22Placement = Placement{Every: 1, Ranks: []core.Rank{0}}

func (pl Placement) every(q core.Rank) int {
	if pl.Ranks == nil {
		return pl.Every
	}
	for _, r := range pl.Ranks {
		if r == q {
			return pl.Every
		}
	}
	return 0
}

// PatternOf reads the pattern of the failure-free part of w's run (the
// first incarnation of each application process) of program prog, with
// the checkpoints of pl.
func PatternOf(w *env.World, prog ml.Program, pl Placement) Pattern {
	n := prog.N()
	pat := Pattern{Events: make([][]PatternEvent, n), Checkpoints: make([][]int, n)}
	for q := range core.Rank(n) {
		ops := prog.Procs[q]
		every, delivered := pl.every(q), 0
		cks := []int{0}
		add := func(pos int) {
			if cks[len(cks)-1] != pos {
				cks = append(cks, pos)
			}
		}
		nextOp := 0
		for _, rec := range w.History(q) {
			e, ok := rec.Value.(ml.Event)
			if !ok || int(rec.Instance) < nextOp {
				break // a re-execution: the first incarnation's pattern ends
			}
			for ; nextOp < int(rec.Instance); nextOp++ {
				if ops[nextOp].Kind == ml.OpCheckpoint {
					add(len(pat.Events[q]))
				}
			}
			nextOp = int(rec.Instance) + 1
			switch e.Kind {
			case ml.EvSend:
				pat.Events[q] = append(pat.Events[q], PatternEvent{Send: true, From: q, To: e.Peer, Seq: e.Seq})
			case ml.EvRecv:
				pat.Events[q] = append(pat.Events[q], PatternEvent{From: e.Peer, To: q, Seq: e.Seq})
				if delivered++; every > 0 && delivered%every == 0 {
					add(len(pat.Events[q]))
				}
			}
		}
		pat.Checkpoints[q] = cks
	}
	return pat
}

// Orphans lists the orphan messages of the cut that puts process q at
// position cut[q]: delivered within the receiver's part of the cut, sent
// outside the sender's (§2.1.3: "se o estado de um processo reflete uma
// mensagem recebida, então o estado correspondente do emissor deve
// refletir o envio daquela mensagem"). Messages sent and not delivered
// within the cut (in transit) are not orphans.
func (p Pattern) Orphans(cut []int) []string {
	sent := map[PatternEvent]bool{}
	for q, evs := range p.Events {
		for _, e := range evs[:cut[q]] {
			if e.Send {
				sent[PatternEvent{Send: true, From: e.From, To: e.To, Seq: e.Seq}] = true
			}
		}
	}
	var out []string
	for q, evs := range p.Events {
		for _, e := range evs[:cut[q]] {
			if !e.Send && !sent[PatternEvent{Send: true, From: e.From, To: e.To, Seq: e.Seq}] {
				out = append(out, e.msg())
			}
		}
	}
	return out
}

// CutVerdict is one cut of checkpoints (an index into each process's
// Checkpoints) and its orphan messages.
type CutVerdict struct {
	Ck      []int
	Orphans []string
}

// Cuts judges every cut of checkpoints (exhaustive: the product of the
// processes' checkpoint counts, in lexicographic order of the indices,
// the last process varying fastest). A cut without orphans is a recovery
// line.
func (p Pattern) Cuts() []CutVerdict {
	n := len(p.Checkpoints)
	idx := make([]int, n)
	var out []CutVerdict
	for {
		pos := make([]int, n)
		for q := range n {
			pos[q] = p.Checkpoints[q][idx[q]]
		}
		out = append(out, CutVerdict{Ck: append([]int(nil), idx...), Orphans: p.Orphans(pos)})
		q := n - 1
		for ; q >= 0; q-- {
			idx[q]++
			if idx[q] < len(p.Checkpoints[q]) {
				break
			}
			idx[q] = 0
		}
		if q < 0 {
			return out
		}
	}
}

// RecoveryLines are the cuts of p without orphans.
func (p Pattern) RecoveryLines() [][]int {
	var out [][]int
	for _, c := range p.Cuts() {
		if len(c.Orphans) == 0 {
			out = append(out, c.Ck)
		}
	}
	return out
}

// Latest is the cut of every process's last checkpoint.
func (p Pattern) Latest() []int {
	out := make([]int, len(p.Checkpoints))
	for q, c := range p.Checkpoints {
		out[q] = len(c) - 1
	}
	return out
}

// CutString formats a cut as "Ck_{0,1} Ck_{1,0} init_2": index 0 is the
// initial state (init_q) unless the process's first checkpoint is taken
// there by its program, and the others are numbered from 0, as in
// Fig. 2.2.
func (p Pattern) CutString(ck []int, programCk []bool) string {
	var parts []string
	for q, i := range ck {
		k := i - 1
		if programCk != nil && programCk[q] {
			k = i
		}
		if k < 0 {
			parts = append(parts, fmt.Sprintf("init_%d", q))
		} else {
			parts = append(parts, fmt.Sprintf("Ck_{%d,%d}", q, k))
		}
	}
	return strings.Join(parts, " ")
}

// startsWithCheckpoint reports, per process, whether its program's first
// operation is chkp() (its checkpoint at position 0 is then Ck_{q,0}).
func startsWithCheckpoint(prog ml.Program) []bool {
	out := make([]bool, prog.N())
	for q, ops := range prog.Procs {
		out[q] = len(ops) > 0 && ops[0].Kind == ml.OpCheckpoint
	}
	return out
}
