package env

import (
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// PersistentMutants are the broken variants of Persistent's rules.
var PersistentMutants = []mutant.Name{mutNoCrashRule, mutNoDue, mutNoLostSender, mutDirectSendersOnly, mutAbsorbAny}

// PersistentNoAbsorb turns the absorbed-delivery rule off (not broken: a
// test compares the two).
const PersistentNoAbsorb = mutNoAbsorb

// SetPersistentMutant turns a broken variant of Persistent's rules on
// (None: off) and returns the function that restores the previous one.
func SetPersistentMutant(name mutant.Name) func() {
	old := persistMutant
	persistMutant = name
	return func() { persistMutant = old }
}

// ToyMaySend is the may-send relation of the toy protocols of
// SoundnessToys, read off their Step functions (toy_test.go,
// timer_test.go):
//
//   - flood sends only on a call, to every process: p may send to anyone
//     while it has a call left;
//   - star: a call sends to p0 only, and p0 sends DEC to everyone when it
//     decides (on a call, a VAL or a suspicion) an instance not yet
//     decided; p0 may therefore send to anyone while it has an undecided
//     instance, some process has a call left or a message is in flight to
//     it (a VAL may create an instance), the others to p0 while they have
//     a call left;
//   - ticker sends TICK to its successor (p+1 mod n), on its timer.
func ToyMaySend(w *World, p, r core.Rank) bool {
	switch t := w.Node(p).(type) {
	case *toy:
		calls := len(w.PendingCalls(p)) > 0
		if !t.star {
			return calls
		}
		if p != 0 {
			return calls && r == 0
		}
		for _, s := range t.insts {
			if !s.decided {
				return true
			}
		}
		// A VAL of an instance p0 has not seen yet (from a call left
		// anywhere, or in flight) creates it, and p0 may decide it.
		for q := range w.N() {
			if len(w.PendingCalls(core.Rank(q))) > 0 {
				return true
			}
		}
		for _, e := range w.InFlight() {
			if e.To == 0 {
				return true
			}
		}
		return false
	case *ticker:
		return int(r) == (int(p)+1)%t.n
	}
	return true
}

// NoSend is a planted unsound relation: nobody ever sends. The guard
// tests must catch it.
func NoSend(*World, core.Rank, core.Rank) bool { return false }

// PersistentCrashAbsorbs is the conservative crash rule of before
// condition 1a (persistCrashAbsorbs).
const PersistentCrashAbsorbs = persistCrashAbsorbs

// PersistentAbsorbNoCrash is the absorbed-delivery rule of before the
// receiver was allowed to crash (persistAbsorbNoCrash).
const PersistentAbsorbNoCrash = persistAbsorbNoCrash
