package msglog

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// The cost of a recovery (§5.3.5, Fig. 5.11), measured on runs of the
// model: `simulate --crash R@K --checkpoint-every C` for every rank R and
// every delivery K of its failure-free run, aggregated per role.

// RecoveryCost is one run with one crash and its restart.
type RecoveryCost struct {
	Crash Crash
	// Reexecuted: the operations (sends, receives, probes, outputs) of the
	// crashed incarnation that the new one executed again, from its
	// checkpoint.
	Reexecuted int
	// Determinants: the re-executed ANY_SOURCE receives and probes, each
	// replayed from a determinant read from the logger
	// (retrieve-since(ck.last_id)).
	Determinants int
	// Resent: the messages the peers re-sent on RESEND_FROM; Suppressed:
	// the re-executed sends not transmitted (the peer had them).
	Resent, Suppressed int
	// ExtraSteps: the run's steps beyond the failure-free run's (the
	// crash, the restart, the recovery's messages and the re-execution).
	ExtraSteps int
	Violation  string
}

// RecoveryCostOf runs p's program with crash c under the default schedule
// (seed 0) and measures its recovery against the failure-free run of
// ffSteps steps.
func RecoveryCostOf(p Params, c Crash, ffSteps int) (RecoveryCost, error) {
	r, err := Simulate(p, c, 0)
	if err != nil {
		return RecoveryCost{}, err
	}
	out := RecoveryCost{Crash: c, Suppressed: r.Suppressed, ExtraSteps: r.Steps - ffSteps, Violation: r.Violation}
	for _, k := range r.Resent {
		out.Resent += k
	}
	out.Reexecuted, out.Determinants = reexecuted(r.Final, c.Rank, p.program())
	return out, nil
}

// reexecuted counts the records of q's history that a later incarnation
// delivered again (an operation index at most the highest its earlier
// incarnations reached), and those of ANY_SOURCE operations.
func reexecuted(w *env.World, q core.Rank, prog ml.Program) (ops, dets int) {
	reached := uint64(0)
	started := false
	for _, rec := range w.History(q) {
		if _, ok := rec.Value.(ml.Event); !ok {
			continue
		}
		if started && rec.Instance <= reached {
			ops++
			if prog.Procs[q][rec.Instance].Peer == ml.AnySource {
				dets++
			}
			continue
		}
		started, reached = true, max(reached, rec.Instance)
	}
	return ops, dets
}

// RecoveryRow aggregates the runs of one role at one checkpoint interval.
type RecoveryRow struct {
	Role            string `json:"role"`
	CheckpointEvery int    `json:"checkpoint_every"`
	Runs            int    `json:"runs"`
	// Means per run.
	Reexecuted   float64 `json:"reexecuted"`
	Determinants float64 `json:"determinants"`
	Resent       float64 `json:"resent"`
	Suppressed   float64 `json:"suppressed"`
	ExtraSteps   float64 `json:"extra_steps"`
	// MaxReexecuted is the worst crash point's re-executed operations.
	MaxReexecuted int `json:"max_reexecuted"`
}

// Role names rank q of a master/worker program: rank 0 is the master.
func Role(q core.Rank) string {
	if q == 0 {
		return "master"
	}
	return "worker"
}

// RecoverySweep crashes every rank of p's program after each of its
// deliveries in the failure-free run, once per checkpoint interval of
// intervals (0: the program's own checkpoints only), and aggregates per
// role (Role) and interval, in the order of intervals, master first. A
// run that violates a property is an error.
func RecoverySweep(p Params, intervals []int) ([]RecoveryRow, error) {
	var out []RecoveryRow
	for _, ck := range intervals {
		p.CheckpointEvery = ck
		ff, err := Simulate(p, Crash{}, 0)
		if err != nil {
			return nil, err
		}
		rows := map[string]*RecoveryRow{"master": {Role: "master", CheckpointEvery: ck}, "worker": {Role: "worker", CheckpointEvery: ck}}
		for q := range core.Rank(p.Procs) {
			for k := 1; k <= recvs(ff.Final, q); k++ {
				rc, err := RecoveryCostOf(p, Crash{Rank: q, K: k}, ff.Steps)
				if err != nil {
					return nil, err
				}
				if rc.Violation != "" {
					return nil, fmt.Errorf("msglog recovery cost: crash %v@%d: %s", q, k, rc.Violation)
				}
				r := rows[Role(q)]
				r.Runs++
				r.Reexecuted += float64(rc.Reexecuted)
				r.Determinants += float64(rc.Determinants)
				r.Resent += float64(rc.Resent)
				r.Suppressed += float64(rc.Suppressed)
				r.ExtraSteps += float64(rc.ExtraSteps)
				r.MaxReexecuted = max(r.MaxReexecuted, rc.Reexecuted)
			}
		}
		for _, role := range []string{"master", "worker"} {
			r := rows[role]
			if r.Runs == 0 {
				continue
			}
			n := float64(r.Runs)
			r.Reexecuted, r.Determinants, r.Resent, r.Suppressed, r.ExtraSteps = r.Reexecuted/n, r.Determinants/n, r.Resent/n, r.Suppressed/n, r.ExtraSteps/n
			out = append(out, *r)
		}
	}
	return out, nil
}
