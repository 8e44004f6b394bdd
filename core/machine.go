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
