package env

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Describe says what taking a in s does, computed by applying it, such as
// "p1 receives UP(a=0, v=1) from p3 → sends DOWN(a=0, v=1) to p6, p7;
// decides 1 (a=0)", "p2 crashes", "p0 learns p2 is dead", "p4 calls
// Agreement(v=1, a=0)", "the network loses UP(a=0, v=1) from p3 to p1",
// "p2's timer 1 fires → sends …", "the clock arms timer 2 at every live
// process". An
// action that fails ends with " → error: …".
func (m *Model) Describe(s *World, a checker.Action) string {
	p, q := core.Rank(a.P), core.Rank(a.Q)
	var head string
	switch a.Kind {
	case Deliver, Lose, Duplicate:
		msg := fmt.Sprintf("message %d", a.I)
		if mm, ok := s.Message(a); ok {
			msg = mm.String()
		}
		switch a.Kind {
		case Deliver:
			head = fmt.Sprintf("%v receives %s from %v", p, msg, q)
		case Lose:
			head = fmt.Sprintf("the network loses %s from %v to %v", msg, q, p)
		default:
			head = fmt.Sprintf("the network duplicates %s from %v to %v", msg, q, p)
		}
	case Recover:
		head = fmt.Sprintf("%v restarts from its stable storage", p)
	case DetectRecover:
		head = fmt.Sprintf("%v learns %v restarted", p, q)
	case Crash:
		head = fmt.Sprintf("%v crashes", p)
	case Detect:
		head = fmt.Sprintf("%v learns %v is dead", p, q)
	case Fire:
		head = fmt.Sprintf("%v's timer %d fires", p, a.I)
	case Clock:
		id := "?"
		if s.clock < len(m.cfg.Wakeups) {
			id = fmt.Sprint(m.cfg.Wakeups[s.clock])
		}
		head = fmt.Sprintf("the clock arms timer %s at every live process", id)
	case Tick:
		head = "a new round: the timers armed for it fire from now on"
		if m.timed() {
			head = fmt.Sprintf("the clock advances to tick %d", s.now+1)
		}
	case Call:
		in := "its next call"
		if p.Valid(m.cfg.N) {
			if pend := s.PendingCalls(p); len(pend) > 0 {
				in = pend[0].String()
			}
		}
		head = fmt.Sprintf("%v calls %s", p, in)
	default:
		head = fmt.Sprintf("%s %v", KindName(a.Kind), a)
	}
	next, err := m.Apply(s, a)
	if err != nil {
		return head + " → error: " + err.Error()
	}
	if eff := describeEffects(next.effects); eff != "" {
		return head + " → " + eff
	}
	return head
}

// describeEffects formats effects as "sends M to p1, p2; decides 1 (a=0)",
// grouping consecutive sends of the same message.
func describeEffects(effs []core.Effect) string {
	var parts []string
	for i := 0; i < len(effs); i++ {
		e := effs[i]
		switch e.Kind {
		case core.EffSend:
			msg := e.Msg.String()
			to := []string{e.To.String()}
			for i+1 < len(effs) && effs[i+1].Kind == core.EffSend && effs[i+1].Msg.String() == msg {
				i++
				to = append(to, effs[i].To.String())
			}
			parts = append(parts, fmt.Sprintf("sends %s to %s", msg, strings.Join(to, ", ")))
		case core.EffDecide:
			parts = append(parts, fmt.Sprintf("decides %v (a=%d)", e.Value, e.Instance))
		case core.EffReturn:
			parts = append(parts, fmt.Sprintf("returns %v (a=%d)", e.Value, e.Instance))
		case core.EffDeliver:
			parts = append(parts, fmt.Sprintf("delivers %v (a=%d)", e.Value, e.Instance))
		case core.EffSuspect:
			parts = append(parts, fmt.Sprintf("suspects %v", e.Peer))
		case core.EffSetTimer:
			parts = append(parts, fmt.Sprintf("arms timer %d", e.Timer))
		default:
			parts = append(parts, e.String())
		}
	}
	return strings.Join(parts, "; ")
}
