package era

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// maySend is ERA's "may still send to" relation (env.Config.MaySend, used
// by persistent sets in depth-first search), given the agreements ids that
// the schedules call. It is false, p never sends to r again, exactly when
// p is quiet, r is quiet or crashed, and no message from r to p is in
// flight; a process is quiet when garbage collection (Config.GC) is off,
// it has no call left, and every agreement of ids has a Result at it with
// Status broadcasting.
//
// Why a quiet process q sends only DOWN replies, to the sender of an UP
// or a RESULTREQUEST (statemachine/era): it makes no call; Rule Recv(UP)
// answers DOWN to the sender (recvUp), Rule Recv(RESULTREQUEST) answers
// DOWN to the sender (recvResultRequest) after marking elders dead;
// Rule Recv(DOWN) and Decision do nothing once Result is set (recvDown,
// decision); Part 4 (discoveredDead, also run for marked elders) sends
// only for agreements with Result = ⊥ in broadcasting, or in gathering;
// the Spontaneous Rule needs DC, which needs gathering; every agreement a
// message can name is one of ids, which q knows (an unknown one would be
// created undecided, and Decision on a later DOWN sends to the children).
// Each of these steps leaves q quiet. So a quiet p sends to r only in
// reply to an UP or a RESULTREQUEST from r, which a quiet or crashed r
// never sends; one already in flight keeps the pair related. The mutants
// only remove sends from these steps (absorbing a decided UP) or change
// undecided agreements; the guard (models/all TestPersistentSoundness)
// compares every mutant with and without the reduction.
func maySend(ids []uint64) func(w *env.World, p, r core.Rank) bool {
	return func(w *env.World, p, r core.Rank) bool {
		if !quiet(w, p, ids) || !w.Crashed(r) && !quiet(w, r, ids) {
			return true
		}
		for _, e := range w.InFlight() {
			if e.From == r && e.To == p {
				return true
			}
		}
		return false
	}
}

// quiet reports whether p is quiet in w (see maySend).
func quiet(w *env.World, p core.Rank, ids []uint64) bool {
	n, ok := w.Node(p).(*erasm.Node)
	if !ok || n.Config().GC || len(w.PendingCalls(p)) > 0 {
		return false
	}
	for _, a := range ids {
		if n.Result(a) == nil || n.Status(a) != erasm.Broadcasting {
			return false
		}
	}
	return true
}

// scheduledAgreements lists the agreement ids the schedules call, and
// whether every input is an ERA call (Contribute or AckAgree); when one is
// not, the relation is not used.
func scheduledAgreements(schedules [][][]core.Input) ([]uint64, bool) {
	seen := map[uint64]bool{}
	var ids []uint64
	for _, alt := range schedules {
		for _, calls := range alt {
			for _, in := range calls {
				var a uint64
				switch c := in.(type) {
				case erasm.Contribute:
					a = c.A
				case erasm.AckAgree:
					a = c.A
				default:
					return nil, false
				}
				if !seen[a] {
					seen[a] = true
					ids = append(ids, a)
				}
			}
		}
	}
	return ids, true
}
