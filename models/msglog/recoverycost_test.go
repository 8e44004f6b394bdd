package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestRecoveryCostFig51 is Fig. 5.1's recovery counted: P1 re-executes
// everything after its checkpoint (m1, the receives of m2, m4, m3, m5 and
// its output: 6 operations), replays 3 determinants, P2 and P0 re-send 3
// messages (m2, m4; m3), and m1 and m5 are suppressed.
func TestRecoveryCostFig51(t *testing.T) {
	p := Params{Program: "fig51", Procs: 3, F: 1}
	ff, err := Simulate(p, Crash{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := RecoveryCostOf(p, Crash{Rank: 1, K: 3}, ff.Steps)
	if err != nil {
		t.Fatal(err)
	}
	want := RecoveryCost{Crash: Crash{Rank: 1, K: 3}, Reexecuted: 6, Determinants: 3, Resent: 3, Suppressed: 2, ExtraSteps: rc.ExtraSteps}
	if rc != want || rc.ExtraSteps <= 0 {
		t.Fatalf("got %+v, want %+v with extra steps > 0", rc, want)
	}
}

// TestRecoverySweep: on the master/worker program with 3 workers, one
// crash after each delivery of each rank, the master's recovery work
// (operations re-executed, determinants replayed, messages re-sent) does
// not shrink as its checkpoints grow apart (every 1, 2, 4 deliveries,
// then none); a worker replays no determinant (its receives name the
// master); without checkpoints the master re-executes more than a worker
// (it has done more since its start).
func TestRecoverySweep(t *testing.T) {
	rows, err := RecoverySweep(Params{Program: "masterworker", Procs: 4, F: 1}, []int{1, 2, 4, 0})
	if err != nil {
		t.Fatal(err)
	}
	var master, worker []RecoveryRow
	for _, r := range rows {
		if r.Role == Role(core.Rank(0)) {
			master = append(master, r)
		} else {
			worker = append(worker, r)
		}
	}
	if len(master) != 4 || len(worker) != 4 {
		t.Fatalf("rows %+v", rows)
	}
	for i := 1; i < 4; i++ {
		a, b := master[i-1], master[i]
		if b.Reexecuted < a.Reexecuted || b.Determinants < a.Determinants || b.Resent < a.Resent {
			t.Errorf("master: every %d → %+v, every %d → %+v: recovery work shrank", a.CheckpointEvery, a, b.CheckpointEvery, b)
		}
	}
	for _, w := range worker {
		if w.Determinants != 0 {
			t.Errorf("worker, every %d: %.2f determinants replayed, want 0", w.CheckpointEvery, w.Determinants)
		}
	}
	if m, w := master[3], worker[3]; m.Reexecuted <= w.Reexecuted || m.Determinants <= 0 {
		t.Errorf("without checkpoints: master %+v, worker %+v", m, w)
	}
}
