package env

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Budgeted faults: crash-recovery (Faults CrashRecovery, Config.Recoveries;
// recovery.go), message loss (Loss LossAny, Config.Losses) and duplication
// (Config.Duplicates; lossdup.go). Each budget counts actions in a run:
// the world keeps what it has spent and encodes it, after the clock:
//
//   - CrashRecovery: the ranks that have restarted, as a count then (rank,
//     restarts) pairs by ascending rank (World.Incarnation). The crashes
//     spent are then the crashed ranks plus the restarts.
//   - LossAny: the Lose actions taken (World.Lost).
//   - Duplicates > 0: the Duplicate actions taken (World.Duplicated).
//
// Reductions. Sleep sets (checker.Options.POR in BFS) stay sound: Lose,
// Recover, DetectRecover and Duplicate are dependent with every action
// (independence.go: they are not local kinds), and the independence of the
// other actions does not read the budgets (a Crash under CrashRecovery
// re-weighs the processes that were told of its earlier restart, which
// changes no encoding); TestFaultsSleepSets compares the searches.
// Persistent sets (DFS --por) are off in these modes: Persistent returns
// nothing, as its argument assumes that the crashed set only grows and
// that only crashed senders' messages vanish. Config.ForgetCrashed is
// refused with CrashRecovery (a forgotten node has lost the stable storage
// a restart reads, and a crashed process steps again); it stays sound
// with LossAny and Duplicates, whose actions read records, never a node.
// Config.DropAbsorbed is refused with all three: a Lose or Duplicate of an
// absorbed message spends budget in the plain search that the dropping
// one keeps, so the two reach different worlds, and a restart may reset a
// node to a state that no longer absorbs. Symmetry is the model's own
// (Canonical): a rotation must rename World.Incarnation with the ranks.

// faultState is what the fault budgets have spent in a world.
type faultState struct {
	inc       []int32 // restarts per rank, nil before the first; replaced, never written
	recovered int32   // Recover actions taken: the sum of inc
	lost      int32   // Lose actions taken under LossAny
	duped     int32   // Duplicate actions taken
}

// validateFaults checks the budgets against their modes, and the settings
// the new modes do not combine with.
func (c *Config) validateFaults() error {
	switch {
	case c.Loss == LossAny && (c.Losses < 1 || c.Losses > math.MaxInt32):
		return fmt.Errorf("the loss budget Losses = %d: want 1 ≤ Losses ≤ %d under Loss %v", c.Losses, math.MaxInt32, LossAny)
	case c.Loss != LossAny && c.Losses != 0:
		return fmt.Errorf("the loss budget Losses = %d needs Loss %v (it is %v)", c.Losses, LossAny, c.Loss)
	case c.Duplicates < 0 || c.Duplicates > math.MaxInt32:
		return fmt.Errorf("the duplication budget Duplicates = %d: want 0 ≤ Duplicates ≤ %d", c.Duplicates, math.MaxInt32)
	case c.Faults == CrashRecovery && (c.Recoveries < 0 || c.Recoveries > math.MaxInt32):
		return fmt.Errorf("Recoveries = %d, want 0 ≤ Recoveries ≤ %d", c.Recoveries, math.MaxInt32)
	case c.Faults != CrashRecovery && c.Recoveries != 0:
		return fmt.Errorf("the recovery budget Recoveries = %d needs Faults %v (it is %v)", c.Recoveries, CrashRecovery, c.Faults)
	}
	if c.Faults == CrashRecovery {
		switch {
		case len(c.Fail) > 0:
			return errors.New("CrashRecovery does not combine with Fail (a Fail rank must crash in every run: whether it may restart is not defined)")
		case c.Hosts != nil:
			return errors.New("CrashRecovery does not combine with Hosts (a host's restart would have to restart the ranks it hosts)")
		case c.ForgetCrashed:
			return errors.New("CrashRecovery does not combine with ForgetCrashed (a forgotten node has lost the stable storage its restart reads)")
		}
	}
	if c.DropAbsorbed && (c.Faults == CrashRecovery || c.Loss == LossAny || c.Duplicates > 0) {
		return errors.New("DropAbsorbed does not combine with CrashRecovery, LossAny or Duplicates (losing or duplicating an absorbed message spends budget the dropping search keeps; a restarted node may no longer absorb)")
	}
	return nil
}

// faulty reports whether a fault budget is in effect (the world encodes
// what it spent, Sample lists the actions).
func (m *Model) faulty() bool {
	return m.cfg.Faults == CrashRecovery || m.cfg.Loss == LossAny || m.cfg.Duplicates > 0
}

// appendFaults appends the budgets spent in s (see the top of this file).
func (m *Model) appendFaults(b []byte, s *World) []byte {
	if m.cfg.Faults == CrashRecovery {
		k := 0
		for _, c := range s.faults.inc {
			if c > 0 {
				k++
			}
		}
		b = core.AppendUint(b, uint64(k))
		for r, c := range s.faults.inc {
			if c > 0 {
				b = core.AppendUint(b, uint64(r))
				b = core.AppendUint(b, uint64(c))
			}
		}
	}
	if m.cfg.Loss == LossAny {
		b = core.AppendUint(b, uint64(s.faults.lost))
	}
	if m.cfg.Duplicates > 0 {
		b = core.AppendUint(b, uint64(s.faults.duped))
	}
	return b
}

// mixFaults absorbs what appendFaults writes into the hash h (Fingerprint).
func (m *Model) mixFaults(h uint64, s *World) uint64 {
	if m.cfg.Faults == CrashRecovery {
		k := 0
		for _, c := range s.faults.inc {
			if c > 0 {
				k++
			}
		}
		h = fpMix(h, uint64(k))
		for r, c := range s.faults.inc {
			if c > 0 {
				h = fpMix(fpMix(h, uint64(r)), uint64(c))
			}
		}
	}
	if m.cfg.Loss == LossAny {
		h = fpMix(h, uint64(s.faults.lost))
	}
	if m.cfg.Duplicates > 0 {
		h = fpMix(h, uint64(s.faults.duped))
	}
	return h
}

// decodeFaults reads what appendFaults wrote into w, whose crashed set is
// read: ranks ascending, each restarted at least once, restarts within
// Recoveries and, with the crashed ranks, within Crashes (the crashes
// spent, w.spent); losses and duplicates within their budgets. Other bytes
// fail d.
func (m *Model) decodeFaults(d *core.Decoder, w *World) {
	if m.cfg.Faults == CrashRecovery {
		k := d.Len(d.Remaining())
		prev := -1
		var sum uint64
		for j := 0; j < k && d.Err() == nil; j++ {
			r := d.Rank(m.cfg.N)
			c := d.Uint()
			if d.Err() != nil {
				break
			}
			if int(r) <= prev || c == 0 || c > uint64(m.cfg.Recoveries) {
				d.Fail("restarts %d of %v (after %v): ranks ascending, 1 ≤ restarts ≤ %d", c, r, core.Rank(prev), m.cfg.Recoveries)
				break
			}
			prev = int(r)
			if w.faults.inc == nil {
				w.faults.inc = make([]int32, m.cfg.N)
			}
			w.faults.inc[r] = int32(c)
			sum += c
		}
		if d.Err() == nil && (sum > uint64(m.cfg.Recoveries) || uint64(w.ncrash)+sum > uint64(m.cfg.Crashes)) {
			d.Fail("%d restarts and %d ranks crashed, beyond the budgets %d and %d crashes", sum, w.ncrash, m.cfg.Recoveries, m.cfg.Crashes)
		}
		w.faults.recovered = int32(sum)
		w.spent = w.ncrash + int(sum)
	}
	if m.cfg.Loss == LossAny {
		if l := d.Uint(); l > uint64(m.cfg.Losses) {
			d.Fail("%d losses beyond the budget %d", l, m.cfg.Losses)
		} else {
			w.faults.lost = int32(l)
		}
	}
	if m.cfg.Duplicates > 0 {
		if c := d.Uint(); c > uint64(m.cfg.Duplicates) {
			d.Fail("%d duplicates beyond the budget %d", c, m.cfg.Duplicates)
		} else {
			w.faults.duped = int32(c)
		}
	}
}

// Incarnation is the number of times p has restarted (Recover actions of
// p); 0 under CrashStop.
func (w *World) Incarnation(p core.Rank) int {
	if !p.Valid(w.m.cfg.N) {
		panic(fmt.Sprintf("env: rank %d out of range", p))
	}
	if w.faults.inc == nil {
		return 0
	}
	return int(w.faults.inc[p])
}

// Recoveries is the number of Recover actions taken: the recovery budget
// spent (at most Config.Recoveries).
func (w *World) Recoveries() int { return int(w.faults.recovered) }

// Lost is the number of Lose actions taken under LossAny: the loss budget
// spent (at most Config.Losses; 0 under the other Loss modes, whose
// losses are not counted).
func (w *World) Lost() int { return int(w.faults.lost) }

// Duplicated is the number of Duplicate actions taken: the duplication
// budget spent (at most Config.Duplicates).
func (w *World) Duplicated() int { return int(w.faults.duped) }

// sampleFaulty is Sample when a fault budget is in effect: it lists the
// enabled actions. While a Fail rank is alive, with probability CrashProb
// (1/N if 0), or when nothing else is enabled, one of them crashes; else,
// with probability CrashProb, a budget Crash or a Recover chosen uniformly
// among those enabled; else an action chosen uniformly among the others
// (Deliver, Lose, Duplicate, Detect, DetectRecover, Call, Fire, Clock and
// Tick: Actions lists Clock and LockStepRounds' Tick only when nothing
// else is enabled). It reports false exactly when s is quiescent.
func (m *Model) sampleFaulty(s *World, r *rand.Rand, buf []checker.Action) (checker.Action, bool) {
	if m.Quiescent(s) {
		return checker.Action{}, false
	}
	as := m.Actions(s, buf[:0])
	var fails, faults, work []checker.Action
	for _, a := range as {
		switch {
		case a.Kind == Crash && m.fail.Has(core.Rank(a.P)):
			fails = append(fails, a)
		case a.Kind == Crash || a.Kind == Recover:
			faults = append(faults, a)
		default:
			work = append(work, a)
		}
	}
	prob := m.cfg.CrashProb
	if len(fails) > 0 {
		p := prob
		if p == 0 {
			p = 1 / float64(m.cfg.N)
		}
		if len(work) == 0 || r.Float64() < p {
			return fails[r.IntN(len(fails))], true
		}
	}
	if len(faults) > 0 && prob > 0 && r.Float64() < prob {
		return faults[r.IntN(len(faults))], true
	}
	if len(work) == 0 {
		return checker.Action{}, false // only ignorable faults: not reached, Quiescent said no
	}
	return work[r.IntN(len(work))], true
}

// Broken variants of the fault budgets, for the tests that show the fault
// properties (faultprops.go) catch them; faultMutant is None except while
// such a test runs (SetFaultMutant).
const (
	// FaultRecoverFree restarts a process without spending the recovery
	// budget (its incarnation stays as it was).
	FaultRecoverFree mutant.Name = "fault-recover-free"
	// FaultRecoverVolatile restarts a process with its whole state as it
	// crashed, volatile part included, instead of its Recover().
	FaultRecoverVolatile mutant.Name = "fault-recover-volatile"
	// FaultLoseFree loses a message under LossAny without spending the
	// loss budget.
	FaultLoseFree mutant.Name = "fault-lose-free"
	// FaultDupTwice puts two copies in flight for one Duplicate.
	FaultDupTwice mutant.Name = "fault-dup-twice"
)

// FaultMutants are the broken variants of the fault budgets.
var FaultMutants = []mutant.Name{FaultRecoverFree, FaultRecoverVolatile, FaultLoseFree, FaultDupTwice}

var faultMutant mutant.Name

// SetFaultMutant turns a broken variant of the fault budgets (FaultMutants)
// on in every model, for tests (mutant.None: off), and returns the
// function that restores the previous one. No search may run while it is
// called.
func SetFaultMutant(name mutant.Name) (restore func()) {
	old := faultMutant
	faultMutant = name
	return func() { faultMutant = old }
}
