package ringfd

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// The properties checked at the end of every run. A
// run's Reported sets only grow, so checking them on the final states checks
// every prefix too, as far as accuracy and integrity go; completeness,
// agreement and ring repair are checked at the horizon, which Run sets after
// every crash has had time to be detected and broadcast.
const (
	PropCompleteness = "strong-completeness"
	PropAccuracy     = "strong-accuracy"
	PropRingRepair   = "ring-repair"
	PropValidity     = "rb-validity"
	PropAgreement    = "rb-agreement"
	PropIntegrity    = "rb-integrity"
	PropForwardOnce  = "forward-at-most-once"
)

// Properties lists the property names in the order they are checked.
var Properties = []string{PropCompleteness, PropAccuracy, PropRingRepair, PropValidity,
	PropAgreement, PropIntegrity, PropForwardOnce}

// violate records the first witness of a broken property; later ones of
// the same property are counted, not listed.
func (s *sim) violate(prop, format string, args ...any) {
	for _, v := range s.res.Violations {
		if strings.HasPrefix(v, prop+":") {
			s.extra[prop]++
			return
		}
	}
	s.res.Violations = append(s.res.Violations, prop+": "+fmt.Sprintf(format, args...))
}

// noteExtra appends "(and k more)" to each property with more witnesses.
func (s *sim) noteExtra() {
	for i, v := range s.res.Violations {
		prop, _, _ := strings.Cut(v, ":")
		if k := s.extra[prop]; k > 0 {
			s.res.Violations[i] = fmt.Sprintf("%s (and %d more)", v, k)
		}
	}
}

// live reports whether rank r is alive at the end and, for a process, its
// daemon too (the entities completeness speaks of).
func (s *sim) live(r core.Rank) bool {
	if s.dead[r] {
		return false
	}
	return s.cfg.IsDaemon(r) || !s.dead[s.cfg.Host(r)]
}

func (s *sim) finish() {
	c := &s.cfg
	// Failed ids: the crashed ranks (a crashed daemon's processes are
	// crashed ranks too).
	var failed core.RankSet
	for r := range s.dead {
		if s.dead[r] {
			failed.Add(core.Rank(r))
		}
	}
	// Detection latency.
	s.res.DetectionLatency = 0
	for r, at := range s.crashT {
		d, ok := s.res.Detections[r]
		if !ok {
			s.res.DetectionLatency = -1
			break
		}
		s.res.DetectionLatency = max(s.res.DetectionLatency, int64(d.T)-int64(at))
	}
	// Strong completeness and propagation latency.
	complete := true
	for r := range s.ms {
		if !s.live(core.Rank(r)) {
			continue
		}
		missing := core.RankSet{}
		failed.Each(func(x core.Rank) {
			if !knows(s.ms[r], x) {
				missing.Add(x)
			}
		})
		if !missing.Empty() {
			complete = false
			s.violate(PropCompleteness, "%v never learned that %v failed", core.Rank(r), missing)
			break
		}
	}
	s.res.PropagationLatency = -1
	if complete && len(s.crashT) > 0 {
		s.res.PropagationLatency = int64(s.lastLearn) - int64(s.firstCrash)
	} else if len(s.crashT) == 0 {
		s.res.PropagationLatency = 0
	}
	// Strong accuracy: no live rank in any Reported (dead or alive).
	// Integrity: only suspected ranks, and the processes of suspected
	// daemons, are ever reported.
	var suspected core.RankSet
	for _, r := range slices.Sorted(maps.Keys(s.res.Detections)) {
		suspected.Add(r)
		if c.IsDaemon(r) {
			suspected = suspected.Union(c.Hosted(r))
		}
	}
	for r, m := range s.ms {
		eachReported(m, func(x core.Rank) {
			if !s.dead[x] {
				s.violate(PropAccuracy, "live %v is in Reported of %v", x, core.Rank(r))
			}
			if !suspected.Has(x) {
				s.violate(PropIntegrity, "%v is in Reported of %v but nobody suspected it", x, core.Rank(r))
			}
		})
	}
	// Reliable broadcast: agreement over the live daemons and the processes
	// of live daemons; validity for what a live initiator suspected.
	var anyKnown core.RankSet
	for r := range s.ms {
		if s.live(core.Rank(r)) {
			eachReported(s.ms[r], func(x core.Rank) { anyKnown.Add(x) })
		}
	}
	for r := range s.ms {
		if !s.live(core.Rank(r)) {
			continue
		}
		var missing core.RankSet
		anyKnown.Each(func(x core.Rank) {
			if !knows(s.ms[r], x) {
				missing.Add(x)
			}
		})
		if !missing.Empty() {
			s.violate(PropAgreement, "%v misses %v that another live entity knows", core.Rank(r), missing)
			break
		}
	}
	for _, x := range slices.Sorted(maps.Keys(s.res.Detections)) {
		det := s.res.Detections[x]
		if s.dead[det.By] {
			continue
		}
		for r := range s.ms {
			if s.live(core.Rank(r)) && !knows(s.ms[r], x) {
				s.violate(PropValidity, "%v suspected %v and stayed alive, but %v never learned it", det.By, x, core.Rank(r))
				break
			}
		}
	}
	s.checkRing()
	s.checkLinks()
	s.noteExtra()
}

