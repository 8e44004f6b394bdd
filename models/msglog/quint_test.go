package msglog

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/golden"
	"github.com/ftkernel/ftkernel/internal/mutant"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// The Quint specification tla/msglog.qnt (module msglog: recovery's counters, re-send and
// suppression rule on the ring program) and statemachine/msglog agree both ways, on a cluster of
// ml.Process machines driven as the spec's actions are (ring, below):
//
//   - spec → code: TestQuintTracesReplayOnGo replays the committed quint traces
//     tla/traces/msglog3_seed*.itf.json (made in tla/ by `npx quint run msglog.qnt --main msglog3
//     --backend typescript --invariant Inv --max-steps 80 --max-samples 1 --mbt --seed S
//     --out-itf traces/msglog3_seedS.itf.json`) action by action on the Go processes and compares
//     every state: each process's counters, log, checkpoint, incarnation, suppression bounds and
//     every message in every channel;
//   - code → spec: TestGoRunAsQuintReplay writes seeded Go walks with crashes as the Quint test
//     tla/traces/go/msglog_replay.qnt, whose runs take the same actions and expect every Go state
//     (`npx quint test traces/go/msglog_replay.qnt --main msglog_replay --backend typescript` in
//     tla/). The test fails when the committed file differs from what the Go machine gives now;
//     MSGLOG_WRITE_REPLAY=1 rewrites it.
//
// The ring program's receives name their source: no determinant is saved, so the event logger is
// instantLog, which answers every call at once with nothing (retrieve-since finds no
// determinant).

type instantLog struct{}

func (instantLog) Client(core.Rank) (core.Machine, error) { return instantClient{}, nil }
func (instantLog) Save(det string) core.Input             { return instantCall("save " + det) }
func (instantLog) RemoveUpTo(id uint64) core.Input        { return instantCall(fmt.Sprint("remove ", id)) }
func (instantLog) RetrieveSince(id uint64) core.Input {
	return instantCall(fmt.Sprint("retrieve ", id))
}
func (instantLog) Result(core.Value) (uint64, []string, error) {
	return 0, nil, nil
}
func (instantLog) Owns(core.Message) bool { return false }

type instantCall string

func (c instantCall) AppendBinary(b []byte) []byte { return append(b, c...) }
func (c instantCall) String() string               { return string(c) }

// instantClient returns every call in the step that makes it and ignores
// every other event.
type instantClient struct{}

func (instantClient) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if ev.Kind == core.EvCall {
		out = append(out, core.Return(0, ev.Input.(instantCall)))
	}
	return out, nil
}
func (instantClient) Clone() core.Machine          { return instantClient{} }
func (instantClient) AppendBinary(b []byte) []byte { return b }
func (instantClient) String() string               { return "instant" }
func (instantClient) Recover() core.Machine        { return instantClient{} }

// ring is the spec's world: the processes, FIFO channels (a message to a
// crashed process is lost), who was told of whose crash.
type ring struct {
	n              int
	procs          []*ml.Process
	started, alive []bool
	chans          map[[2]int][]core.Message
	told           map[[2]int]bool
	crashes, max   int
}

func newRing(t testing.TB, n, crashes int, mu mutant.Name) *ring {
	cfg := &ml.Config{Program: ml.Ring(n), Log: instantLog{}, Mutant: mu}
	r := &ring{n: n, started: make([]bool, n), alive: make([]bool, n), chans: map[[2]int][]core.Message{}, told: map[[2]int]bool{}, max: crashes}
	for i := range n {
		p, err := ml.New(core.Rank(i), cfg)
		if err != nil {
			t.Fatal(err)
		}
		r.procs = append(r.procs, p)
		r.alive[i] = true
	}
	return r
}

func (r *ring) step(i int, ev core.Event) error {
	effs, err := r.procs[i].Step(ev, nil)
	if err != nil {
		return err
	}
	for _, e := range effs {
		if e.Kind == core.EffSend && r.alive[e.To] {
			k := [2]int{i, int(e.To)}
			r.chans[k] = append(r.chans[k], e.Msg)
		}
	}
	return nil
}

