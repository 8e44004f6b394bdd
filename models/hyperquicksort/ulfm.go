package hyperquicksort

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/era"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// ULFMBarrier is the ULFM baseline's barrier at which processes failed
// (§4.3.2): the barrier returns MPI_ERR_PROC_FAILED, the survivors revoke
// the communicator, agree (MPIX_Comm_agree: ERA with the ulfm operation,
// models/era's Figure 3 program with no warm-up), acknowledge the failures
// and agree again until the agreement succeeds, then shrink (a last
// agreement, the post-failure one). Size is the communicator's size
// before the failures, Failed their positions in it.
type ULFMBarrier struct {
	Size   int
	Failed []core.Rank
	// Agreements is the number of agreements the survivors ran, Messages
	// their messages (UP, DOWN and RESULTREQUEST), both from one seeded
	// walk of models/era's ulfm-bench.
	Agreements, Messages float64
	// Stabilized: the acknowledge-and-agree loop ended with success at
	// every survivor, and ERA's properties held.
	Stabilized bool
}

var barriers sync.Map // "size/failed" → *ULFMBarrier

// RunBarrier runs the ULFM barrier of size processes of which failed (their
// positions) failed, through models/era (memoised: the walk is seeded).
func RunBarrier(size int, failed []core.Rank) (*ULFMBarrier, error) {
	key := fmt.Sprint(size, failed)
	if b, ok := barriers.Load(key); ok {
		return b.(*ULFMBarrier), nil
	}
	rep, err := era.RunULFMBench(era.ULFMBenchParams{
		ERA:    era.Params{N: size, Op: erasm.ULFM, Fail: slices.Clone(failed)},
		Warmup: 0, Post: 1,
	}, 1, 1, 0)
	if err != nil {
		return nil, fmt.Errorf("ulfm barrier: %w", err)
	}
	b := &ULFMBarrier{Size: size, Failed: failed}
	f := rep.Figures
	b.Stabilized = f["properties_hold"] == true && f["stabilized_walks"] == 1 && f["completed_walks"] == 1
	// The figures as a user of the report reads them (their JSON form).
	raw, err := json.Marshal(f["phases"])
	if err != nil {
		return nil, fmt.Errorf("ulfm barrier: %w", err)
	}
	var phases map[string]struct{ Agreements, Messages float64 }
	if err := json.Unmarshal(raw, &phases); err != nil {
		return nil, fmt.Errorf("ulfm barrier: %w", err)
	}
	for _, ph := range phases {
		b.Agreements += ph.Agreements
		b.Messages += ph.Messages
	}
	barriers.Store(key, b)
	return b, nil
}

// fail applies the failures of set (a superset of w.nonRec, the failed
// so far) to w: each newly failed process's lists are lost (no shared
// store), and the survivors run the barrier.
func (m *Model) fail(w *World, set core.RankSet) error {
	var survivors []core.Rank
	for r := range core.Rank(m.p.N) {
		if !w.nonRec.Has(r) {
			survivors = append(survivors, r)
		}
	}
	var pos []core.Rank
	for k, r := range survivors {
		if set.Has(r) {
			pos = append(pos, core.Rank(k))
			w.lost = hq.Union(w.lost, w.procs[r].Held())
		}
	}
	if len(pos) == 0 {
		return nil
	}
	b, err := RunBarrier(len(survivors), pos)
	if err != nil {
		return err
	}
	w.stats.Agreements += b.Agreements
	w.stats.AgreementMessages += b.Messages
	if !b.Stabilized {
		return fmt.Errorf("ulfm barrier: the agreement of %d processes, %d of them failed, did not stabilize (models/era)", len(survivors), len(pos))
	}
	return nil
}
