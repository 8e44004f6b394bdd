package era

import "github.com/ftkernel/ftkernel/checker"

// Ignorable declares that no action of the benchmark may remain enabled in
// a quiescent world: its only crashes are the kills of the faulty ranks
// (Figure 3, lines 10–13), which every run owes (Quiescent waits for
// them). It overrides env.Model's declaration, under which a budget crash
// is ignorable; envtest.Quiescence (TestULFMBenchQuiescence) keeps the two
// in agreement.
func (m *ULFMBench) Ignorable(checker.Action) bool { return false }