// The spec's actions, with its guards: an action not enabled is an error.
func (r *ring) do(action string, i, j int) error {
	switch {
	case action == "start" && !r.started[i] && r.alive[i]:
		r.started[i] = true
		return r.step(i, core.Call(ml.Start{}))
	case action == "receive" && r.alive[i] && len(r.chans[[2]int{j, i}]) > 0:
		k := [2]int{j, i}
		m := r.chans[k][0]
		r.chans[k] = r.chans[k][1:]
		return r.step(i, core.Receive(core.Rank(j), m))
	case action == "crash" && r.crashes < r.max && r.alive[i] && r.started[i]:
		r.crashes++
		r.alive[i] = false
		for k := range r.chans {
			if k[1] == i {
				r.chans[k] = nil
			}
		}
		return nil
	case action == "detect" && j != i && r.alive[j] && !r.alive[i] && !r.told[[2]int{j, i}]:
		r.told[[2]int{j, i}] = true
		return r.step(j, core.Suspect(core.Rank(i)))
	case action == "restart" && !r.alive[i] && r.allTold(i):
		r.procs[i] = r.procs[i].Recover().(*ml.Process)
		r.alive[i], r.started[i] = true, true
		for k := range r.told {
			if k[1] == i {
				delete(r.told, k)
			}
		}
		return r.step(i, core.Restart())
	}
	return fmt.Errorf("%s(%d, %d) not enabled", action, i, j)
}

func (r *ring) allTold(i int) bool {
	for j := range r.n {
		if j != i && r.alive[j] && !r.told[[2]int{j, i}] {
			return false
		}
	}
	return true
}

// qProc and qMsg are what the spec and the Go machine are compared on.
type qProc struct {
	Alive              bool
	Inc, PC, CkPC      int
	Sent, Recv, Stable []int
	Arrived, CkRecv    []int
	PeerRecv           []int
	Down, Counters     []bool
	Log                [][2]int // (to, seq), sorted
}

type qMsg struct {
	Kind                 string
	Seq, Recv, Sent, Inc int
}

type qState struct {
	Procs []qProc
	Chans map[[2]int][]qMsg // non-empty channels
}

func (r *ring) state() qState {
	s := qState{Chans: map[[2]int][]qMsg{}}
	for i, p := range r.procs {
		q := qProc{Alive: r.alive[i], Inc: int(p.Incarnation()), PC: p.PC(), CkPC: p.CheckpointPC()}
		for j := range core.Rank(r.n) {
			q.Sent = append(q.Sent, int(p.SeqSent(j)))
			q.Recv = append(q.Recv, int(p.SeqRecv(j)))
			q.Stable = append(q.Stable, int(p.RecvStable[j]))
			q.Arrived = append(q.Arrived, int(p.Arrived(j)))
			q.CkRecv = append(q.CkRecv, int(p.CheckpointRecv(j)))
			k, ok := p.PeerRecv(j)
			q.PeerRecv, q.Counters = append(q.PeerRecv, int(k)), append(q.Counters, ok)
			q.Down = append(q.Down, p.Down(j))
			for seq := uint64(1); seq <= p.SeqSent(j); seq++ {
				if p.Logged(j, seq) {
					q.Log = append(q.Log, [2]int{int(j), int(seq)})
				}
			}
		}
		if len(q.Log) != p.LogSize() {
			panic(fmt.Sprintf("p%d: %d logged messages beyond its send counters", i, p.LogSize()-len(q.Log)))
		}
		s.Procs = append(s.Procs, q)
	}
	for k, ms := range r.chans {
		for _, m := range ms {
			var q qMsg
			switch m := m.(type) {
			case ml.App:
				q = qMsg{Kind: "APP", Seq: int(m.Seq), Inc: int(m.For)}
			case ml.GC:
				q = qMsg{Kind: "GC", Seq: int(m.Stable)}
			case ml.ResendFrom:
				q = qMsg{Kind: "RESEND", Recv: int(m.Recv), Inc: int(m.Inc)}
			case ml.Counters:
				q = qMsg{Kind: "COUNTERS", Recv: int(m.Recv), Sent: int(m.Sent), Inc: int(m.For)}
			}
			s.Chans[k] = append(s.Chans[k], q)
		}
	}
	return s
}

