package env

import (
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

var _ checker.Sampler[*World] = (*Model)(nil)

// Sample picks the next action of a random walk from s, in O(log N) plus
// the chosen process's inbox (plus O(N/64) for a detection), without listing
// all actions:
//
//   - while some Fail rank is alive, with probability CrashProb (1/N if
//     CrashProb is 0) one of them, chosen uniformly, crashes; it does anyway
//     when nothing else is enabled;
//   - otherwise, if the crash budget allows, with probability CrashProb a
//     live non-Fail process chosen uniformly crashes;
//   - otherwise an action chosen uniformly among the enabled Deliver, Lose,
//     Detect, Call and Fire actions;
//   - under BoundedDelay, a Tick when one is enabled, uniformly with them;
//   - when none is enabled, Tick if a timer waits for the next round
//     (LockStepRounds) or for a later tick (BoundedDelay), else Clock if a
//     Config.Wakeups entry is left.
//
// It reports false exactly when s is quiescent (Model.Quiescent): the walk
// is over, even if budget crashes are still enabled. buf is scratch space.
// With a fault budget (CrashRecovery, LossAny, Duplicates) it lists the
// enabled actions instead (sampleFaulty).
func (m *Model) Sample(s *World, r *rand.Rand, buf []checker.Action) (checker.Action, bool) {
	if m.faulty() {
		return m.sampleFaulty(s, r, buf) // faults.go
	}
	c := m.detc(s)
	work := s.root.sum.work(c)
	if failLeft := len(m.cfg.Fail) - s.nfail; failLeft > 0 {
		prob := m.cfg.CrashProb
		if prob == 0 {
			prob = 1 / float64(m.cfg.N)
		}
		if work == 0 || r.Float64() < prob {
			k := r.IntN(failLeft)
			for _, f := range m.cfg.Fail {
				if !s.crashed.Has(f) {
					if k == 0 {
						return checker.Action{Kind: Crash, P: int32(f)}, true
					}
					k--
				}
			}
		}
	}
	if m.cfg.CrashProb > 0 && m.budget(s) {
		liveFail := int64(len(m.cfg.Fail) - s.nfail)
		liveSurv := int64(0)
		m.survive.Each(func(q core.Rank) {
			if !s.crashed.Has(q) {
				liveSurv++
			}
		})
		if live := s.root.sum.live; live > liveFail+liveSurv && (work > 0 || m.clockDue(s) || m.tickDue(s)) && r.Float64() < m.cfg.CrashProb {
			return m.sampleCrash(s, r, live, liveFail+liveSurv), true
		}
	}
	if m.timed() && work > 0 && m.tickDue(s) && r.Int64N(work+1) == work {
		return checker.Action{Kind: Tick}, true // uniform among the enabled non-crash actions
	}
	if work == 0 {
		if m.tickDue(s) {
			return checker.Action{Kind: Tick}, true
		}
		if m.clockDue(s) {
			return checker.Action{Kind: Clock}, true
		}
		return checker.Action{}, false // quiescent: the walk is over
	}
	i, k := pick(s.root, m.height, r.Int64N(work), func(a agg) int64 { return a.work(c) })
	p := get(s.root, m.height, i)
	if k < p.agg.w {
		if m.cfg.Network == Unordered && !m.timed() && k < int64(len(p.inbox)) { // a Deliver, found directly
			e := p.inbox[k]
			lo, _ := senderRange(p.inbox, e.from)
			return checker.Action{Kind: Deliver, P: int32(i), Q: int32(e.from), I: int32(k) - int32(lo)}, true
		}
		return m.local(s, i, p, buf[:0])[k], true
	}
	k -= p.agg.w
	var out checker.Action
	s.crashed.Each(func(q core.Rank) {
		if !p.detected.Has(q) {
			if k == 0 {
				out = checker.Action{Kind: Detect, P: int32(i), Q: int32(q)}
			}
			k--
		}
	})
	return out, true
}

// sampleCrash picks a live process that is neither a Fail rank nor a
// survivor uniformly (excl of them are alive): by rejection while those are
// a minority of the live, by a scan otherwise.
func (m *Model) sampleCrash(s *World, r *rand.Rand, live, excl int64) checker.Action {
	isLive := func(a agg) int64 { return a.live }
	liveFail := excl
	if liveFail*2 <= live {
		for {
			i, _ := pick(s.root, m.height, r.Int64N(live), isLive)
			if !m.fail.Has(core.Rank(i)) && !m.survive.Has(core.Rank(i)) {
				return checker.Action{Kind: Crash, P: int32(i)}
			}
		}
	}
	k := r.Int64N(live - liveFail)
	var out checker.Action
	each(s.root, m.height, 0, func(i int, p *proc) bool {
		if p.live && !m.fail.Has(core.Rank(i)) && !m.survive.Has(core.Rank(i)) {
			if k == 0 {
				out = checker.Action{Kind: Crash, P: int32(i)}
				return false
			}
			k--
		}
		return true
	})
	return out
}
