package env

import (
	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Actions appends the actions enabled in s to buf, sorted by (Kind, P, Q, I):
// every Deliver, then every Lose, Crash, Detect, Call, Fire, Clock, Tick,
// Recover, DetectRecover and Duplicate.
// Under BoundedDelay only messages whose window is open and timers due now
// are enabled. Identical messages
// (same sender, receiver and bytes) give one Deliver (and one Lose). O(N +
// messages + pending detections).
func (m *Model) Actions(s *World, buf []checker.Action) []checker.Action {
	h := m.height
	fifo := m.cfg.Network == FIFO
	for _, kind := range []uint8{Deliver, Lose} {
		if kind == Lose && m.cfg.Loss == LossAny {
			if m.mayLose(s, core.NoRank) {
				buf = m.appendAnyEntry(s, Lose, buf) // lossdup.go
			}
			continue
		}
		if kind == Lose && (m.cfg.Loss != LossOnCrash || s.ncrash == 0) {
			continue
		}
		each(s.root, h, 0, func(i int, p *proc) bool {
			if !p.live {
				return true
			}
			run, prev := int32(0), core.NoRank
			for _, e := range p.inbox {
				if e.from != prev {
					run, prev = 0, e.from
				} else if fifo {
					continue
				}
				if !m.open(&e) {
					run++
					continue
				}
				if kind == Deliver || s.crashed.Has(e.from) {
					buf = append(buf, checker.Action{Kind: kind, P: int32(i), Q: int32(e.from), I: run})
				}
				run++
			}
			return true
		})
	}
	budget := m.budget(s)
	if budget || !m.fail.Empty() {
		each(s.root, h, 0, func(i int, p *proc) bool {
			if p.live && ((budget && !m.survive.Has(core.Rank(i))) || m.fail.Has(core.Rank(i))) {
				buf = append(buf, checker.Action{Kind: Crash, P: int32(i)})
			}
			return true
		})
	}
	if s.ncrash > 0 && m.cfg.Detector == DetectorLocal {
		each(s.root, h, 0, func(i int, p *proc) bool {
			buf = m.appendLocalDetects(s, i, p, buf)
			return true
		})
	}
	if s.ncrash > 0 && m.cfg.Detector == DetectorPerfect {
		each(s.root, h, 0, func(i int, p *proc) bool {
			if p.live && (int(p.ndet) < s.ncrash || m.cfg.Faults == CrashRecovery) { // CrashRecovery: p may have been told of restarted peers
				s.crashed.Each(func(q core.Rank) {
					if !p.detected.Has(q) {
						buf = append(buf, checker.Action{Kind: Detect, P: int32(i), Q: int32(q)})
					}
				})
			}
			return true
		})
	}
	sched := m.sched[s.alt]
	each(s.root, h, 0, func(i int, p *proc) bool {
		if m.callable(p, len(sched[i])) {
			buf = append(buf, checker.Action{Kind: Call, P: int32(i)})
		}
		return true
	})
	each(s.root, h, 0, func(i int, p *proc) bool {
		if p.live {
			for j, id := range p.timers {
				if p.due == nil || p.due[j] == 0 {
					buf = append(buf, checker.Action{Kind: Fire, P: int32(i), I: int32(id)})
				}
			}
		}
		return true
	})
	if m.clockDue(s) {
		buf = append(buf, checker.Action{Kind: Clock})
	}
	if m.tickDue(s) {
		buf = append(buf, checker.Action{Kind: Tick})
	}
	buf = m.appendRecovers(s, buf) // recovery.go
	if int(s.faults.duped) < m.cfg.Duplicates {
		buf = m.appendAnyEntry(s, Duplicate, buf) // lossdup.go
	}
	return buf
}

// local appends p's enabled Deliver, Lose, Call and Fire actions, then its
// DetectorLocal Detect actions (not the perfect detector's Detect, nor
// Crash), as many as p.agg.w, in canonical order.
func (m *Model) local(s *World, i int, p *proc, buf []checker.Action) []checker.Action {
	fifo := m.cfg.Network == FIFO
	start := len(buf)
	run, prev := int32(0), core.NoRank
	for _, e := range p.inbox {
		if e.from != prev {
			run, prev = 0, e.from
		} else if fifo {
			continue
		}
		if m.open(&e) {
			buf = append(buf, checker.Action{Kind: Deliver, P: int32(i), Q: int32(e.from), I: run})
		}
		run++
	}
	if m.cfg.Loss == LossOnCrash {
		for _, a := range buf[start:] {
			if s.crashed.Has(core.Rank(a.Q)) {
				a.Kind = Lose
				buf = append(buf, a)
			}
		}
	}
	if m.callable(p, len(m.sched[s.alt][i])) {
		buf = append(buf, checker.Action{Kind: Call, P: int32(i)})
	}
	for j, id := range p.timers {
		if p.due == nil || p.due[j] == 0 {
			buf = append(buf, checker.Action{Kind: Fire, P: int32(i), I: int32(id)})
		}
	}
	return m.appendLocalDetects(s, i, p, buf)
}
