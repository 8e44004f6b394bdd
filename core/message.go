package core

// Message is what one process sends another. Each protocol defines its own
// message types and a decoder for them.
type Message interface {
	// Kind is the message type's standard name, such as "UP", "DOWN" or
	// "RESULTREQUEST".
	Kind() string
	// AppendBinary appends the canonical encoding, kind included, so that a
	// protocol's decoder can read it back.
	AppendBinary(b []byte) []byte
	// String formats the message for a person, such as "UP(a=0, v=1)".
	String() string
}

// Input is the argument of a local call into a machine, such as
// "contribute v to agreement a".
type Input interface {
	AppendBinary(b []byte) []byte
	String() string
}

// Value is a decided, returned or delivered value.
type Value interface {
	AppendBinary(b []byte) []byte
	String() string
}
