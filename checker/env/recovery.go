package env

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Crash-recovery (Faults CrashRecovery, Config.Recoveries = R).
//
// Every node must be a core.Recoverable: its Recover() is the node as it
// restarts, with what it keeps on stable storage and everything volatile
// reset. A crash is as under CrashStop (Crashes bounds the crash steps in
// a run, restarted processes' crashes included; the crashed node's last
// state is kept), and a crashed process p may restart while fewer than R
// restarts have happened: the action Recover(p)
//
//   - replaces p's node by its Recover() and steps it with core.Restart()
//     (EvRestart), whose effects are carried out as any step's (it may
//     re-arm timers and send);
//   - starts p with an empty inbox and no timer: messages to a crashed
//     process are lost (those in flight at its crash are removed by the
//     crash, later ones dropped at their send), so nothing sent to p
//     while it was down reaches its new incarnation. Messages p sent
//     before its crash stay in flight and may still be delivered, as
//     under CrashStop;
//   - keeps p's calls made (an input is given once) and clears its
//     awaiting flag (a blocking call interrupted by the crash never
//     returns; p may make its next call), keeps its history (what it
//     output happened);
//   - clears what p was told of crashes (World.Detected): the detector
//     reports to the new incarnation every process then crashed, one
//     Detect each, as to any live process;
//   - adds one to p's incarnation (World.Incarnation) and to the restarts
//     spent (World.Recoveries).
//
// Detector. Under DetectorPerfect a restart is reported as a crash is: to
// every live process r that was told p is dead, one DetectRecover(r, p)
// action steps r with core.Recovered(p) (EvRecovered) and clears
// Detected(r, p). A process's view of p thus follows p's state: a Detect
// while p is down, a DetectRecover while p is up and r still believes it
// down. Recover(p) is enabled only once every live process has been told
// of p's crash (no Detect(·, p) pending): a live process never misses a
// restart, and sees every incarnation of p as Suspect then Recovered
// (when p crashes again before r is told of its restart, r's view stays
// "dead", which is right again, and the restart it missed ends in a
// crash it was not told of either). Under DetectorNone there is no
// report. Detections are due at once under BoundedDelay, restarts never
// (like crashes, they happen at any step and take no time).
//
// Quiescence. Recover is a fault, not work: like a budget crash it is
// Ignorable and may be left enabled in a quiescent world; pending
// DetectRecover actions are work.
//
// Not with Fail, Hosts or ForgetCrashed (validateFaults says why).

// checkRecoverable is New's check of CrashRecovery: every initial node
// must be a core.Recoverable.
func checkRecoverable(cfg *Config, nodes []core.Machine) error {
	if cfg.Faults != CrashRecovery {
		return nil
	}
	for p, n := range nodes {
		if _, ok := n.(core.Recoverable); !ok {
			return fmt.Errorf("%w: CrashRecovery: the node of %v (%T) is not a core.Recoverable", ErrConfig, core.Rank(p), n)
		}
	}
	return nil
}

// recoverBlocked says why Recover(p) is not enabled in s ("" when it is).
func (m *Model) recoverBlocked(s *World, p core.Rank) string {
	switch {
	case m.cfg.Faults != CrashRecovery:
		return "processes restart only under CrashRecovery"
	case !s.crashed.Has(p):
		return fmt.Sprintf("%v has not crashed", p)
	case int(s.faults.recovered) >= m.cfg.Recoveries:
		return fmt.Sprintf("recovery budget %d spent", m.cfg.Recoveries)
	case m.cfg.Detector == DetectorPerfect && !m.crashReported(s, p):
		return fmt.Sprintf("a live process has not been told that %v crashed", p)
	}
	return ""
}

// crashReported reports whether every live process has been told that p
// is dead.
func (m *Model) crashReported(s *World, p core.Rank) bool {
	ok := true
	each(s.root, m.height, 0, func(_ int, r *proc) bool {
		if r.live && !r.detected.Has(p) {
			ok = false
		}
		return ok
	})
	return ok
}

