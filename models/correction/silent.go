package correction

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	sm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// ColoredSilentName is the name of the ColoredSilent property, as ftcheck
// --property takes it.
const ColoredSilentName = "correction-colored-silent"

// ColoredSilent is the transition property correction-colored-silent over
// worlds of statemachine/correction nodes whose config has the given Early
// rule (Küttler et al., PPoPP'19 §3.1 "Processes that become colored during
// correction do not send any messages", §3.3 "processes receiving early
// correction do not participate in the correction phase themselves"): a
// process whose first coloring message was a correction message sends no
// correction message, ever; with early = EarlySilent it sends no message at
// all (with EarlyForwards, §3.3's "still sends tree messages to its
// children", only TREE messages).
//
// It is checked on every edge and reads only the step (checker.ReadsStep):
// the action, the actor's state before and after, its inbox from the
// sender, and the step's effects. The coloring cause is not taken from the
// machine's word alone: on the step that colors a process the property
// finds the delivered message itself (the copy from the action's sender
// that left the actor's inbox) and checks that Node.Via names its kind (a
// Broadcast call for the root), and on every later step that Via does not
// change; so a node that misreports its cause fails here too.
func ColoredSilent(early sm.EarlyRule) checker.Property[*env.World] {
	doc := "a process whose first coloring message was a correction message sends no correction message (§3.3)"
	if early == sm.EarlySilent {
		doc = "a process whose first coloring message was a correction message sends nothing, ever (§3.1)"
	}
	return checker.Property[*env.World]{
		Name: ColoredSilentName, Kind: checker.Transition, Doc: doc, Reads: checker.ReadsStep,
		CheckStep: func(prev *env.World, a checker.Action, next *env.World) error {
			return coloredSilent(early, prev, a, next)
		},
	}
}

func coloredSilent(early sm.EarlyRule, prev *env.World, a checker.Action, next *env.World) error {
	p := next.LastActor()
	if p == core.NoRank {
		return nil
	}
	before, _ := prev.Node(p).(*sm.Node)
	after, _ := next.Node(p).(*sm.Node)
	if before == nil || after == nil {
		return fmt.Errorf("%v is not a corrected-broadcast node", p)
	}
	switch {
	case before.Colored() && after.Via() != before.Via():
		return fmt.Errorf("%v was colored by %v, now says %v", p, before.Via(), after.Via())
	case !before.Colored() && after.Colored():
		want, err := coloringCause(prev, a, next, p)
		if err != nil {
			return err
		}
		if after.Via() != want {
			return fmt.Errorf("%v was colored by a %v step, but says %v", p, want, after.Via())
		}
	}
	if after.Via() != sm.ViaCorrection {
		return nil
	}
	for _, e := range next.LastEffects() {
		if e.Kind != core.EffSend {
			continue
		}
		m, _ := e.Msg.(*sm.Msg)
		if m == nil || !m.IsTree() || early == sm.EarlySilent {
			return fmt.Errorf("%v, colored by a correction message, sent %v to %v (early rule %v)", p, e.Msg, e.To, early)
		}
	}
	return nil
}

// coloringCause is how the step a colored p, read from the world: a
// Broadcast call (ViaRoot), or the delivery of the message from a.Q that is
// in p's inbox before the step and not after (ViaTree or ViaCorrection by
// its kind).
func coloringCause(prev *env.World, a checker.Action, next *env.World, p core.Rank) (sm.Via, error) {
	switch a.Kind {
	case env.Call:
		return sm.ViaRoot, nil
	case env.Deliver:
	default:
		return 0, fmt.Errorf("%v was colored by a %s action", p, env.KindName(a.Kind))
	}
	from := core.Rank(a.Q)
	count := map[string]int{}
	msgs := map[string]core.Message{}
	for _, e := range prev.InFlight() {
		if e.To == p && e.From == from {
			k := string(e.Msg.AppendBinary(nil))
			count[k]++
			msgs[k] = e.Msg
		}
	}
	for _, e := range next.InFlight() {
		if e.To == p && e.From == from {
			count[string(e.Msg.AppendBinary(nil))]--
		}
	}
	for k, c := range count {
		if c != 1 {
			continue
		}
		m, _ := msgs[k].(*sm.Msg)
		switch {
		case m == nil:
			return 0, fmt.Errorf("%v was colored by a foreign message %v", p, msgs[k])
		case m.IsTree():
			return sm.ViaTree, nil
		}
		return sm.ViaCorrection, nil
	}
	return 0, fmt.Errorf("%v was colored by a delivery from %v, but no message from %v left its inbox", p, from, from)
}