func eachReported(m core.Machine, f func(core.Rank)) {
	switch n := m.(type) {
	case *fd.Daemon:
		n.EachReported(f)
	case *fd.Process:
		n.EachReported(f)
	}
}

// checkRing is ring repair (P10): every live daemon observes its closest
// live predecessor in ring order and is that daemon's observer.
func (s *sim) checkRing() {
	c := &s.cfg
	for d := 0; d < c.N; d++ {
		if s.dead[d] {
			continue
		}
		want := c.RingPred(core.Rank(d))
		for want != core.Rank(d) && s.dead[want] {
			want = c.RingPred(want)
		}
		if want == core.Rank(d) {
			want = core.NoRank
		}
		n := s.ms[d].(*fd.Daemon)
		if n.Pred() != want {
			s.violate(PropRingRepair, "%v observes %v, want its closest live predecessor %v", core.Rank(d), n.Pred(), want)
			return
		}
		if want != core.NoRank && s.ms[want].(*fd.Daemon).Obs() != core.Rank(d) {
			s.violate(PropRingRepair, "%v sends heartbeats to %v, not to its live successor %v", want,
				s.ms[want].(*fd.Daemon).Obs(), core.Rank(d))
			return
		}
	}
}

// checkLinks is §4.6 (3), "every daemon forwards the message once, ensuring
// that all edges of the BMG will carry exactly one message per detection":
// with a single failure under the paper's BMG (distinct neighbours), every
// arc from a live daemon to a BMG neighbour carries exactly one Fault, and no
// other arc carries any.
func (s *sim) checkLinks() {
	if len(s.crashT) != 1 || s.p.BMG != fd.BMGPaper || s.p.LiteralLoop || s.stop != "" {
		return
	}
	ref := s.p.Config()
	ref.Mutant = ""
	rc, err := fd.Normalize(ref)
	if err != nil {
		return
	}
	want := 0
	for i := 0; i < rc.N; i++ {
		if s.dead[i] {
			continue
		}
		for _, t := range rc.Targets(core.Rank(i), core.RankSet{}) {
			want++
			if got := s.arcs[[2]int32{int32(i), int32(t)}]; got != 1 {
				s.violate(PropForwardOnce, "BMG link %v→%v carried %d Fault messages, want 1", core.Rank(i), t, got)
				return
			}
		}
	}
	if got := len(s.arcs); got != want {
		s.violate(PropForwardOnce, "%d arcs carried Fault messages, the BMG has %d from live daemons", got, want)
	}
}
