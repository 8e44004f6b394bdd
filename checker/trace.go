package checker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Trace is a path through a model: an initial state and the actions taken
// from it, usually ending in a property violation. It is self-describing:
// Model is Model.Name(), Params are the settings the caller (a CLI) needs to
// rebuild the model, Seed the random walk's seed if a walk found it. Saved
// as JSON by WriteFile and read back by ReadTraceFile.
type Trace struct {
	Model  string            `json:"model"`
	Params map[string]string `json:"params,omitempty"`
	// Seed is the seed of the random walk that found the trace (WalkResult);
	// nil for breadth-first search.
	Seed *uint64 `json:"seed,omitempty"`
	// Init is the index of the initial state in Model.Init().
	Init  int    `json:"init"`
	Steps []Step `json:"steps"`
	// Violation is the property that fails at the end of Steps, or nil.
	Violation *Violation `json:"violation,omitempty"`
	// Loop, when positive, makes the trace a lasso (found by DFS with
	// Options.Lassos): its last Loop steps form a cycle that leads back to
	// the state reached after LoopStart() steps, and no state on it is
	// quiescent, so the system can run forever without quiescing. Zero for
	// an ordinary trace (and then absent from the JSON form). Under
	// symmetry the cycle closes up to symmetry: the two states have the
	// same canonical representative.
	Loop int `json:"loop,omitempty"`
}

// LoopStart is the number of steps before a lasso's cycle: the cycle runs
// from the state after LoopStart() steps back to it. It is len(Steps) when
// the trace is not a lasso.
func (t *Trace) LoopStart() int { return len(t.Steps) - t.Loop }

// Step is one action of a trace. Text is Model.Describe(prev, Action): only
// for people; replay uses Action. KindName names Action.Kind when the model
// is a KindNamer ("" otherwise).
//
// In JSON a step is {"action": {"kind": 1, "name": "deliver", "p": 2,
// "q": 0, "i": 0}, "text": "…"}; "name" is left out when KindName is empty,
// as in traces written before kinds had names, which read back unchanged.
type Step struct {
	Action   Action
	KindName string
	Text     string
}

// stepJSON and actionJSON are Step's JSON form.
type stepJSON struct {
	Action actionJSON `json:"action"`
	Text   string     `json:"text"`
}

type actionJSON struct {
	Kind uint8  `json:"kind"`
	Name string `json:"name,omitempty"`
	P    int32  `json:"p"`
	Q    int32  `json:"q"`
	I    int32  `json:"i"`
}

// MarshalJSON writes the step with its kind's name, if any.
func (s Step) MarshalJSON() ([]byte, error) {
	a := s.Action
	return json.Marshal(stepJSON{Action: actionJSON{Kind: a.Kind, Name: s.KindName, P: a.P, Q: a.Q, I: a.I}, Text: s.Text})
}

// UnmarshalJSON reads a step, with or without its kind's name; unknown
// fields are errors.
func (s *Step) UnmarshalJSON(b []byte) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var j stepJSON
	if err := d.Decode(&j); err != nil {
		return err
	}
	a := j.Action
	*s = Step{Action: Action{Kind: a.Kind, P: a.P, Q: a.Q, I: a.I}, KindName: a.Name, Text: j.Text}
	return nil
}

// Violation says which property failed and where.
type Violation struct {
	Property string `json:"property"`
	// Kind is PropertyKind.String(): "invariant", "quiescence" or
	// "transition".
	Kind string `json:"kind"`
	// Message is the property's error text.
	Message string `json:"message"`
	// Steps is the number of steps taken when the property failed: the
	// state after Steps steps violates an invariant or quiescence property,
	// or step number Steps (counting from 1) violates a transition property.
	Steps int `json:"steps"`
}

// String formats the violation on one line (a value receiver: a Violation
// and a *Violation print alike).
func (v Violation) String() string {
	return fmt.Sprintf("%s %s violated after step %d: %s", v.Kind, v.Property, v.Steps, v.Message)
}

// WriteFile saves the trace as indented JSON at path (mode 0644).
func (t *Trace) WriteFile(path string) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadTraceFile loads a trace saved by WriteFile. Malformed JSON, unknown
// fields, a negative Init or a Violation.Steps outside 0..len(Steps) are
// errors.
func ReadTraceFile(path string) (*Trace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTrace(b)
}

// ParseTrace decodes a trace from its JSON form (see ReadTraceFile).
func ParseTrace(b []byte) (*Trace, error) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	var t Trace
	if err := d.Decode(&t); err != nil {
		return nil, fmt.Errorf("checker: trace: %w", err)
	}
	if d.More() {
		return nil, errors.New("checker: trace: trailing data")
	}
	if t.Init < 0 {
		return nil, fmt.Errorf("checker: trace: negative init %d", t.Init)
	}
	if v := t.Violation; v != nil && (v.Steps < 0 || v.Steps > len(t.Steps)) {
		return nil, fmt.Errorf("checker: trace: violation at step %d of %d", v.Steps, len(t.Steps))
	}
	if t.Loop < 0 || t.Loop > len(t.Steps) {
		return nil, fmt.Errorf("checker: trace: loop of %d steps in %d", t.Loop, len(t.Steps))
	}
	return &t, nil
}

// Format prints the trace for a person:
//
//	model: twophase rm=3
//	init: 0
//	  1. TMAbort
//	  2. RMRcvAbortMsg(r0)
//	violated: invariant TCConsistent after step 2: r0 aborted …
func (t *Trace) Format(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "model: %s\n", t.Model)
	if len(t.Params) > 0 {
		keys := make([]string, 0, len(t.Params))
		for k := range t.Params {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString("params:")
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%s", k, t.Params[k])
		}
		b.WriteByte('\n')
	}
	if t.Seed != nil {
		fmt.Fprintf(&b, "seed: %d\n", *t.Seed)
	}
	fmt.Fprintf(&b, "init: %d\n", t.Init)
	for i, s := range t.Steps {
		if t.Loop > 0 && i == t.LoopStart() {
			b.WriteString("     -- loop --\n")
		}
		fmt.Fprintf(&b, "%3d. %s\n", i+1, s.Text)
	}
	if t.Loop > 0 {
		fmt.Fprintf(&b, "     -- back to the state after step %d --\n", t.LoopStart())
	}
	if v := t.Violation; v != nil {
		fmt.Fprintf(&b, "violated: %s\n", v)
	} else {
		b.WriteString("no violation\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// String is Format's output.
func (t *Trace) String() string {
	var b strings.Builder
	t.Format(&b)
	return b.String()
}
