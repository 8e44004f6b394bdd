package eventlogger

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// MutantNoIncarnationFence applies a crashed incarnation's command even
// when it is chosen after a command of its successor (the literal reading:
// every chosen save counts): a save cut by a crash, chosen after the
// restarted process's recovery read, changes the log behind that read.
const MutantNoIncarnationFence = mutant.Name("no-incarnation-fence")

// MutantRetrieveOneAcceptor makes retrieve-since read the votes of one
// acceptor (Config.OneAcceptor) instead of going through a quorum: a
// determinant chosen by a quorum that excludes it is missed.
const MutantRetrieveOneAcceptor = mutant.Name("retrieve-since-one-acceptor")

// MutantDropQueuedCall drops the call the application made while a
// restarted process's recovery read ran (Algorithm 4, lines 49 and 61:
// the process reads its determinants before it goes on): when the read
// completes the call is never started, so it never returns. Every logger
// has it (it is the application process's side).
const MutantDropQueuedCall = mutant.Name("drop-queued-call")

// Mutants lists the package's mutants.
var Mutants = []mutant.Name{MutantRetrieveOneAcceptor, MutantNoIncarnationFence, MutantDropQueuedCall}

// PaxosOnly reports whether mutant m applies to the Paxos loggers only.
func PaxosOnly(m mutant.Name) bool {
	return m == MutantRetrieveOneAcceptor || m == MutantNoIncarnationFence
}

// Op is an operation of the event log (§5.1.1; Algorithm 4 lines 18, 61,
// 76).
type Op uint8

const (
	OpSave     Op = 1 // save(determinant) → id
	OpRemove   Op = 2 // remove-up-to(id)
	OpRetrieve Op = 3 // retrieve-since(id) → determinants
	opStart    Op = 4 // the coordinator's pre-executed phase 1
)

