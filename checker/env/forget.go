package env

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Forgetting crashed processes (Config.ForgetCrashed): a state reduction
// that removes worlds.
//
// The environment is crash-stop (Faults: CrashStop is the only failure
// model): once p has crashed, no action of p is enabled (Apply refuses
// them: "p has crashed"), a message sent to p is dropped, and p's inbox,
// timers and next-round timers are cleared. So p's node never steps again;
// what is left of it only splits worlds, except for what the properties
// read of it. With Config.ForgetCrashed the crash step (Apply of a Crash,
// every rank of a host's group under Config.Hosts, a Fail rank's crash as
// well) replaces each crashed rank's node by its Forget, and clears the
// environment's record of the crashes it had been told of (World.Detected
// of a crashed process reads false): a process that dies before or after
// a Detect is otherwise two worlds. Its calls made and its history are
// kept (properties read them of crashed processes: validity reads the
// contributions of crashed processes, uniform agreement their decisions).
//
// # Soundness
//
// Let φ map a world to the same world with the node of every crashed
// process replaced by its Forget and its detections cleared
// (Model.Forgotten). The forgetting search
// explores exactly the φ-images of the worlds of the plain search, with
// the same verdicts:
//
//   - Enabled actions. Model.Actions, Apply's checks and Quiescent read
//     the process records (inboxes, timers, calls made, detections, the
//     crashed set, the budget, the clock), never a node, and a crashed
//     process has no action; the detections read are those of live
//     processes (pending Detect actions, the live processes' share of the
//     sums that Quiescent and Sample weigh: a crashed process weighs
//     nothing). So w and φ(w) enable the same actions, and
//     Apply(φ(w), a) = φ(Apply(w, a)): a step of a live process reads and
//     changes only that process's node (and the records of the processes
//     it sends to); a crash forgets the node it crashes; nothing reads a
//     crashed node. By induction on paths, the worlds reached with
//     forgetting are the φ-images of those reached without, by the same
//     action sequences, and a world is quiescent in one search exactly
//     when its image is in the other. Since Forget is a function of the
//     node (of its encoding, for its rank), worlds with equal encodings
//     have images with equal encodings, so the visited set stays sound.
//   - Verdicts. No property may read World.Detected(p, ·) of a crashed p
//     (props.DetectorComplete reads live processes only; the guard checks
//     the models that forget). Forgetter's contract keeps every part of a
//     node that a property reads of a crashed process, in every kind of
//     property (Invariant, Quiescence, Eventually) and in both worlds of
//     a transition property, the crash step included (there the world
//     before holds the node as it was and the world after its Forget). Everything else
//     a property reads (live nodes, histories, calls, inboxes, the crashed
//     set) is the same in w and φ(w). So every property holds in w (on the
//     step w → w') exactly when it holds in φ(w) (on φ(w) → φ(w')): the
//     violated properties are the same, and a counterexample found with
//     forgetting is a path of the plain model too, with the same verdicts.
//   - Cycles (Eventually properties, lassos). The crashed set only grows,
//     so no crash lies on a cycle, and along a cycle every crashed node
//     stays as it is: a cycle of the forgetting graph lifts to a cycle of
//     the plain graph and back, with the same verdicts at every state
//     (the guard: envtest.CompareForgetEventually, which also asks for
//     the same bounds).
//   - Quiescent worlds. The quiescent worlds of the forgetting search are
//     the φ-images of those of the plain search (the guard,
//     envtest.CompareForget, compares the two sets by encoding).
//
// Interactions:
//
//   - Persistent sets (persistent.go, --por). The sets read live processes
//     only: Config.MaySend(w, q, r) is used for live q and live r (the
//     closure's S and A hold live processes only; a row of the matrix may
//     be filled for a crashed r, whose entry is never read), Absorber is
//     asked of the receiver of an enabled delivery (live), and the crash,
//     may-send and lost-sender rules read records. So Persistent returns
//     the same set at w and φ(w), the persistence argument holds on the
//     forgetting graph as it does on the plain one, and both reductions
//     compose (the visited sets of the two reduced searches may still
//     differ in size: the stack proviso depends on the visiting order).
//     Sleep sets (BFS --por) rest on independence, which φ preserves.
//     The guard runs every comparison with and without persistent sets.
//   - Symmetry. A model whose Canonical permutes ranks must use a Forget
//     that commutes with the permutation (a forgotten node of rank p maps
//     to the forgotten node of its image), and clearing detections
//     commutes with any renaming. The env has no symmetry of its own; the
//     rotations of gossipfd and ringfd qualify (their Forget keeps sets
//     and counters that rotate with the ranks and resets the rest to the
//     rank's initial values, which rotate too), and the symmetric and
//     plain searches agree (docs/checker.md). What is comparable under
//     symmetry (classes, not representatives) and the guard are in
//     envtest.CompareForgetSymmetric; models/all
//     TestForgetCommutesWithRotation checks the commutation node by node.
//   - Checkpoints and resume. The forgotten node is an ordinary node state:
//     it encodes with AppendBinary, decodes with Config.Codec (Forget must
//     return a node the codec decodes to an equal encoding), so a world's
//     encoding stays canonical and the frontier and checkpoints hold it as
//     any other. Model.Name ends with " forget-crashed", so a checkpoint of
//     one mode does not resume in the other.
//   - Replay and traces. A counterexample replays on the model it was
//     found on (ftcheck records --forget-crashed with the model's flags),
//     and its action sequence replays on the plain model to the same
//     violation. Printed traces show a crashed process's forgotten node
//     from its crash on.

