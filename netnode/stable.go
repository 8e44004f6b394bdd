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
//     and fsynced after the step;
//   - stable: the machine's Recover() encoding after the step, with the
//     number of journal lines it covers, the incarnation and the Lamport
//     clock; written to stable.tmp and fsynced.
//
// Then the step's log line is written: the step is done, and Restore
// replays the journal up to the steps the logs show. Only then are the
// effects carried out, and then stable.tmp is renamed over stable. A kill
// before the line leaves a journal line that Restore drops; a kill after
// it leaves the stable file at most one step behind the journal, which
// Restore accepts (it checks the state at the stable file's step). The
// rename comes after the sends are queued because it can wait on the
// disk: the connections' writers send meanwhile. A kill between the line
// and the writes loses the step's messages, as a crash loses messages
// not yet on the wire.
//
// The protocols' states have canonical encodings but no decoders in
// general, so Restore rebuilds the state: it steps a fresh machine with
// the journal's events (a Restart event first replaces the machine by its
// Recover(), as the environment does), takes Recover() and checks that its
// encoding is the stable file's, byte for byte. The machine is
// deterministic, so the two agree unless the files were altered.

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

// prepare journals ev and writes m's stable state (m after the step) to
// stable.tmp, both fsynced; publish (the rename) commits it.
func (s *stableStore) prepare(ev core.Event, inc, clock uint64, m core.Recoverable) error {
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
	f, err := os.Create(filepath.Join(s.dir, StableFile+".tmp"))
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
	if err != nil {
		return fmt.Errorf("netnode: stable state: %w", err)
	}
	return nil
}

// publish renames stable.tmp over stable: the commit.
func (s *stableStore) publish() error {
	if err := os.Rename(filepath.Join(s.dir, StableFile+".tmp"), filepath.Join(s.dir, StableFile)); err != nil {
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
	// Steps is the number of journal lines replayed, Calls how many of
	// them are calls (core: a call is made once, so the restarted process
	// goes on with its next one).
	Steps, Calls uint64
}

// Restore reads the state directory dir that a node with Config.StateDir
// wrote before it was killed, and rebuilds its machine: fresh (the
// machine as the process first started, e.g. the model's NewNode) is
// stepped with the journal's first logged events, decoded with decode
// (messages) and decodeInput (calls); a Restart event first replaces the
// machine by its Recover(). logged is the number of steps the node's logs
// show (their complete lines after the header, every earlier incarnation's
// together): a step is done once its line is written, and its effects
// come after, so the restarted state is the one after exactly these steps,
// whatever the kill interrupted. The journal, fsynced before each line,
// has them all. The state the journal gives at the stable file's step
// count (logged, or logged-1 when the kill fell before the rename) must
// encode, after Recover(), to the stable file's state, byte for byte (no
// stable file: nothing was committed, and logged must be 0). Errors: a
// missing or corrupt file, a journal shorter than logged, an event the
// machine refuses, a state other than the committed one. Pass the
// result's Machine, Incarnation, Clock and Steps to New
// (Config.Machine, Config.Incarnation, Config.Clock, Config.Restored)
// with the same StateDir: the journal goes on after the logged steps.
func Restore(dir string, fresh core.Machine, logged uint64, decode func([]byte) (core.Message, error), decodeInput func([]byte) (core.Input, error)) (*Restored, error) {
	if _, ok := fresh.(core.Recoverable); !ok {
		return nil, fmt.Errorf("netnode: restore: %T is not a core.Recoverable", fresh)
	}
	var st stableRecord
	b, err := os.ReadFile(filepath.Join(dir, StableFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		st.State = fresh.(core.Recoverable).Recover().AppendBinary(nil)
	case err != nil:
		return nil, fmt.Errorf("netnode: restore: %w", err)
	default:
		if err := json.Unmarshal(b, &st); err != nil {
			return nil, fmt.Errorf("netnode: restore: %s: %w", StableFile, err)
		}
	}
	if st.Steps != logged && st.Steps+1 != logged {
		return nil, fmt.Errorf("netnode: restore: the logs show %d steps, the stable state covers %d", logged, st.Steps)
	}
	jb, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil && !(errors.Is(err, os.ErrNotExist) && logged == 0) {
		return nil, fmt.Errorf("netnode: restore: %w", err)
	}
	m := fresh
	check := func() error {
		got := m.(core.Recoverable).Recover().AppendBinary(nil)
		if !bytes.Equal(got, st.State) {
			return fmt.Errorf("netnode: restore: the journal rebuilds, at step %d, a stable state other than the committed one (%d bytes, want %d)", st.Steps, len(got), len(st.State))
		}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(jb))
	sc.Buffer(nil, 4*DefaultMaxFrame)
	var keep int // bytes of the journal up to the last logged step
	var steps, calls uint64
	for steps < logged && sc.Scan() {
		if steps == st.Steps {
			if err := check(); err != nil {
				return nil, err
			}
		}
		var jr journalRecord
		if err := json.Unmarshal(sc.Bytes(), &jr); err != nil || jr.Step != steps+1 {
			return nil, fmt.Errorf("netnode: restore: %s line %d: not step %d (%v)", JournalFile, steps+1, steps+1, err)
		}
		ev, err := DecodeEvent(jr.Event, decode, decodeInput)
		if err != nil {
			return nil, fmt.Errorf("netnode: restore: %s line %d: %w", JournalFile, steps+1, err)
		}
		if ev.Kind == core.EvRestart {
			m = m.(core.Recoverable).Recover()
		}
		if _, err := m.Step(ev, nil); err != nil {
			return nil, fmt.Errorf("netnode: restore: %s line %d: the machine refuses %v: %w", JournalFile, steps+1, ev, err)
		}
		if _, ok := m.(core.Recoverable); !ok {
			return nil, fmt.Errorf("netnode: restore: %T is not a core.Recoverable", m)
		}
		keep += len(sc.Bytes()) + 1
		steps++
		if ev.Kind == core.EvCall {
			calls++
		}
	}
	if steps < logged {
		return nil, fmt.Errorf("netnode: restore: the journal has %d steps, the logs show %d", steps, logged)
	}
	if steps == st.Steps {
		if err := check(); err != nil {
			return nil, err
		}
	}
	// A line journaled after the last logged step belongs to a step that
	// never took effect: drop it, so that the next incarnation's follow.
	if err := os.Truncate(filepath.Join(dir, JournalFile), int64(keep)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("netnode: restore: %w", err)
	}
	return &Restored{Machine: m.(core.Recoverable).Recover(), Incarnation: st.Incarnation + 1, Clock: st.Clock, Steps: steps, Calls: calls}, nil
}

// reopenStable opens dir after Restore, to go on journaling after steps.
func reopenStable(dir string, steps uint64) (*stableStore, error) {
	j, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
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