func (o Op) String() string {
	switch o {
	case OpSave:
		return "save"
	case OpRemove:
		return "remove-up-to"
	case OpRetrieve:
		return "retrieve-since"
	case opStart:
		return "start"
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Save is the call save(determinant) at an application process; it
// returns the determinant's id: 1 for its first, then one more each
// ("Inicialmente, det_id é definido em 0 e é incrementado a cada novo
// determinante armazenado").
type Save struct{ Det string }

// RemoveUpTo is the call remove-up-to(id) (el_remove, Algorithm 4 line
// 18): the process's determinants with id ≤ ID are removed.
type RemoveUpTo struct{ ID uint64 }

// RetrieveSince is the call retrieve-since(id) (el_request_since,
// Algorithm 4 line 61): the process's determinants with id > ID.
type RetrieveSince struct{ ID uint64 }

// Start is the call that makes a coordinator pre-execute phase 1 (§5.1.3:
// "Considera-se que os coordenadores do Paxos executaram previamente a
// primeira fase"): at Classic's R0 and at a Parallel application process.
// At any other node, or under Centralized, it does nothing.
type Start struct{}

func (c Save) AppendBinary(b []byte) []byte {
	return core.AppendString(append(b, byte(OpSave)), c.Det)
}
func (c RemoveUpTo) AppendBinary(b []byte) []byte {
	return core.AppendUint(append(b, byte(OpRemove)), c.ID)
}
func (c RetrieveSince) AppendBinary(b []byte) []byte {
	return core.AppendUint(append(b, byte(OpRetrieve)), c.ID)
}
func (Start) AppendBinary(b []byte) []byte { return append(b, byte(opStart)) }
func (c Save) String() string              { return fmt.Sprintf("save(%q)", c.Det) }
func (c RemoveUpTo) String() string        { return fmt.Sprintf("remove-up-to(%d)", c.ID) }
func (c RetrieveSince) String() string     { return fmt.Sprintf("retrieve-since(%d)", c.ID) }
func (Start) String() string               { return "start" }

// Entry is one determinant of a process's log: its id and its bytes.
type Entry struct {
	ID  uint64
	Det string
}

// Result is the value a call returns (core.Return): save gives the id,
// remove-up-to the id it was called with, retrieve-since the id it was
// called with and the entries, by ascending id.
type Result struct {
	Op      Op
	ID      uint64
	Entries []Entry
}

func (r Result) AppendBinary(b []byte) []byte {
	b = core.AppendUint(append(b, byte(r.Op)), r.ID)
	b = core.AppendUint(b, uint64(len(r.Entries)))
	for _, e := range r.Entries {
		b = core.AppendString(core.AppendUint(b, e.ID), e.Det)
	}
	return b
}

func (r Result) String() string {
	if r.Op != OpRetrieve {
		return fmt.Sprintf("%v=%d", r.Op, r.ID)
	}
	var s []string
	for _, e := range r.Entries {
		s = append(s, fmt.Sprintf("%d:%s", e.ID, e.Det))
	}
	return fmt.Sprintf("retrieve-since(%d)=[%s]", r.ID, strings.Join(s, " "))
}

// command is what the Paxos loggers put in an instance: an operation of
// process Proc on its log. Save carries the id and the determinant;
// remove-up-to the id; retrieve-since is a read barrier (its Nonce, the
// process's operation count, makes it a command of its own), decided like
// any command so that the read sees every instance before it.
type command struct {
	Op    Op
	Proc  core.Rank
	Inc   uint64 // the proposer's incarnation
	ID    uint64
	Nonce uint64
	Det   string
}

// encode writes the command as readable text, "save|p0|i0|1|1|d0.1" (op,
// process, incarnation, id, nonce, determinant last, so that it may hold
// any byte).
func (c command) encode() string {
	return fmt.Sprintf("%v|p%d|i%d|%d|%d|%s", c.Op, c.Proc, c.Inc, c.ID, c.Nonce, c.Det)
}

func decodeCommand(s string) (command, bool) {
	f := strings.SplitN(s, "|", 6)
	if len(f) != 6 || !strings.HasPrefix(f[1], "p") || !strings.HasPrefix(f[2], "i") {
		return command{}, false
	}
	inc, err := strconv.ParseUint(f[2][1:], 10, 64)
	if err != nil {
		return command{}, false
	}
	f = append(f[:2], f[3:]...)
	var c command
	switch f[0] {
	case OpSave.String():
		c.Op = OpSave
	case OpRemove.String():
		c.Op = OpRemove
	case OpRetrieve.String():
		c.Op = OpRetrieve
	default:
		return command{}, false
	}
	p, err1 := strconv.ParseInt(f[1][1:], 10, 32)
	id, err2 := strconv.ParseUint(f[2], 10, 64)
	nonce, err3 := strconv.ParseUint(f[3], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || p < 0 {
		return command{}, false
	}
	c.Proc, c.Inc, c.ID, c.Nonce, c.Det = core.Rank(p), inc, id, nonce, f[4]
	if c.encode() != s { // canonical only
		return command{}, false
	}
	return c, true
}

// logOf replays a sequence of decided commands as process p's log object:
// the entries saved and not removed, by ascending id.
//
// A command of an incarnation older than one already applied is ignored:
// a crashed incarnation's save or remove still in flight (a REQUEST in a
// channel, an ACCEPT at an acceptor) may be chosen after its successor's
// recovery read, and must then not change the log that read returned.
func logOf(p core.Rank, ds []Decision, fence bool) []Entry {
	var out []Entry
	var removed, inc uint64
	for _, d := range ds {
		if !d.Cmd {
			continue
		}
		c, ok := decodeCommand(d.Data)
		if !ok || c.Proc != p || (fence && c.Inc < inc) {
			continue
		}
		inc = c.Inc
		switch c.Op {
		case OpSave:
			if c.ID > removed && !hasID(out, c.ID) {
				out = insertEntry(out, Entry{c.ID, c.Det})
			}
		case OpRemove:
			removed = max(removed, c.ID)
			k := 0
			for _, e := range out {
				if e.ID > removed {
					out[k] = e
					k++
				}
			}
			out = out[:k]
		}
	}
	return out
}

func hasID(es []Entry, id uint64) bool {
	for _, e := range es {
		if e.ID == id {
			return true
		}
	}
	return false
}

func insertEntry(es []Entry, e Entry) []Entry {
	i := len(es)
	for i > 0 && es[i-1].ID > e.ID {
		i--
	}
	es = append(es, Entry{})
	copy(es[i+1:], es[i:])
	es[i] = e
	return es
}

// since is the entries with id > k.
func since(es []Entry, k uint64) []Entry {
	out := []Entry{}
	for _, e := range es {
		if e.ID > k {
			out = append(out, e)
		}
	}
	return out
}