// itf reads an ITF value as Go values: #bigint → int, #tup, #set and
// lists → []any, #map → [][2]any, records → map[string]any.
func itf(raw any) any {
	switch v := raw.(type) {
	case map[string]any:
		if b, ok := v["#bigint"]; ok {
			k, err := strconv.Atoi(b.(string))
			if err != nil {
				panic(err)
			}
			return k
		}
		if xs, ok := v["#tup"]; ok {
			return itf(xs)
		}
		if xs, ok := v["#set"]; ok {
			return itf(xs)
		}
		if kvs, ok := v["#map"]; ok {
			var out [][2]any
			for _, kv := range kvs.([]any) {
				p := kv.([]any)
				out = append(out, [2]any{itf(p[0]), itf(p[1])})
			}
			return out
		}
		out := map[string]any{}
		for k, x := range v {
			out[k] = itf(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = itf(x)
		}
		return out
	}
	return raw
}

func itfInts(m any, n int) []int {
	out := make([]int, n)
	for _, kv := range m.([][2]any) {
		out[kv[0].(int)] = kv[1].(int)
	}
	return out
}

func itfBools(m any, n int) []bool {
	out := make([]bool, n)
	for _, kv := range m.([][2]any) {
		out[kv[0].(int)] = kv[1].(bool)
	}
	return out
}

func itfPairs(l any) [][2]int {
	var out [][2]int
	for _, e := range l.([]any) {
		t := e.([]any)
		out = append(out, [2]int{t[0].(int), t[1].(int)})
	}
	return out
}

// specState is the spec's state in ITF as a qState (Arrived computed by
// the spec's arrived).
func specState(procs, chans any, n int) qState {
	s := qState{Procs: make([]qProc, n), Chans: map[[2]int][]qMsg{}}
	for _, kv := range procs.([][2]any) {
		p := kv[1].(map[string]any)
		ck := p["ck"].(map[string]any)
		q := qProc{Alive: p["alive"].(bool), Inc: p["inc"].(int), PC: p["pc"].(int), CkPC: ck["pc"].(int),
			Sent: itfInts(p["sent"], n), Recv: itfInts(p["recv"], n), Stable: itfInts(p["stable"], n), CkRecv: itfInts(ck["recv"], n),
			PeerRecv: itfInts(p["peerRecv"], n), Down: itfBools(p["down"], n), Counters: itfBools(p["counters"], n), Log: itfPairs(p["log"])}
		q.Arrived = slices.Clone(q.Recv)
		for _, e := range itfPairs(p["inbox"]) {
			q.Arrived[e[0]] = max(q.Arrived[e[0]], e[1])
		}
		slices.SortFunc(q.Log, func(a, b [2]int) int { return (a[0]-b[0])*1000 + a[1] - b[1] })
		s.Procs[kv[0].(int)] = q
	}
	for _, kv := range chans.([][2]any) {
		k := kv[0].([]any)
		for _, m := range kv[1].([]any) {
			r := m.(map[string]any)
			s.Chans[[2]int{k[0].(int), k[1].(int)}] = append(s.Chans[[2]int{k[0].(int), k[1].(int)}],
				qMsg{Kind: r["kind"].(string), Seq: r["seq"].(int), Recv: r["recv"].(int), Sent: r["sent"].(int), Inc: r["inc"].(int)})
		}
	}
	return s
}

func pick(picks map[string]any, name string) int {
	v, ok := picks[name].(map[string]any)
	if !ok || v["tag"] != "Some" {
		return -1
	}
	return v["value"].(int)
}

// replayTraces replays the committed spec traces on the Go processes of
// mutant mu and returns the first difference (nil: every state agrees)
// and the actions taken.
func replayTraces(t *testing.T, mu mutant.Name) (map[string]int, error) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "tla", "traces", "msglog3_seed*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed msglog traces")
	}
	const n = 3
	count := map[string]int{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			States []map[string]any `json:"states"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		r := newRing(t, n, 1, mu)
		for k, st := range doc.States {
			v := itf(map[string]any(st)).(map[string]any)
			if k > 0 {
				action := v["mbt::actionTaken"].(string)
				picks := v["mbt::nondetPicks"].(map[string]any)
				if err := r.do(action, pick(picks, "i"), pick(picks, "j")); err != nil {
					return count, fmt.Errorf("%s state %d: %v", filepath.Base(file), k, err)
				}
				count[action]++
			}
			want := specState(v["msglog3::msglog::procs"], v["msglog3::msglog::chans"], n)
			if d := cmp.Diff(want, r.state()); d != "" {
				return count, fmt.Errorf("%s state %d: Go differs from the spec (-spec +go):\n%s", filepath.Base(file), k, d)
			}
		}
	}
	return count, nil
}

func TestQuintTracesReplayOnGo(t *testing.T) {
	count, err := replayTraces(t, mutant.None)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"start", "receive", "crash", "detect", "restart"} {
		if count[a] == 0 {
			t.Errorf("the traces never take %s: %v", a, count)
		}
	}
	t.Logf("actions %v", count)
}

// TestQuintReplayCatchesMutants: the comparison can fail. The same traces
// replayed on the Go mutants that break the counters' rules differ from
// the spec.
func TestQuintReplayCatchesMutants(t *testing.T) {
	for _, mu := range []mutant.Name{ml.MutantRetransmitReceived, ml.MutantZeroBasedIDs} {
		if _, err := replayTraces(t, mu); err == nil {
			t.Errorf("%s: every state agrees with the spec", mu)
		} else {
			t.Logf("%s: %v", mu, strings.SplitN(err.Error(), "\n", 2)[0])
		}
	}
}

// quintState writes s as the spec's procView and chanView (tla/msglog.qnt).
func quintState(s qState) string {
	b2i := func(x bool) int {
		if x {
			return 1
		}
		return 0
	}
	list := func(xs []int) string {
		ss := make([]string, len(xs))
		for i, x := range xs {
			ss[i] = strconv.Itoa(x)
		}
		return "[" + strings.Join(ss, ", ") + "]"
	}
	var rows []string
	for _, p := range s.Procs {
		row := []int{b2i(p.Alive), p.Inc, p.PC, p.CkPC}
		for j := range p.Sent {
			row = append(row, p.Sent[j], p.Recv[j], p.Stable[j], p.CkRecv[j], p.PeerRecv[j], p.Arrived[j], b2i(p.Down[j]), b2i(p.Counters[j]))
		}
		for _, e := range p.Log {
			row = append(row, e[0]*1000+e[1])
		}
		rows = append(rows, list(row))
	}
	kinds := map[string]int{"APP": 1, "GC": 2, "RESEND": 3, "COUNTERS": 4}
	var chans []string
	for c := range len(s.Procs) * len(s.Procs) {
		var ms []string
		for _, m := range s.Chans[[2]int{c / len(s.Procs), c % len(s.Procs)}] {
			ms = append(ms, list([]int{kinds[m.Kind], m.Seq, m.Recv, m.Sent, m.Inc}))
		}
		chans = append(chans, "["+strings.Join(ms, ", ")+"]")
	}
	return fmt.Sprintf("all { procView == [%s], chanView == [%s] }", strings.Join(rows, ", "), strings.Join(chans, ", "))
}

// goReplay runs seeded walks of the ring cluster (3 processes, one crash),
// each a random enabled action per step until none is, and writes them as
// a Quint test whose runs take the same actions and expect every Go
// state.
func goReplay(t testing.TB) string {
	var b strings.Builder
	b.WriteString("// Generated by models/msglog TestGoRunAsQuintReplay (MSGLOG_WRITE_REPLAY=1 rewrites it): seeded walks\n")
	b.WriteString("// of statemachine/msglog's processes on the ring program, each of their states expected in tla/msglog.qnt.\n")
	b.WriteString("module msglog_replay {\n  import msglog(N = 3, CRASHES = 1, MUTANT = \"\").* from \"../../msglog\"\n")
	for seed := range uint64(2) {
		rng := rand.New(rand.NewPCG(seed, 25))
		r := newRing(t, 3, 1, mutant.None)
		fmt.Fprintf(&b, "\n  run walk%dTest =\n    init\n    .expect(%s)\n", seed, quintState(r.state()))
		for {
			var en [][3]int // action index, i, j
			names := []string{"start", "receive", "crash", "detect", "restart"}
			for a, name := range names {
				for i := range 3 {
					for j := range 3 {
						if (name == "receive" || name == "detect") || j == 0 {
							c := *r
							c.chans, c.told = cloneChans(r.chans), maps.Clone(r.told)
							c.procs, c.alive, c.started = cloneProcs(r.procs), slices.Clone(r.alive), slices.Clone(r.started)
							if c.do(name, i, j) == nil {
								en = append(en, [3]int{a, i, j})
							}
						}
					}
				}
			}
			if len(en) == 0 {
				break
			}
			e := en[rng.IntN(len(en))]
			if err := r.do(names[e[0]], e[1], e[2]); err != nil {
				t.Fatal(err)
			}
			switch names[e[0]] {
			case "receive", "detect":
				fmt.Fprintf(&b, "    .then(%s(%d, %d))\n", names[e[0]], e[2], e[1])
			default:
				fmt.Fprintf(&b, "    .then(%s(%d))\n", names[e[0]], e[1])
			}
			fmt.Fprintf(&b, "    .expect(%s)\n", quintState(r.state()))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

func cloneChans(m map[[2]int][]core.Message) map[[2]int][]core.Message {
	out := map[[2]int][]core.Message{}
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

func cloneProcs(ps []*ml.Process) []*ml.Process {
	out := make([]*ml.Process, len(ps))
	for i, p := range ps {
		out[i] = p.Clone().(*ml.Process)
	}
	return out
}

func TestGoRunAsQuintReplay(t *testing.T) {
	file := filepath.Join("..", "..", "tla", "traces", "go", "msglog_replay.qnt")
	got := goReplay(t)
	for _, a := range []string{".then(crash(", ".then(restart(", ".then(detect("} {
		if !strings.Contains(got, a) {
			t.Fatalf("the Go walks never take %s", a)
		}
	}
	golden.Check(t, file, got, "MSGLOG_WRITE_REPLAY") // then: npx quint test traces/go/msglog_replay.qnt
}
