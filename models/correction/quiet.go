package correction

import (
	"slices"
	"sync"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// Quiet messages: the may-send relation's second exception
// (env.Config.MaySend), after absorbed ones.
//
// A correction message m from q is quiet at a process r that cannot crash,
// in world w, when for every node state r' that r's node reaches from its
// state in w by receiving quiet or absorbed messages (any number, any
// order):
//
//   - receiving m in r' emits no effect (no send, no timer, no delivery to
//     the application), so it enables nothing anywhere;
//   - receiving m commutes with every event of r enabled in w (the timers
//     armed, the messages in r's inbox, r's next call): from r', taking
//     the event then m, or m then the event, ends in the same node state
//     (encoding) with the same effects, and m emits nothing after the event
//     either.
//
// Checked correction's messages from a side already heard from at a
// nearer distance than the direction has reached, or from one not yet
// reached, only lower r's recv and leave the slot's next send as it is:
// those are quiet, and the persistent set of a participant need not take
// in every participant that may still send to it. A message that stops the
// direction r's next slot sends in (or ends r's last active direction, so
// that the slot is not asked for again) does not commute with the slot's
// firing, and one that colors r emits a delivery: neither is quiet.
//
// The check is semantic: quietSet steps clones of r's node on both orders
// and compares encodings and effects, over the closure of r's states under
// the candidate messages (every correction message a live process other
// than r may still send r, Node.CorrectionsTo), removing a failing
// candidate and starting again until every remaining one passes (a
// greatest fixpoint: the closure only shrinks). So a mutant that changes
// what a message does is checked as it is. Transition properties: a quiet
// delivery leaves Colored and Sent as they are and emits nothing, and a
// step of r has the same effects before and after it, so the properties of
// Properties and ColoredSilent (which read Colored, Via, Sent, the
// effects and the delivered message) give the same verdicts.
type quietMemo struct {
	// forget: the model forgets crashed processes (Params.ForgetCrashed),
	// so a receiver that may crash has quiet messages too, those that
	// leave its Forget as it is.
	forget bool
	mu     sync.Mutex
	m      map[string]uint64
}

// quietSkipsCommute is a test-only broken variant of the quiet check: it
// asks only that the message emit nothing, not that it commute with the
// receiver's enabled events (TestQuietRuleNeeded shows the guard catches
// it).
var quietSkipsCommute bool

// quietCrashWithoutForget is a test-only broken variant: quiet messages at
// a receiver that may crash although the model does not forget crashed
// processes (TestQuietRuleNeeded shows the guard catches it).
var quietCrashWithoutForget bool

// quietMemoMax bounds the memo (it is cleared when full).
const quietMemoMax = 1 << 16

// quietSet returns the mask of cands (at most 64: P ≤ 16 gives at most
// 2·15) that are quiet at r, whose node is to, in w; froms[i] sends
// cands[i]. Events of r enabled in w: its armed timers, its inbox, its next
// call (corrected broadcast runs without a detector, env.DetectorNone, so
// no detection is pending; under LockStepRounds the timers armed for the
// next round fire only after a Tick, which no path avoiding the persistent
// set takes). With crashable (r may crash) every state of the closure must also
// have to's Forget.
func (qm *quietMemo) quietSet(w *env.World, r core.Rank, to *corrsm.Node, froms []core.Rank, cands []core.Message, crashable bool) uint64 {
	if len(cands) == 0 || len(cands) > 64 {
		return 0
	}
	var evs []core.Event
	for _, id := range w.Timers(r) {
		evs = append(evs, core.Timer(id))
	}
	for _, e := range w.InFlight() {
		if e.To == r {
			evs = append(evs, core.Receive(e.From, e.Msg))
		}
	}
	if calls := w.PendingCalls(r); len(calls) > 0 {
		evs = append(evs, core.Call(calls[0]))
	}
	key := core.AppendBool(nil, crashable)
	key = to.AppendBinary(key)
	key = appendEvents(key, evs)
	for i, m := range cands {
		key = core.AppendInt(key, int64(froms[i]))
		key = appendMsg(key, m)
	}
	qm.mu.Lock()
	mask, ok := qm.m[string(key)]
	qm.mu.Unlock()
	if ok {
		return mask
	}
	mask = quietMask(to, evs, froms, cands, crashable)
	qm.mu.Lock()
	if len(qm.m) >= quietMemoMax {
		clear(qm.m)
	}
	qm.m[string(key)] = mask
	qm.mu.Unlock()
	return mask
}

// quietMask computes quietSet's mask (see quietMemo).
func quietMask(to *corrsm.Node, evs []core.Event, froms []core.Rank, cands []core.Message, crashable bool) uint64 {
	mask := uint64(1)<<len(cands) - 1
	var forgotten []byte
	if crashable && !quietCrashWithoutForget {
		forgotten = to.Forget().AppendBinary(nil)
	}
	for {
		bad, ok := firstNotQuiet(to, evs, froms, cands, mask, forgotten)
		if ok {
			return mask
		}
		mask &^= 1 << bad
	}
}

// firstNotQuiet walks the closure of to's states under the candidates of
// mask and returns the first candidate that fails a clause, or true when
// none does. A non-nil forgotten is the encoding of to's Forget, which
// every state of the closure must share.
func firstNotQuiet(to *corrsm.Node, evs []core.Event, froms []core.Rank, cands []core.Message, mask uint64, forgotten []byte) (int, bool) {
	states := []*corrsm.Node{to}
	seen := map[string]bool{string(to.AppendBinary(nil)): true}
	for k := 0; k < len(states); k++ {
		s := states[k]
		for i, m := range cands {
			if mask&(1<<i) == 0 {
				continue
			}
			ev := core.Receive(froms[i], m)
			next, effs, err := stepClone(s, ev)
			if err != nil || len(effs) > 0 || forgotten != nil && !slices.Equal(next.Forget().AppendBinary(nil), forgotten) {
				return i, false
			}
			for _, b := range evs {
				if !quietSkipsCommute && !commute(s, ev, b) {
					return i, false
				}
			}
			if enc := string(next.AppendBinary(nil)); !seen[enc] {
				seen[enc] = true
				states = append(states, next)
			}
		}
	}
	return 0, true
}

// commute reports whether, from s, taking b then the delivery m, or m
// then b, ends in the same node state with the same effects of b, m
// emitting nothing in either order (both steps without error).
func commute(s *corrsm.Node, m, b core.Event) bool {
	x, eb1, err := stepClone(s, b)
	if err != nil {
		return false
	}
	x, em1, err := stepClone(x, m)
	if err != nil || len(em1) > 0 {
		return false
	}
	y, em2, err := stepClone(s, m)
	if err != nil || len(em2) > 0 {
		return false
	}
	y, eb2, err := stepClone(y, b)
	if err != nil {
		return false
	}
	return slices.Equal(x.AppendBinary(nil), y.AppendBinary(nil)) &&
		slices.Equal(appendEffects(nil, eb1), appendEffects(nil, eb2))
}

// stepClone steps a clone of s with ev.
func stepClone(s *corrsm.Node, ev core.Event) (*corrsm.Node, []core.Effect, error) {
	c, _ := s.Clone().(*corrsm.Node)
	effs, err := c.Step(ev, nil)
	return c, effs, err
}

// appendEffects encodes effs, every field.
func appendEffects(b []byte, effs []core.Effect) []byte {
	for _, e := range effs {
		b = append(b, byte(e.Kind))
		b = core.AppendInt(b, int64(e.To))
		b = appendMsg(b, e.Msg)
		b = core.AppendUint(b, e.Instance)
		if e.Value != nil {
			b = appendEnc(b, e.Value)
		} else {
			b = append(b, 0)
		}
		b = core.AppendInt(b, int64(e.Peer))
		b = core.AppendUint(b, e.Timer)
		b = core.AppendUint(b, e.Delay)
	}
	return b
}

// appendEvents encodes evs (kind, timer, sender, message, call).
func appendEvents(b []byte, evs []core.Event) []byte {
	for _, e := range evs {
		b = append(b, byte(e.Kind))
		b = core.AppendUint(b, e.Timer)
		b = core.AppendInt(b, int64(e.From))
		b = appendMsg(b, e.Msg)
		if e.Input != nil {
			b = appendEnc(b, e.Input)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// appendMsg encodes m, flagged and length-prefixed (nil: the flag 0).
func appendMsg(b []byte, m core.Message) []byte {
	if m == nil {
		return append(b, 0)
	}
	return appendEnc(b, m)
}

// appendEnc appends the flag 1 and x's encoding, length-prefixed.
func appendEnc(b []byte, x interface{ AppendBinary([]byte) []byte }) []byte {
	return core.AppendBytes(append(b, 1), x.AppendBinary(nil))
}
