// Package conformance checks that the Quint specification of ERA
// (tla/era_go.qnt, module eraGo) and the Go reference machine
// (statemachine/era inside checker/env) allow the same behaviours, in both
// directions:
//
//   - spec → code: ITF traces written by `quint run --mbt --out-itf` are
//     replayed step by step on the Go machines (ReplayITF), and after every
//     step the spec's state is compared with an abstraction of the Go world
//     (State);
//   - code → spec: a checker.Trace of the ERA environment is written as ITF
//     with the spec's variable names (TraceITF), and as a Quint `run` test
//     (QuintRun) that takes the same actions in the spec and expects, after
//     each, the state the Go machine reached.
//
// Granularity: a Go step is one event plus the spontaneous rule (DC) the
// node applies before returning; in the spec DC is an action of its own.
// The traces are generated with the spec's `stepEager` (DC has priority),
// so every DC of a spec trace directly follows the event that enabled it:
// on the Go side it is a stutter, and states are compared after the last
// DC of each group. In the other direction each Go step becomes the spec
// action followed by `settle(p)` (p's pending DC, if any), once per
// agreement.
package conformance

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// itfTrace is an ITF trace: states with variable names stripped of their
// module qualifiers ("eraGo4::eraGo::S" → "S").
type itfTrace struct {
	Vars   []string
	States []map[string]any
}

// readITF decodes an ITF file into plain Go values (see decodeITF).
func readITF(path string) (*itfTrace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Vars   []string         `json:"vars"`
		States []map[string]any `json:"states"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t := &itfTrace{}
	for _, v := range raw.Vars {
		t.Vars = append(t.Vars, shortName(v))
	}
	for i, st := range raw.States {
		out := map[string]any{}
		for k, v := range st {
			if k == "#meta" {
				continue
			}
			d, err := decodeITF(v)
			if err != nil {
				return nil, fmt.Errorf("%s: state %d, %s: %w", path, i, k, err)
			}
			out[shortName(k)] = d
		}
		t.States = append(t.States, out)
	}
	return t, nil
}

// shortName strips everything up to the last "::", except for the mbt::
// fields, which keep their names.
func shortName(v string) string {
	if strings.HasPrefix(v, "mbt::") {
		return v
	}
	if i := strings.LastIndex(v, "::"); i >= 0 {
		return v[i+2:]
	}
	return v
}

// itfMap is a decoded "#map": its key/value pairs in file order.
type itfMap [][2]any

// decodeITF turns an ITF JSON value into: int (#bigint), []any (#set,
// #tup, JSON lists), itfMap (#map), string, bool, and map[string]any
// (records and variants {tag, value}).
func decodeITF(v any) (any, error) {
	switch x := v.(type) {
	case string, bool:
		return x, nil
	case float64:
		return int(x), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			d, err := decodeITF(e)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		if s, ok := x["#bigint"]; ok {
			n, err := strconv.Atoi(fmt.Sprint(s))
			if err != nil {
				return nil, fmt.Errorf("bad #bigint %v", s)
			}
			return n, nil
		}
		for _, k := range []string{"#set", "#tup"} {
			if s, ok := x[k]; ok {
				l, _ := s.([]any)
				return decodeITF(l)
			}
		}
		if s, ok := x["#map"]; ok {
			l, _ := s.([]any)
			out := make(itfMap, 0, len(l))
			for _, e := range l {
				kv, ok := e.([]any)
				if !ok || len(kv) != 2 {
					return nil, fmt.Errorf("bad #map entry %v", e)
				}
				k, err := decodeITF(kv[0])
				if err != nil {
					return nil, err
				}
				val, err := decodeITF(kv[1])
				if err != nil {
					return nil, err
				}
				out = append(out, [2]any{k, val})
			}
			return out, nil
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			d, err := decodeITF(e)
			if err != nil {
				return nil, err
			}
			out[k] = d
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected ITF value %v (%T)", v, v)
}

// Accessors: they panic on a value of the wrong shape (a spec whose
// variables do not have the expected types), which the caller recovers.

func asInt(v any) int { return v.(int) }

func asInts(v any) []int {
	var out []int
	for _, e := range v.([]any) {
		out = append(out, asInt(e))
	}
	slices.Sort(out)
	return out
}

func asMap(v any) itfMap { return v.(itfMap) }

// intKeyed reads a #map with int keys.
func intKeyed(v any) map[int]any {
	out := map[int]any{}
	for _, kv := range asMap(v) {
		out[asInt(kv[0])] = kv[1]
	}
	return out
}

func asMsg(v any) Msg {
	r := v.(map[string]any)
	return Msg{Kind: r["kind"].(string), Src: asInt(r["src"]), Dst: asInt(r["dst"]), A: asInt(r["a"]), V: asInt(r["v"])}
}

// pick is the value of nondeterministic pick name of state st, if Some.
func pick(st map[string]any, name string) (any, bool) {
	picks, ok := st["mbt::nondetPicks"].(map[string]any)
	if !ok {
		return nil, false
	}
	o, ok := picks[name].(map[string]any)
	if !ok || o["tag"] != "Some" {
		return nil, false
	}
	return o["value"], true
}

// ---------------------------------------------------------------- writing

// itfInt is {"#bigint": "n"}.
func itfInt(n int) any { return map[string]any{"#bigint": strconv.Itoa(n)} }

func itfSet(xs []int) any {
	l := make([]any, 0, len(xs))
	for _, x := range xs {
		l = append(l, itfInt(x))
	}
	return map[string]any{"#set": l}
}

func itfMsg(m Msg) any {
	return map[string]any{"kind": m.Kind, "src": itfInt(m.Src), "dst": itfInt(m.Dst), "a": itfInt(m.A), "v": itfInt(m.V)}
}

// itfRankAg builds rank -> a -> f(p, a).
func itfRankAg(s State, ags []int, f func(p, a int, g Agreement) any) any {
	outer := []any{}
	for p, pr := range s.Procs {
		inner := []any{}
		for _, a := range ags {
			inner = append(inner, []any{itfInt(a), f(p, a, pr.Ags[a])})
		}
		outer = append(outer, []any{itfInt(p), map[string]any{"#map": inner}})
	}
	return map[string]any{"#map": outer}
}
