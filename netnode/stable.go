package netnode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ftkernel/ftkernel/core"
)

// Stable storage (crash-recovery, core.Recoverable).
//
// With Config.StateDir a node keeps, in that directory, what its machine
// declares stable, so that a process killed at any moment can be
// restarted from it (Restore):
//
//   - journal: one JSON line per step (the event, as in the log), appended
//     and fsynced after the step and before its log line and effects;
//   - stable: the machine's Recover() encoding after the step, with the
//     number of journal lines it covers, the incarnation and the Lamport
//     clock; written to stable.tmp, fsynced and renamed over stable. The
//     rename is the commit: a kill before it leaves the previous step's
//     stable state, and its effects never left the process.
//
// The protocols' states have canonical encodings but no decoders in
// general, so Restore rebuilds the state: it steps a fresh machine with
// the journal's events up to the committed count (a Restart event first
// replaces the machine by its Recover(), as the environment does), takes
// Recover() and checks that its encoding is the committed one, byte for
// byte. The machine is deterministic, so the two agree unless the files
// were altered.

// Names of the files in Config.StateDir.
const (
	StableFile  = "stable"
	JournalFile = "journal"
)

// stableRecord is the content of the stable file.
type stableRecord struct {
	Steps       uint64 `json:"steps"`       // journal lines it covers
	Incarnation uint64 `json:"incarnation"` // of the process that wrote it
	Clock       uint64 `json:"lc"`          // Lamport clock after the step
	State       []byte `json:"state"`       // Recover().AppendBinary()
}

// journalRecord is one line of the journal.
type journalRecord struct {
	Step  uint64      `json:"step"` // 1, 2, … across incarnations
	Event EventRecord `json:"ev"`
}

// stableStore is an open state directory.
type stableStore struct {
	dir     string
	journal *os.File
	steps   uint64
}

// openStable opens dir for a node that starts from scratch
// (incarnation 0): any previous journal and stable state are removed.
func openStable(dir string) (*stableStore, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("netnode: state directory: %w", err)
	}
	for _, f := range []string{StableFile, StableFile + ".tmp", JournalFile} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("netnode: state directory: %w", err)
		}
	}
	j, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("netnode: journal: %w", err)
	}
	return &stableStore{dir: dir, journal: j}, nil
}

// commit journals ev and writes m's stable state (m after the step).
func (s *stableStore) commit(ev core.Event, inc, clock uint64, m core.Recoverable) error {
	s.steps++
	line, err := json.Marshal(journalRecord{Step: s.steps, Event: EncodeEvent(ev)})
	if err != nil {
		return err
	}
	if _, err := s.journal.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("netnode: journal: %w", err)
	}
	if err := s.journal.Sync(); err != nil {
		return fmt.Errorf("netnode: journal: %w", err)
	}
	b, err := json.Marshal(stableRecord{Steps: s.steps, Incarnation: inc, Clock: clock, State: m.Recover().AppendBinary(nil)})
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.dir, StableFile), b)
}

// writeAtomic replaces path by b: a temporary file, fsynced, renamed.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("netnode: stable state: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		return fmt.Errorf("netnode: stable state: %w", err)
	}
	return nil
}

func (s *stableStore) close() {
	if s != nil {
		s.journal.Close()
	}
}

// Restored is what Restore read from a state directory.
type Restored struct {
	// Machine is the machine as it restarts: Recover() of the state the
	// journal rebuilds; the node steps it with core.Restart() first.
	Machine core.Machine
	// Incarnation is the restarted process's: one more than the one that
	// wrote the stable state.
	Incarnation uint64
	// Clock is the Lamport clock of the last committed step.
	Clock uint64
	// Steps is the number of journal lines replayed.
	Steps uint64
}

