package env

import (
	"fmt"
	"strings"
)

// The environment's semantics are five orthogonal choices, each a typed
// enum whose zero value is the default (as stateright's network semantics
// are one explicit enum rather than a set of switches):
//
//	Network   Unordered | FIFO                        channel discipline
//	Loss      LossNone | LossOnCrash | LossAny         which messages may vanish
//	Faults    CrashStop | CrashRecovery                how processes fail
//	Detector  DetectorPerfect | DetectorNone | DetectorLocal   what crashes are reported
//	Timing    Asynchronous | LockStepRounds | BoundedDelay   how timers relate to deliveries
//
// Later protocols add modes to these enums rather than new switches;
// validate rejects any value not listed here. Budgets are numbers beside
// them: Config.Losses (LossAny), Config.Recoveries (CrashRecovery) and
// Config.Duplicates (duplication, in any mode: recovery.go, lossdup.go).

// Network is the channel discipline.
type Network uint8

const (
	// Unordered: the messages in flight form a multiset; any may be
	// delivered next. The default.
	Unordered Network = iota
	// FIFO: each (sender, receiver) pair is a queue; only its head may be
	// delivered.
	FIFO
)

// Loss says which messages in flight may be lost.
type Loss uint8

const (
	// LossNone: every message sent to a live process is delivered, even
	// one sent by a process that later crashes. The default.
	LossNone Loss = iota
	// LossOnCrash: the messages in flight from a crashed sender may be lost,
	// each loss its own Lose action.
	LossOnCrash
	// LossAny: any message in flight may be lost, each loss its own Lose
	// action, at most Config.Losses times in a run (lossdup.go).
	LossAny
)

// Faults is the failure model of the processes.
type Faults uint8

const (
	// CrashStop: a crashed process takes no further step. The default.
	CrashStop Faults = iota
	// CrashRecovery: a crashed process may restart from its stable storage
	// (core.Recoverable), each restart its own Recover action, at most
	// Config.Recoveries times in a run (recovery.go).
	CrashRecovery
)

// Detector is the failure detector the processes consult.
type Detector uint8

const (
	// DetectorPerfect: every crash is eventually reported to every live
	// process (one Detect action each), and only crashes are. The default.
	DetectorPerfect Detector = iota
	// DetectorNone: crashes are never reported (no Detect actions), as in
	// fail-stop models where the sender cannot tell whether the recipient
	// is alive (Corrected Trees §2.1).
	DetectorNone
	// DetectorLocal: a crash of a hosted rank r (Config.Hosts) is reported
	// to its host only, one Detect(host, r) if the host is alive, and no
	// other crash is reported to anyone: the local detection of a runtime
	// daemon that sees its own application processes exit (SIGCHLD; Zhong
	// et al., EuroMPI'19 §4.4), while hosts must detect each other by
	// themselves (heartbeats). Needs Config.Hosts.
	DetectorLocal
)

// Timing is how time advances relative to deliveries.
type Timing uint8

const (
	// Asynchronous: an armed timer may fire at any step, interleaved with
	// every delivery. The default.
	Asynchronous Timing = iota
	// LockStepRounds: time advances in synchronous rounds. A timer armed
	// (EffSetTimer, whatever its Delay) does not fire in the current round
	// but waits for the next, which a Tick action begins once nothing but
	// crashes is enabled (every message of the round delivered, every timer
	// of the round fired). Each timer then fires as its own Fire action,
	// interleaved with the deliveries of the round. It turns "send one
	// message per send slot" protocols (correction) into lock-step rounds,
	// a partially synchronous model with far fewer interleavings than full
	// asynchrony. Ticks come before the next Config.Wakeups entry.
	LockStepRounds
	// BoundedDelay: a global clock in integer ticks; a timer armed with
	// Delay d fires exactly d ticks later (d = 0 read as 1), a message
	// sent at tick t is delivered at some tick in [t+1, t+Config.Delta],
	// and a Tick action advances the clock once nothing is due at the
	// current tick. See the package documentation ("Bounded delay") and
	// delay.go.
	BoundedDelay
)

var (
	networkNames  = []string{Unordered: "unordered", FIFO: "fifo"}
	lossNames     = []string{LossNone: "none", LossOnCrash: "on-crash", LossAny: "any"}
	faultsNames   = []string{CrashStop: "crash-stop", CrashRecovery: "crash-recovery"}
	detectorNames = []string{DetectorPerfect: "perfect", DetectorNone: "none", DetectorLocal: "local"}
	timingNames   = []string{Asynchronous: "async", LockStepRounds: "rounds", BoundedDelay: "bounded"}
)

func name(names []string, kind string, v uint8) string {
	if int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", kind, v)
}

func parse[T ~uint8](names []string, kind, s string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown %s %q, want one of %s", ErrConfig, kind, s, strings.Join(names, ", "))
}

// String is "unordered" or "fifo".
func (n Network) String() string { return name(networkNames, "network", uint8(n)) }

// String is "none", "on-crash" or "any".
func (l Loss) String() string { return name(lossNames, "loss", uint8(l)) }

// String is "crash-stop" or "crash-recovery".
func (f Faults) String() string { return name(faultsNames, "faults", uint8(f)) }

// String is "perfect", "none" or "local".
func (d Detector) String() string { return name(detectorNames, "detector", uint8(d)) }

// String is "async", "rounds" or "bounded".
func (t Timing) String() string { return name(timingNames, "timing", uint8(t)) }

// ParseNetwork parses a Network.String() value ("unordered", "fifo"); any
// other string is an error wrapping ErrConfig.
func ParseNetwork(s string) (Network, error) { return parse[Network](networkNames, "network", s) }

// ParseLoss parses a Loss.String() value ("none", "on-crash", "any"); any other
// string is an error wrapping ErrConfig.
func ParseLoss(s string) (Loss, error) { return parse[Loss](lossNames, "loss", s) }

// ParseFaults parses a Faults.String() value ("crash-stop",
// "crash-recovery"); any other
// string is an error wrapping ErrConfig.
func ParseFaults(s string) (Faults, error) { return parse[Faults](faultsNames, "faults", s) }

// ParseDetector parses a Detector.String() value ("perfect", "none",
// "local"); any
// other string is an error wrapping ErrConfig.
func ParseDetector(s string) (Detector, error) { return parse[Detector](detectorNames, "detector", s) }

// ParseTiming parses a Timing.String() value ("async", "rounds",
// "bounded"); any
// other string is an error wrapping ErrConfig.
func ParseTiming(s string) (Timing, error) { return parse[Timing](timingNames, "timing", s) }
