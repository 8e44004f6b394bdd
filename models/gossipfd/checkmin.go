package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// CheckedMinCleanup asks the checker for the smallest T_cleanup (rounds,
// 1…maxC) with no false suspicion when up to k hosts crash before any of
// the first two cycles' rounds, start-up included (no ping phase, fixed
// routing, rotation symmetry): an exhaustive search of the round model per
// candidate. It returns Unbounded if even maxC fails, and the number of
// states of the last (passing) search.
func CheckedMinCleanup(v fd.Variant, n, k, maxC int) (int, int64, error) {
	if v == fd.Random {
		return 0, 0, fmt.Errorf("gossipfd: CheckedMinCleanup is for the deterministic variants")
	}
	cyc := fd.Cycle(v, n)
	for C := 1; C <= maxC; C++ {
		m, err := NewCheckModel(CheckConfig{
			Node:    fd.Config{N: n, Variant: v, Cleanup: uint64(C)},
			Crashes: k, CrashWindow: 2 * cyc, Horizon: 2*cyc + C + 2*cyc + 2, DetectBound: C + 2*cyc + 1,
		})
		if err != nil {
			return 0, 0, err
		}
		r := checker.Search[*RoundState](m, checker.Options{Symmetry: true, Properties: []string{"no-false-suspicion"}})
		if r.Err != nil {
			return 0, 0, r.Err
		}
		if len(r.Violations) == 0 && r.Complete {
			return C, r.States, nil
		}
	}
	return Unbounded, 0, nil
}
