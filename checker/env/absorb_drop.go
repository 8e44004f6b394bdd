package env

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Dropping absorbed messages (Config.DropAbsorbed): a state reduction that
// removes worlds.
//
// A message its receiver absorbs (Absorber: receiving it is a step with no
// effect that leaves the node's encoding unchanged, in the receiver's
// current state and in every state the receiver may reach) changes nothing
// when it is delivered, whenever that is. Kept in flight it only splits
// worlds: with persistent sets each absorbed message costs one world (the
// world before its delivery, whose persistent set is that delivery alone,
// persistent_absorb.go), without them every subset of the absorbed
// messages in flight is a world. With Config.DropAbsorbed the environment
// removes such a message in the step that makes it absorbed:
//
//   - at the send: a message sent to a live process whose node, as it is
//     after the step (the sender's own new state for a message to itself),
//     absorbs it is not put in the inbox;
//   - at the receiver's step: after a step of p changes p's node, every
//     message in p's inbox that the new node absorbs is removed.
//
// Those are the only steps after which a message may become absorbed: an
// Absorber's answer reads the receiver's node, which changes only in the
// receiver's own steps (a crash clears the inbox).
//
// # Soundness
//
// Let δ map a world to the same world with every message its live receiver
// absorbs removed from the inboxes (Model.WithoutAbsorbed). The search with
// DropAbsorbed explores exactly the δ-images of the worlds of the plain
// search, with the same verdicts:
//
//   - Reached worlds. A delivery of an absorbed message is a step that
//     changes no node and emits nothing: from w it reaches w less that
//     message, so δ(w) is reached from w by delivering the absorbed
//     messages one by one, and δ(w) and w enable the same actions except
//     those deliveries (Asynchronous and LockStepRounds: a message in flight
//     blocks no other action; under FIFO an absorbed message at the head of
//     its channel is delivered at once and one behind others when they
//     are, so the messages behind it are delivered in the same orders).
//     Apply with DropAbsorbed from δ(w) by an action a that is not such a
//     delivery reaches δ(Apply(w, a)): the step reads and changes the same
//     node, and the messages it sends or leaves that the new nodes absorb
//     are exactly those δ removes (absorbing is for good, so a message
//     absorbed before the step stays absorbed). By induction on paths each
//     world reached with DropAbsorbed is δ of a plain world reached by the
//     same actions less the absorbed deliveries, and each plain world w
//     has δ(w) reached. A world is quiescent in one search exactly when its
//     image (preimage) is: a quiescent world has no message in flight to a
//     live process.
//   - Verdicts. Nodes, histories, calls, timers, the crashed set and every
//     message its receiver does not absorb are the same in w and δ(w). The
//     Absorber contract asks that every transition property a model
//     selects hold on an absorbed delivery whatever the world, and with
//     DropAbsorbed it also asks that no property read the messages a live
//     receiver absorbs (World.InFlight of such a message). A transition
//     w → w' by a action maps to δ(w) → δ(w') with the same effects. So
//     every verdict, in every kind of property, is the same on w and δ(w).
//
// Counterexamples found with DropAbsorbed replay on the model with
// DropAbsorbed; on the plain model a Deliver's index (the rank of its
// message among the sender's in the inbox) may name another message. The
// guard (models/all TestDropAbsorbedSoundness, envtest.CompareDrop)
// compares the two searches on every configuration and mutant of the
// models that declare absorbed messages.
//
// BoundedDelay is refused: its messages open their delivery window at the
// tick after the send and bound the ticks until delivered, and removing
// one at its send would change which Ticks are enabled.

// DropsAbsorbed reports whether the model drops the messages their
// receivers absorb (Config.DropAbsorbed).
func (m *Model) DropsAbsorbed() bool { return m.cfg.DropAbsorbed }

// absorbs reports whether the node of live process r absorbs msg from
// from (false when it is not an Absorber).
func absorbs(r *proc, from core.Rank, msg core.Message) bool {
	ab, ok := r.node.(Absorber)
	return ok && r.live && ab.Absorbs(from, msg)
}

// withoutAbsorbed returns in less the entries r's node absorbs, in as it
// is when there are none (in is never modified).
func withoutAbsorbed(r *proc, in []entry) []entry {
	ab, ok := r.node.(Absorber)
	if !ok || !r.live {
		return in
	}
	var out []entry
	for i, e := range in {
		if ab.Absorbs(e.from, e.msg) {
			if out == nil {
				out = make([]entry, i, len(in)-1)
				copy(out, in[:i])
			}
			continue
		}
		if out != nil {
			out = append(out, e)
		}
	}
	if out == nil {
		return in
	}
	return out
}

// WithoutAbsorbed returns w less every message its live receiver absorbs
// (δ of the soundness argument above), whatever the model's Config. It
// errs on a world of another model. With Config.DropAbsorbed every world
// a search reaches is its own image. It is how envtest compares the
// search that drops absorbed messages with the plain one.
func (m *Model) WithoutAbsorbed(w *World) (*World, error) {
	if w == nil || w.m != m {
		return nil, errors.New("env: WithoutAbsorbed of a world of another model")
	}
	t := newTx(w.root, m.height)
	each(w.root, m.height, 0, func(i int, r *proc) bool {
		if in := withoutAbsorbed(r, r.inbox); len(in) != len(r.inbox) {
			t.mut(i).inbox = in
		}
		return true
	})
	nw := &World{m: m, alt: w.alt, crashed: w.crashed, ncrash: w.ncrash, nfail: w.nfail,
		spent: w.spent, clock: w.clock, now: w.now, depth: w.depth, actor: core.NoRank, faults: w.faults}
	m.commit(&t, nw)
	nw.root = t.root
	return nw, nil
}

// checkDropAbsorbed is New's check of Config.DropAbsorbed.
func checkDropAbsorbed(cfg *Config) error {
	if cfg.DropAbsorbed && cfg.Timing == BoundedDelay {
		return fmt.Errorf("%w: DropAbsorbed with BoundedDelay timing (a message's delivery window bounds the ticks)", ErrConfig)
	}
	return nil
}
