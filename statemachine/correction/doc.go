// Package correction is the Corrected Tree broadcast of Küttler et al.,
// "Corrected Trees for Reliable Group Communication" (PPoPP'19), as pure
// core.Machine nodes: an unreliable dissemination over an interleaved tree
// (§3.2) followed by a correction on the ring of ranks (§3.1, §3.3).
//
// # Events and effects
//
//   - EvCall(Broadcast{v}) at the root (rank 0) starts the broadcast: the
//     root delivers v and sends TREE messages to its children.
//   - EvReceive of a TREE message colors an uncolored process, which
//     delivers (core.Deliver, exactly once) and sends TREE to its children,
//     all in one step, in send order; the runtime serializes the sends.
//   - Correction messages are not emitted all at once: a machine that may
//     send another correction message arms the timer TimerSendSlot
//     (EffSetTimer, Delay 0) and sends one message per EvTimer(TimerSendSlot).
//     A LogP runtime fires that timer when the process's send port is free
//     (checker/logp: Options.SendSlotTimer), so that checked correction can
//     stop as soon as the stopping message has been received; any other
//     runtime may fire it at once.
//   - EvTimer(TimerStart) starts synchronized correction (the runtime's
//     synchronized clock); overlapped correction starts when the tree sends
//     are done (the first send slot after them).
//   - EvTimer(TimerDelay) ends the wait of delayed correction.
//
// Only processes colored by dissemination (or the root) take part in
// correction (§3.1: "Processes that become colored during correction do not
// send any messages"). A process colored early by a correction message
// (overlapped start) does what Config.Early says: by default (EarlyForwards,
// §3.3 literally) it still sends the tree messages to its children, at once,
// and never corrects; with EarlySilent (§3.1 taken strictly) it sends
// nothing, ever, also when its tree message arrives later.
//
// Ring order: correction sends go to r-1, r+1, r-2, r+2, … (left first, as
// in the proof of Lemma 2 and the example of §3.1).
//
// # Files and the paper
//
//	config.go    Config: the correction variants of §3.1 and §3.3, the
//	             start modes of §3.3, the early-correction rule (§3.1 vs §3.3)
//	node.go      Node, its state and the send bound of §2.1 Termination
//	events.go    one handler per event: the broadcast call, a TREE message,
//	             a correction message, each timer
//	rules.go     the rules, each citing its section: coloring and masking
//	             (§2.1), dissemination (§3.2), start (§3.3), the ring sends
//	             (§3.1), the stop rules of checked (§3.1) and delayed
//	             (§3.3) correction, the limits of optimized opportunistic
//	             correction (§3.3), correction-colored processes (§3.1,
//	             §3.3); and, as options, two rules of the authors'
//	             simulator flogsim: the cover stop and the cut ring
//	             (Config.CoverStop, Config.NoOverRoot)
//	tree.go      the trees of §3.2: interleaved k-ary (§3.2.1), binomial and
//	             Lamé (§3.2.2, Eq. (1), (2)), LogP-optimal (§3.2.3), and the
//	             in-order trees of Figures 3 and 4
//	gossip.go    Corrected Gossip dissemination (§3.1, rules G1–G5)
//	msg.go       messages and their canonical encoding
//	encoding.go  the node's canonical encoding and its decoder
//	compact.go   Config.Compact: forgetting what no later step reads
//	mutants.go   the deliberately broken variants, as hooks
//
// Tests: example_test.go drives a small broadcast step by step;
// testdata/*.txt are the paper's examples as scripts (scenario_test.go:
// §3.1's checked example, §3.1's gap bound of opportunistic correction,
// Figures 3–5, §3.3's optimized example, the early-correction rule,
// flogsim's two rules);
// encoding_test.go checks that DecodeNode inverts AppendBinary on every
// state of random runs.
package correction