// Forgetter is an optional interface of a node (core.Machine) that the
// environment uses under Config.ForgetCrashed. Forget returns the canonical
// "forgotten" state of the node of a crashed process: the node with
// everything reset to fixed values except what the model's properties
// read of a crashed process. The contract:
//
//   - Forget does not modify the receiver (it is shared) and returns a new
//     node of the same rank, deterministic and a function of the node's
//     state only (two nodes of one rank with equal encodings give
//     forgotten nodes with equal encodings).
//   - It keeps every part of the state that any property or transition
//     property of the model reads of a crashed process (including, at the
//     crash step, the actor's node after the step, which is the forgotten
//     one): every verdict is then unchanged (see the soundness argument
//     above).
//   - It is idempotent: Forget of a forgotten node encodes as that node.
//   - Config.Codec, when the model has one, decodes its encoding to a node
//     of the same encoding.
//
// The forgotten node never steps: crashed processes take no action.
type Forgetter interface {
	Forget() core.Machine
}

// errForget wraps the errors of forgetting a node that is not a
// Forgetter, or whose Forget returned nil.
var errForget = errors.New("env: cannot forget a crashed node")

// forgetCrashed replaces the node of crashed rank r, whose record mp the
// Apply owns, by its Forget when Config.ForgetCrashed is set.
func (m *Model) forgetCrashed(mp *proc, r core.Rank) error {
	if !m.cfg.ForgetCrashed {
		return nil
	}
	forgetDetections(mp)
	return m.forgetNode(mp, r)
}

// forgetDetections clears the detections of the crashed process whose
// record mp the edit owns (a fresh set: the old one may be shared).
func forgetDetections(mp *proc) { mp.detected, mp.ndet = core.RankSet{}, 0 }

// forgetNode replaces the node of rank r in the owned record mp by its
// Forget, interned (nodes.go).
func (m *Model) forgetNode(mp *proc, r core.Rank) error {
	f, ok := mp.node.(Forgetter)
	if !ok {
		return fmt.Errorf("%w: %v's node %T has no Forget method", errForget, r, mp.node)
	}
	node := f.Forget()
	if node == nil {
		return fmt.Errorf("%w: %v's Forget returned nil", errForget, r)
	}
	ns := m.intern(r, node)
	mp.ns, mp.node = ns, ns.node
	return nil
}

// checkForget is New's check of Config.ForgetCrashed: every initial node
// must be a Forgetter.
func checkForget(cfg *Config, nodes []core.Machine) error {
	if !cfg.ForgetCrashed {
		return nil
	}
	for p, n := range nodes {
		if _, ok := n.(Forgetter); !ok {
			return fmt.Errorf("%w: ForgetCrashed: the node of %v (%T) is not an env.Forgetter", ErrConfig, core.Rank(p), n)
		}
	}
	return nil
}

// Forgotten is w with the node of every crashed process replaced by its
// Forget and its detections cleared (the map φ of the soundness argument
// above), whether or not the
// model forgets crashed processes itself: on a model with
// Config.ForgetCrashed it returns a world of the same encoding. It is how
// the guard (envtest.CompareForget) maps the quiescent worlds of a plain
// search. The result has no last step (LastEffects nil, LastActor NoRank),
// depth aside. Errors: a world of another model, a crashed node that is
// not a Forgetter (errors wrap ErrConfig).
func (m *Model) Forgotten(w *World) (*World, error) {
	if w == nil || w.m != m {
		return nil, errors.New("env: Forgotten of a world of another model")
	}
	t := newTx(w.root, m.height)
	var err error
	w.crashed.Each(func(r core.Rank) {
		if err == nil {
			mp := t.mut(int(r))
			forgetDetections(mp)
			err = m.forgetNode(mp, r)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	nw := &World{m: m, alt: w.alt, crashed: w.crashed, ncrash: w.ncrash, nfail: w.nfail,
		spent: w.spent, clock: w.clock, now: w.now, depth: w.depth, actor: core.NoRank, faults: w.faults}
	m.commit(&t, nw)
	nw.root = t.root
	return nw, nil
}

// ForgetsCrashed reports whether the model forgets crashed processes
// (Config.ForgetCrashed).
func (m *Model) ForgetsCrashed() bool { return m.cfg.ForgetCrashed }
