package env

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Placement (Config.Hosts) and the local detector (DetectorLocal).
//
// With Hosts, ranks form crash groups: a host and the ranks it hosts. A
// Crash of a host crashes every live member of its group in the same step;
// a Crash of a hosted rank crashes it alone. Either spends one crash of the
// budget, so the budget counts crash steps, not crashed ranks, and the
// world keeps (and encodes, after the clock) how many it has spent: "p
// crashed, then its host" and "the host crashed with p" have the same
// crashed set and different budgets left.
//
// A hosted rank among Config.Survivors takes no Crash action of its own
// but still dies with its host: processes that fail only with their node.
//
// DetectorLocal reports a crashed hosted rank r to its host h only: one
// Detect(h, r), pending (and, under BoundedDelay, due at once, as every
// detection) while h is alive. A host's own crash, and so its group's, is
// reported to no one.

// validateHosts checks Config.Hosts and the settings it combines with.
func (c *Config) validateHosts() error {
	if c.Hosts == nil {
		if c.Detector == DetectorLocal {
			return errors.New("DetectorLocal needs Config.Hosts (who observes whose crash)")
		}
		return nil
	}
	if len(c.Hosts) != c.N {
		return fmt.Errorf("env: Config.Hosts has %d entries, want N = %d", len(c.Hosts), c.N)
	}
	if len(c.Fail) > 0 {
		return errors.New("env: Config.Hosts does not combine with Fail (a group crash would crash Fail ranks outside their own action)")
	}
	for r, h := range c.Hosts {
		switch {
		case !h.Valid(c.N):
			return fmt.Errorf("env: Config.Hosts[%d] = %d out of range 0..%d", r, h, c.N-1)
		case int(h) != r && c.Hosts[h] != h:
			return fmt.Errorf("env: Config.Hosts[%d] = %v, which is itself hosted by %v", r, h, c.Hosts[h])
		}
	}
	return nil
}

// placement is the model's view of Config.Hosts: host[r] and, per host, the
// ranks it hosts (ascending). Both nil without Hosts.
type placement struct {
	host   []core.Rank
	hosted [][]core.Rank
}

func newPlacement(hosts []core.Rank) placement {
	if hosts == nil {
		return placement{}
	}
	pl := placement{host: append([]core.Rank(nil), hosts...), hosted: make([][]core.Rank, len(hosts))}
	for r, h := range hosts {
		if int(h) != r {
			pl.hosted[h] = append(pl.hosted[h], core.Rank(r))
		}
	}
	return pl
}

// group lists the ranks a Crash of p crashes: p, then (p a host) the live
// ranks it hosts.
func (m *Model) group(s *World, p core.Rank) []core.Rank {
	out := []core.Rank{p}
	if m.pl.host != nil {
		for _, r := range m.pl.hosted[p] {
			if !s.crashed.Has(r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// localPending counts the Detect actions DetectorLocal has pending at host
// i (with record p) given the crashed set: its crashed hosted ranks not yet
// reported to it. 0 under the other detectors and for a dead host.
func (m *Model) localPending(p *proc, i int, crashed core.RankSet) int64 {
	if m.cfg.Detector != DetectorLocal || !p.live {
		return 0
	}
	var n int64
	for _, r := range m.pl.hosted[i] {
		if crashed.Has(r) && !p.detected.Has(r) {
			n++
		}
	}
	return n
}

// appendLocalDetects appends host i's pending DetectorLocal actions, by
// ascending hosted rank.
func (m *Model) appendLocalDetects(s *World, i int, p *proc, buf []checker.Action) []checker.Action {
	if m.cfg.Detector != DetectorLocal || !p.live {
		return buf
	}
	for _, r := range m.pl.hosted[i] {
		if s.crashed.Has(r) && !p.detected.Has(r) {
			buf = append(buf, checker.Action{Kind: Detect, P: int32(i), Q: int32(r)})
		}
	}
	return buf
}

// reportable reports whether a Detect(p, q) may be pending at all under
// the model's detector: never with DetectorNone, only p = q's host with
// DetectorLocal.
func (m *Model) reportable(p, q core.Rank) bool {
	switch m.cfg.Detector {
	case DetectorNone:
		return false
	case DetectorLocal:
		return m.pl.host[q] != q && m.pl.host[q] == p
	}
	return true
}

// Spent is the number of crashes of the budget spent in w: crash steps of
// non-Fail ranks (with Config.Hosts a group crash is one).
func (w *World) Spent() int { return w.spent }

// worldWeighed reports whether a process's weight (agg) depends on the
// world beyond its own bytes: on the crashed set under LossOnCrash (a
// message from a crashed sender may be lost) and under DetectorLocal (a
// host's pending detections of its hosted ranks), and under CrashRecovery
// (a process's pending DetectRecover actions). Decode's process cache
// re-weighs a cached process in that case.
func (m *Model) worldWeighed() bool {
	return m.cfg.Loss == LossOnCrash || m.cfg.Detector == DetectorLocal || m.cfg.Faults == CrashRecovery
}