// applyRecover applies Recover(p) (a.P = p, validated) from s into nw.
func (m *Model) applyRecover(s *World, a checker.Action, nw *World, t *tx) (*World, error) {
	p := core.Rank(a.P)
	if a.Q != 0 || a.I != 0 {
		return nil, notEnabled(a, "malformed recover action")
	}
	if why := m.recoverBlocked(s, p); why != "" {
		return nil, notEnabled(a, why)
	}
	mp := t.mut(int(p))
	if faultMutant != FaultRecoverVolatile {
		rec, ok := mp.node.(core.Recoverable)
		if !ok {
			return nil, &StepError{Action: a, Rank: p, Event: core.Restart(), Err: fmt.Errorf("%T is not a core.Recoverable", mp.node)}
		}
		node := rec.Recover()
		if node == nil {
			return nil, &StepError{Action: a, Rank: p, Event: core.Restart(), Err: fmt.Errorf("the node's Recover returned nil")}
		}
		ns := m.intern(p, node)
		mp.ns, mp.node = ns, ns.node
	}
	mp.live, mp.awaiting = true, false
	mp.inbox, mp.timers, mp.next, mp.due = nil, nil, nil, nil
	mp.detected, mp.ndet = core.RankSet{}, 0
	nw.crashed = s.crashed.Clone()
	nw.crashed.Remove(p)
	nw.ncrash--
	if faultMutant != FaultRecoverFree {
		inc := s.faults.inc
		if inc == nil {
			inc = make([]int32, m.cfg.N)
		} else {
			inc = slices.Clone(inc)
		}
		inc[p]++
		nw.faults.inc = inc
		nw.faults.recovered++
	}
	m.touchTold(s, t, p)
	if err := m.run(nw, t, a, p, core.Restart(), ""); err != nil {
		return nil, err
	}
	m.commit(t, nw)
	nw.root = t.root
	return nw, nil
}

// touchTold makes t own every live process of s that was told q is dead:
// a crash or restart of q changes its pending notifications (its weight).
func (m *Model) touchTold(s *World, t *tx, q core.Rank) {
	if m.cfg.Detector != DetectorPerfect {
		return
	}
	each(s.root, m.height, 0, func(i int, r *proc) bool {
		if r.live && r.detected.Has(q) && core.Rank(i) != q {
			t.mut(i)
		}
		return true
	})
}

// told splits what live process p was told: det, the crashed processes it
// was told are dead, and back, those it was told are dead that have
// restarted since (its pending DetectRecover actions).
func told(p *proc, crashed core.RankSet) (det, back int64) {
	p.detected.Each(func(q core.Rank) {
		if crashed.Has(q) {
			det++
		} else {
			back++
		}
	})
	return det, back
}

// appendRecovers appends the enabled Recover actions, then the
// DetectRecover actions, in (P, Q) order.
func (m *Model) appendRecovers(s *World, buf []checker.Action) []checker.Action {
	if m.cfg.Faults != CrashRecovery {
		return buf
	}
	s.crashed.Each(func(p core.Rank) {
		if m.recoverBlocked(s, p) == "" {
			buf = append(buf, checker.Action{Kind: Recover, P: int32(p)})
		}
	})
	each(s.root, m.height, 0, func(i int, p *proc) bool {
		if p.live && p.ndet > 0 {
			p.detected.Each(func(q core.Rank) {
				if !s.crashed.Has(q) {
					buf = append(buf, checker.Action{Kind: DetectRecover, P: int32(i), Q: int32(q)})
				}
			})
		}
		return true
	})
	return buf
}

// applyDetectRecover applies DetectRecover(p, q) to nw (p live, its record
// pp in s).
func (m *Model) applyDetectRecover(s *World, a checker.Action, nw *World, t *tx, pp *proc) error {
	p, q := core.Rank(a.P), core.Rank(a.Q)
	if m.cfg.Faults != CrashRecovery || a.I != 0 || !q.Valid(m.cfg.N) || s.crashed.Has(q) || !pp.detected.Has(q) {
		return notEnabled(a, fmt.Sprintf("no pending notification that %v restarted", q))
	}
	mp := t.mut(int(p))
	mp.detected = mp.detected.Clone()
	mp.detected.Remove(q)
	mp.ndet--
	return m.run(nw, t, a, p, core.Recovered(q), "")
}
