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
// the action, the actor's state before and after, the message the action
// delivers, and the step's effects. The coloring cause is not taken from the
// machine's word alone: on the step that colors a process the property
// finds the delivered message itself (env World.Message of the action in
// the world before) and checks that Node.Via names its kind (a
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
// Broadcast call (ViaRoot), or the delivery of the message a takes from
// p's inbox in prev (env World.Message), ViaTree or ViaCorrection by its
// kind. (It reads the action's own message, not the difference of the
// inboxes: with env.Config.DropAbsorbed the step that colors p also
// removes the messages p absorbs from then on.)
func coloringCause(prev *env.World, a checker.Action, _ *env.World, p core.Rank) (sm.Via, error) {
	switch a.Kind {
	case env.Call:
		return sm.ViaRoot, nil
	case env.Deliver:
	default:
		return 0, fmt.Errorf("%v was colored by a %s action", p, env.KindName(a.Kind))
	}
	msg, ok := prev.Message(a)
	if !ok || core.Rank(a.P) != p {
		return 0, fmt.Errorf("%v was colored by a delivery from %v, but no such message was in its inbox", p, core.Rank(a.Q))
	}
	m, _ := msg.(*sm.Msg)
	switch {
	case m == nil:
		return 0, fmt.Errorf("%v was colored by a foreign message %v", p, msg)
	case m.IsTree():
		return sm.ViaTree, nil
	}
	return sm.ViaCorrection, nil
}
