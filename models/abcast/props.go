package abcast

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// Property names, as ftcheck --property takes them.
const (
	Validity   = "validity"
	Agreement  = "agreement"
	Integrity  = "integrity"
	NoCreation = "no-creation"
	TotalOrder = "total-order"
)

// Properties are atomic broadcast's, as Appendix A states them: "as três
// propriedades da difusão confiável (reliable broadcast) mais a propriedade
// de ordem total", over the members' EffDeliver records (instance: the
// message's ab.ID.Key, value: its ab.ID).
//
// Validity and agreement are liveness: they are checked at quiescence
// (nothing left to deliver, detect or call). Integrity, no creation and
// total order are invariants.
func Properties(p Params) []checker.Property[*env.World] {
	return []checker.Property[*env.World]{
		props.LiveDone(Validity,
			"a message broadcast by a correct process is delivered to every correct process (Appendix A: \"uma mensagem enviada por um processo correto será entregue … a todos os demais processos corretos\"); checked at quiescence",
			"missing a message a live member broadcast", validDone),
		props.LiveDone(Agreement,
			"if any process, crashed or not, delivered a message, every correct process delivers it (Appendix A: \"Se um processo falhar após ter difundido uma mensagem, a mensagem será entregue a todos os demais se pelo menos um processo tiver entregue a mensagem\"); checked at quiescence",
			"missing a message some process delivered", agreeDone),
		props.NoDuplicates(Integrity,
			"no process delivers a message twice (Appendix A: \"será entregue, sem duplicação\")"),
		props.Deliveries(NoCreation,
			"a process delivers only messages their origin broadcast (reliable broadcast's integrity)",
			broadcastBefore),
		props.TotalOrder(TotalOrder,
			"any two processes, crashed ones included (uniform), deliver the messages they both deliver in the same order (Appendix A: \"p entrega m antes de m' se e somente se q entrega m antes de m'\")",
			nil),
	}
}

// broadcasts lists the messages q has broadcast: its Broadcast calls made.
func broadcasts(w *env.World, q core.Rank) []ab.ID {
	var out []ab.ID
	for _, in := range w.CallsMade(q) {
		if b, ok := in.(ab.Broadcast); ok {
			out = append(out, ab.ID{Origin: q, Seq: b.Seq})
		}
	}
	return out
}

func member(w *env.World, p core.Rank) *ab.Node { return w.Node(p).(*ab.Node) }

// validDone: p has delivered every message every live member broadcast.
func validDone(w *env.World, p core.Rank) bool {
	for q := range core.Rank(w.N()) {
		if w.Crashed(q) {
			continue
		}
		for _, id := range broadcasts(w, q) {
			if !member(w, p).Delivered(id) {
				return false
			}
		}
	}
	return true
}

// agreeDone: p has delivered every message any process delivered.
func agreeDone(w *env.World, p core.Rank) bool {
	for q := range core.Rank(w.N()) {
		for _, r := range w.History(q) {
			if id, ok := r.Value.(ab.ID); ok && r.Kind == core.EffDeliver && !member(w, p).Delivered(id) {
				return false
			}
		}
	}
	return true
}

// broadcastBefore: the delivered message was broadcast by its origin.
func broadcastBefore(w *env.World, p core.Rank, r env.Record) error {
	id, ok := r.Value.(ab.ID)
	if !ok {
		return fmt.Errorf("%v delivered %v, not a message", p, r.Value)
	}
	if !id.Origin.Valid(w.N()) || !slices.Contains(broadcasts(w, id.Origin), id) {
		return fmt.Errorf("%v delivered %v, which %v never broadcast", p, id, id.Origin)
	}
	return nil
}
