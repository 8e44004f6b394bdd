package core

// Machine is one protocol node: a deterministic state machine (see the
// package documentation for the contract).
type Machine interface {
	// Step applies ev to the state and appends the step's effects to out.
	// On error the state is unchanged and out is returned as it was.
	Step(ev Event, out []Effect) ([]Effect, error)
	// Clone returns a deep copy that shares nothing mutable with the
	// receiver.
	Clone() Machine
	// AppendBinary appends the canonical encoding of the state.
	AppendBinary(b []byte) []byte
	// String summarises the state for a person (one line).
	String() string
}

// Recoverable is an optional interface of a Machine that survives crashes
// with its stable storage (crash-recovery). Recover returns the node as it
// restarts after a crash: a new node of the same rank holding what the
// receiver keeps on stable storage, everything volatile reset to its
// initial value. It does not modify the receiver, and is deterministic: a
// function of the receiver's state. The runtime then steps the new node
// with Restart() (EvRestart) before anything else, so that it can resume:
// re-arm its timers, re-send what it must. A node that is no Recoverable
// cannot restart.
type Recoverable interface {
	Recover() Machine
}
