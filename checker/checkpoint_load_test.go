package checker

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"testing"
)

// loadProbes inserts the fingerprints of src, in the order a checkpoint
// lists them (shard by shard, slot order), into dst, and returns the slots
// the inserts probe in all.
func loadProbes(src, dst *fpSet) int64 {
	var probes int64
	for i := range src.shards {
		for _, fp := range src.shards[i].slots {
			if fp == 0 {
				continue
			}
			t := &dst.shards[i]
			if (t.n+1)*1024 > len(t.slots)*maxLoad1024 {
				t.grow()
			}
			for k := home(fp, len(t.slots)); t.slots[k] != 0; k = (k + 1) % len(t.slots) {
				probes++
			}
			t.insert(fp)
		}
	}
	return probes
}

// TestFingerprintsLoadLinear: a visited set written to a checkpoint (slot
// order, shard by shard) loads back into the same set (fingerprintsInto),
// and into shards reserved first (fpSet.reserve, as fingerprintsInto
// does) each insert probes under 2 slots on average. Inserted in the same
// order into tables that grow as they go, they pile up into long runs
// (the quadratic load this guards against), which the test also measures,
// so that it fails if the order stops mattering.
func TestFingerprintsLoadLinear(t *testing.T) {
	const n = 400_000
	r := rand.New(rand.NewPCG(7, 7))
	var src fpSet
	for src.len() < n {
		src.shards[0].insert(0)
		fp := r.Uint64()
		src.shards[shardOf(fp)].insert(fp)
	}
	var buf bytes.Buffer
	w := &ckWriter{w: bufio.NewWriter(&buf)}
	w.fingerprints(&src)
	w.w.Flush()

	var dst fpSet
	c := &ckReader{r: bufio.NewReader(bytes.NewReader(buf.Bytes()))}
	c.fingerprintsInto(&dst, int64(buf.Len()))
	if c.err != nil {
		t.Fatal(c.err)
	}
	if dst.len() != src.len() {
		t.Fatalf("loaded %d fingerprints, wrote %d", dst.len(), src.len())
	}
	for i := range src.shards {
		for _, fp := range src.shards[i].slots {
			if fp != 0 && !dst.shards[i].contains(fp) {
				t.Fatalf("fingerprint %#x lost", fp)
			}
		}
	}

	var reserved, grown fpSet
	reserved.reserve(uint64(src.len()))
	per, naive := float64(loadProbes(&src, &reserved))/n, float64(loadProbes(&src, &grown))/n
	t.Logf("%d fingerprints: %.2f probes each into reserved shards, %.2f into shards that grow", n, per, naive)
	if per >= 2 {
		t.Errorf("reserved load: %.2f probes per fingerprint, want < 2", per)
	}
	if naive < 10*per {
		t.Errorf("slot-order insertion into growing tables costs %.2f probes, reserved %.2f: the test no longer shows the effect", naive, per)
	}

	bad := &ckReader{r: bufio.NewReader(bytes.NewReader(buf.Bytes()))}
	var none fpSet
	bad.fingerprintsInto(&none, 100)
	if bad.err == nil {
		t.Fatal("a count above the checkpoint's length was accepted")
	}
}
