package fuzz

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	replicamodel "github.com/ftkernel/ftkernel/models/replica"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// replicaFromBytes decodes a replica run from fuzz bytes: a header (number
// of logical processes 2–3, a degree 1–3 per process, crash budget 0–2,
// network), a communication pattern (up to 6 communications, 3 bytes
// each), then the schedule: one byte per step choosing among the enabled
// actions (0 when the bytes run out). ok is false when the bytes are too
// short for the header.
func replicaFromBytes(data []byte) (p replicamodel.Params, sched []byte, ok bool) {
	if len(data) < 6 {
		return p, nil, false
	}
	procs := 2 + int(data[0])%2
	p.Degrees = make([]int, procs)
	for i := range p.Degrees {
		p.Degrees[i] = 1 + int(data[1+i])%3
	}
	p.Crashes = int(data[4]) % 3
	p.Network = env.Network(data[5] % 2)
	ncomm := 1 + int(data[5]/2)%6
	data = data[6:]
	var comms []replicamodel.Comm
	for len(comms) < ncomm && len(data) >= 3 {
		src := int(data[0]) % procs
		dst := (src + 1 + int(data[1])%(procs-1)) % procs
		comms = append(comms, replicamodel.Comm{Src: src, Dst: dst, Tag: int(data[1]/8) % 2,
			Fn: sm.Fn(1 + data[2]%4), K: int64(data[2]/4) % 7})
		data = data[3:]
	}
	if len(comms) == 0 {
		comms = []replicamodel.Comm{{Src: 0, Dst: 1, Fn: sm.FnSet, K: 1}}
	}
	progs, err := replicamodel.PatternPrograms(procs, comms)
	if err != nil {
		return p, nil, false
	}
	p.Programs, p.Procs, p.Program = progs, procs, "pattern"
	total := 0
	for _, d := range p.Degrees {
		total += d
	}
	if p.Crashes >= total {
		p.Crashes = total - 1
	}
	return p, data, true
}

// runReplicaBytes runs one fuzz input and fails t on a violated property.
func runReplicaBytes(t tb, data []byte) {
	p, sched, ok := replicaFromBytes(data)
	if !ok {
		return
	}
	m, err := replicamodel.NewModel(p)
	if err != nil {
		t.Fatalf("model: %v", err)
	}
	i := 0
	choose := func(n int) int {
		c := 0
		if i < len(sched) {
			c = int(sched[i]) % n
		}
		i++
		return c
	}
	if w, name, err := replicamodel.Walk(m, choose, 2000); err != nil {
		t.Fatalf("%s violated (%v): %v\nat %v", name, p.Degrees, err, w)
	}
}

// FuzzReplicaSchedule: random communication patterns, replication degrees,
// crash budgets and schedules never violate a replica property.
//
//	go test ./fuzz -run XXX -fuzz FuzzReplicaSchedule -fuzztime 60s
func FuzzReplicaSchedule(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 1, 3, 0, 0, 0, 1, 1, 1})
	f.Add([]byte{1, 2, 2, 2, 2, 9, 0, 1, 5, 2, 9, 3, 1, 0, 7, 5, 5, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{1, 0, 1, 2, 1, 11, 2, 0, 1, 1, 8, 2, 0, 1, 3, 200, 7, 3, 1, 9, 4, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) { runReplicaBytes(t, data) })
}

// TestReplicaFuzzFindsMutants: the fuzz decoder and walk are strong enough
// to catch broken variants from random bytes (so FuzzReplicaSchedule can
// fail).
func TestReplicaFuzzFindsMutants(t *testing.T) {
	for _, mut := range []string{string(sm.MutantNoBackupResend), string(sm.MutantNonMasterSends), string(sm.MutantCommitBeforeSend)} {
		found := -1
		for seed := 0; seed < 3000 && found < 0; seed++ {
			data := make([]byte, 64)
			x := uint32(seed)*2654435761 + 1
			for i := range data {
				x ^= x << 13
				x ^= x >> 17
				x ^= x << 5
				data[i] = byte(x)
			}
			p, sched, ok := replicaFromBytes(data)
			if !ok {
				continue
			}
			p.Mutant = mutantNameReplica(mut)
			m, err := replicamodel.NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			choose := func(n int) int {
				c := 0
				if i < len(sched) {
					c = int(sched[i]) % n
				}
				i++
				return c
			}
			if _, name, err := replicamodel.Walk(m, choose, 2000); err != nil {
				found = seed
				t.Logf("%s: seed %d violates %s: %v", mut, seed, name, err)
			}
		}
		if found < 0 {
			t.Errorf("%s: no violation in 3000 random inputs", mut)
		}
	}
}
