package msglog

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Limits.
const (
	MaxProcs = 64
	MaxOps   = 1 << 12
)

// PollTimer is the timer of an Iprobe polling loop: when it fires, the
// loop polls once more (an unsuccessful poll counts one repetition). The
// event logger's own timers use small ids; this one is above them.
const PollTimer uint64 = 1 << 30

// EventLog is what the protocol needs of an event logger (§5.1.3): the
// application process's side of it as a core.Machine (and a
// core.Recoverable), and the three calls of its public API. The embedder
// provides it: models/msglog adapts statemachine/eventlogger's client
// node, in any of its three implementations.
type EventLog interface {
	// Client builds the logger's side of application process r.
	Client(r core.Rank) (core.Machine, error)
	// Save, RemoveUpTo and RetrieveSince are the calls save(det) → id,
	// remove-up-to(id) and retrieve-since(id) → determinants (Algorithm 4
	// lines 76, 18, 61).
	Save(det string) core.Input
	RemoveUpTo(id uint64) core.Input
	RetrieveSince(id uint64) core.Input
	// Result reads a call's returned value: the id a save got, or the
	// determinants (ids ascending) a retrieve-since returned.
	Result(v core.Value) (id uint64, dets []string, err error)
	// Owns reports whether m is a message of the logger.
	Owns(m core.Message) bool
}

// Config is one run's deployment, shared by every process.
type Config struct {
	Program Program
	// Log is the event logger.
	Log EventLog
	// DelayedAck is the optimization of §5.2: "O protocolo pessimista
	// permite atrasar o recebimento das confirmações até o envio de uma
	// mensagem a outro processo". A non-deterministic delivery happens
	// at once and its determinant's acknowledgement is awaited only
	// before the next send, output or checkpoint. Without it (the
	// synchronous mode the thesis measures with), a non-deterministic
	// receive completes only when the logger has acknowledged its
	// determinant.
	DelayedAck bool
	// CheckpointEvery takes a checkpoint after every K-th delivered
	// message (0: only the program's own checkpoints). It stands for the
	// thesis's timer ("periodicamente, usando o relógio local"), placed
	// where a timer can fire, between two deliveries.
	CheckpointEvery int
	// Mutant selects a broken variant (tests and --mutant only): Mutants.
	Mutant mutant.Name
}

// The mutants: each is a literal reading of Algorithm 4 or a rule left
// out, and each breaks one property (models/msglog says which catches it).
const (
	// MutantDeliverBeforeAck: sends and outputs do not wait for the
	// acknowledgement of the determinants before them, and a
	// non-deterministic receive completes before its determinant is
	// saved (optimistic logging): a crash before the save leaves a peer
	// that received a message depending on a delivery the recovery
	// cannot replay (an orphan).
	MutantDeliverBeforeAck = mutant.Name("deliver-before-ack")
	// MutantGCLiveCounter: the GC message carries the live receive
	// counter v_recv instead of the stable one v_recv_stable (line 22):
	// a sender deletes a message that the receiver, rolled back to its
	// checkpoint, needs again.
	MutantGCLiveCounter = mutant.Name("gc-live-counter")
	// MutantReplayArrivalOrder: a recovering process replays an
	// ANY_SOURCE receive in the order messages arrive, ignoring the
	// determinant's source.
	MutantReplayArrivalOrder = mutant.Name("replay-arrival-order")
	// MutantZeroBasedIDs is ambiguity A's literal reading: the message
	// id is v_sent[j] before the increment (line 71, 0-based), deleted
	// when id ≤ v_recv_stable (line 27) and re-sent when id > v_recv
	// (line 55): one message too many is deleted and one too few re-sent.
	MutantZeroBasedIDs = mutant.Name("zero-based-ids")
	// MutantRetransmitReceived: a recovering process transmits again the
	// sends its peer had received before the crash (no suppression,
	// ambiguity D's other reading).
	MutantRetransmitReceived = mutant.Name("retransmit-received")
	// MutantForgetRepetitions: a recovering process replays an Iprobe
	// without its repetition count (it succeeds at the first poll).
	MutantForgetRepetitions = mutant.Name("forget-repetitions")
	// MutantRemoveLiveLastID is ambiguity C's literal reading: the
	// checkpoint does not wait for the determinants in flight, and
	// el_remove(last_id) (line 18) runs with last_id as it is when the
	// logger takes the call, after the saves queued before it: a
	// determinant saved between save(ck) and el_remove is removed
	// though the checkpoint does not cover it.
	MutantRemoveLiveLastID = mutant.Name("remove-live-last-id")
	// MutantKeepSequenceGap: a restarted process keeps a message that
	// skips a sequence number (sent by a peer not told of the restart,
	// before the RESEND_FROM reached it) instead of dropping it; a
	// receive then takes it in place of the message it skips.
	MutantKeepSequenceGap = mutant.Name("keep-sequence-gap")
)

// Mutants lists the package's mutants.
var Mutants = []mutant.Name{MutantDeliverBeforeAck, MutantGCLiveCounter, MutantReplayArrivalOrder,
	MutantZeroBasedIDs, MutantRetransmitReceived, MutantForgetRepetitions, MutantRemoveLiveLastID,
	MutantKeepSequenceGap}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if err := c.Program.Validate(); err != nil {
		return err
	}
	if c.Log == nil {
		return fmt.Errorf("msglog: no event logger")
	}
	if c.CheckpointEvery < 0 || c.CheckpointEvery > MaxOps {
		return fmt.Errorf("msglog: checkpoint every %d deliveries, want 0 … %d", c.CheckpointEvery, MaxOps)
	}
	if c.Mutant != mutant.None {
		ok := false
		for _, m := range Mutants {
			ok = ok || m == c.Mutant
		}
		if !ok {
			return fmt.Errorf("msglog: unknown mutant %q", c.Mutant)
		}
	}
	return nil
}