// Restore reads the state directory dir that a node with Config.StateDir
// wrote before it was killed and rebuilds its machine: fresh (the
// machine as the process first started, e.g. the model's NewNode) is
// stepped with the journal's committed events, decoded with decode
// (messages) and decodeInput (calls); a Restart event first replaces the
// machine by its Recover(). The result's Recover() must encode to the
// committed stable state. Errors: a missing or corrupt file, a journal
// shorter than the stable state, an event the machine refuses, a state
// that differs from the committed one. Pass the result's Machine and
// Incarnation to New (Config.Machine, Config.Incarnation, Config.Clock)
// with the same StateDir: the journal goes on.
func Restore(dir string, fresh core.Machine, decode func([]byte) (core.Message, error), decodeInput func([]byte) (core.Input, error)) (*Restored, error) {
	b, err := os.ReadFile(filepath.Join(dir, StableFile))
	if err != nil {
		return nil, fmt.Errorf("netnode: restore: %w", err)
	}
	var st stableRecord
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("netnode: restore: %s: %w", StableFile, err)
	}
	jb, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, fmt.Errorf("netnode: restore: %w", err)
	}
	m := fresh
	sc := bufio.NewScanner(bytes.NewReader(jb))
	sc.Buffer(nil, 4*DefaultMaxFrame)
	var keep int // bytes of the journal up to the last committed line
	var steps uint64
	for steps < st.Steps && sc.Scan() {
		var jr journalRecord
		if err := json.Unmarshal(sc.Bytes(), &jr); err != nil || jr.Step != steps+1 {
			return nil, fmt.Errorf("netnode: restore: %s line %d: not step %d (%v)", JournalFile, steps+1, steps+1, err)
		}
		ev, err := DecodeEvent(jr.Event, decode, decodeInput)
		if err != nil {
			return nil, fmt.Errorf("netnode: restore: %s line %d: %w", JournalFile, steps+1, err)
		}
		if ev.Kind == core.EvRestart {
			rec, ok := m.(core.Recoverable)
			if !ok {
				return nil, fmt.Errorf("netnode: restore: %T is not a core.Recoverable", m)
			}
			m = rec.Recover()
		}
		if _, err := m.Step(ev, nil); err != nil {
			return nil, fmt.Errorf("netnode: restore: %s line %d: the machine refuses %v: %w", JournalFile, steps+1, ev, err)
		}
		keep += len(sc.Bytes()) + 1
		steps++
	}
	if steps < st.Steps {
		return nil, fmt.Errorf("netnode: restore: the journal has %d steps, the stable state covers %d", steps, st.Steps)
	}
	rec, ok := m.(core.Recoverable)
	if !ok {
		return nil, fmt.Errorf("netnode: restore: %T is not a core.Recoverable", m)
	}
	m = rec.Recover()
	if got := m.AppendBinary(nil); !bytes.Equal(got, st.State) {
		return nil, fmt.Errorf("netnode: restore: the journal rebuilds a stable state other than the committed one (%d bytes, want %d)", len(got), len(st.State))
	}
	// A line journaled after the last commit belongs to a step that never
	// took effect: drop it, so that the next incarnation's lines follow.
	if err := os.Truncate(filepath.Join(dir, JournalFile), int64(keep)); err != nil {
		return nil, fmt.Errorf("netnode: restore: %w", err)
	}
	return &Restored{Machine: m, Incarnation: st.Incarnation + 1, Clock: st.Clock, Steps: steps}, nil
}

// reopenStable opens dir after Restore, to go on journaling after steps.
func reopenStable(dir string, steps uint64) (*stableStore, error) {
	j, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("netnode: journal: %w", err)
	}
	return &stableStore{dir: dir, journal: j, steps: steps}, nil
}

// DecodeEvent is EncodeEvent's inverse: messages are read with decode,
// inputs with decodeInput (nil: a call is an error). Errors name what
// does not decode.
func DecodeEvent(r EventRecord, decode func([]byte) (core.Message, error), decodeInput func([]byte) (core.Input, error)) (core.Event, error) {
	switch r.Kind {
	case "receive":
		m, err := decode(r.Msg)
		if err != nil {
			return core.Event{}, fmt.Errorf("message: %w", err)
		}
		return core.Receive(core.Rank(r.Peer), m), nil
	case "call":
		if decodeInput == nil {
			return core.Event{}, errors.New("a call, and no input decoder")
		}
		in, err := decodeInput(r.Input)
		if err != nil {
			return core.Event{}, fmt.Errorf("input: %w", err)
		}
		return core.Call(in), nil
	case "suspect":
		return core.Suspect(core.Rank(r.Peer)), nil
	case "recovered":
		return core.Recovered(core.Rank(r.Peer)), nil
	case "timer":
		return core.Timer(r.Timer), nil
	case "restart":
		return core.Restart(), nil
	}
	return core.Event{}, fmt.Errorf("event kind %q", r.Kind)
}
