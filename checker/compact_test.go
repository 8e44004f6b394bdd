package checker

import (
	"errors"
	"os"
	"reflect"
	"testing"
)

// cgrid is the grid with a Codec: a point is encoded as two uvarints, so
// levels of more than one block (chunkSize states) appear from N ≥ 256.
type cgrid struct {
	grid
	noDecode bool
}

func (g *cgrid) Encode(b []byte, s pt) []byte {
	b = appendUvarint(b, uint64(s.X))
	return appendUvarint(b, uint64(s.Y))
}

func appendUvarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

func readUvarint(b []byte) (uint64, []byte, error) {
	var x uint64
	for i, c := range b {
		if i == 9 {
			break
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, b[i+1:], nil
		}
	}
	return 0, nil, errors.New("bad uvarint")
}

func (g *cgrid) Decode(b []byte) (pt, error) {
	x, b, err := readUvarint(b)
	if err != nil {
		return pt{}, err
	}
	y, b, err := readUvarint(b)
	if err != nil || len(b) != 0 {
		return pt{}, errors.New("bad point")
	}
	return pt{int(x), int(y)}, nil
}

func (g *cgrid) Decodes() bool { return !g.noDecode }

// TestCompactFrontierSameResult: the compact frontier gives BFS's counts,
// depth and shortest counterexamples (same steps as whole states), on
// levels of many blocks and with every worker count.
func TestCompactFrontierSameResult(t *testing.T) {
	for _, props := range [][]Property[pt]{nil, {sumBelow(700)}, {xStepBelow(650)}} {
		g := &cgrid{grid: grid{N: 400, props: props}}
		whole := BFS[pt](g, Options{Workers: 2, WholeStates: true})
		if whole.Compact {
			t.Fatal("WholeStates ignored")
		}
		for _, w := range []int{1, 3} {
			r := BFS[pt](g, Options{Workers: w})
			if !r.Compact || r.States != whole.States || r.Transitions != whole.Transitions || r.Depth != whole.Depth || r.Stop != whole.Stop {
				t.Fatalf("compact %v: %d states %d transitions depth %d stop %s; whole states: %d %d %d %s",
					r.Compact, r.States, r.Transitions, r.Depth, r.Stop, whole.States, whole.Transitions, whole.Depth, whole.Stop)
			}
			if !reflect.DeepEqual(r.Violations, whole.Violations) {
				t.Fatalf("counterexamples differ:\n%v\n%v", r.Violations, whole.Violations)
			}
			if r.MaxQueue <= chunkSize {
				t.Fatalf("largest level %d states: the test does not cross blocks", r.MaxQueue)
			}
			// A point below 400 encodes in 2 to 4 bytes, plus 4 of offset.
			if b := r.QueueBytesPerState(); b < 6 || b > 8 {
				t.Fatalf("%.2f bytes per queued state, want 6 to 8", b)
			}
		}
	}
	g := &cgrid{grid: grid{N: 10}, noDecode: true}
	if r := BFS[pt](g, Options{}); r.Compact || r.States != 121 {
		t.Fatalf("a model that cannot decode: compact %v, %d states", r.Compact, r.States)
	}
}

// badDecode is a cgrid whose Decode fails at (3, 4): BFS reports the error.
type badDecode struct{ cgrid }

func (g *badDecode) Decode(b []byte) (pt, error) {
	s, err := g.cgrid.Decode(b)
	if s == (pt{3, 4}) {
		return s, errors.New("cannot decode (3,4)")
	}
	return s, err
}

func TestCompactFrontierDecodeError(t *testing.T) {
	r := BFS[pt](&badDecode{cgrid{grid: grid{N: 10}}}, Options{Workers: 2})
	if r.Stop != StopError || r.Err == nil || r.Complete {
		t.Fatalf("stop %s err %v", r.Stop, r.Err)
	}
}

// TestSpillSameCounts: with a queue budget of one block the levels go to
// disk, and the counts and counterexamples equal the in-memory run's; the
// spill files are removed.
func TestSpillSameCounts(t *testing.T) {
	dir := t.TempDir()
	for _, props := range [][]Property[pt]{nil, {sumBelow(700)}} {
		g := &cgrid{grid: grid{N: 400, props: props}}
		mem := BFS[pt](g, Options{Workers: 2})
		disk := BFS[pt](g, Options{Workers: 2, SpillDir: dir, QueueMemory: 1})
		if disk.Spilled == 0 || mem.Spilled != 0 {
			t.Fatalf("spilled %d bytes with a 1-byte budget, %d without a directory", disk.Spilled, mem.Spilled)
		}
		if disk.States != mem.States || disk.Transitions != mem.Transitions || disk.Depth != mem.Depth ||
			disk.Stop != mem.Stop || !reflect.DeepEqual(disk.Violations, mem.Violations) {
			t.Fatalf("spilled run %d/%d/%d/%s, in memory %d/%d/%d/%s", disk.States, disk.Transitions, disk.Depth, disk.Stop,
				mem.States, mem.Transitions, mem.Depth, mem.Stop)
		}
	}
	left, err := os.ReadDir(dir)
	if err != nil || len(left) != 0 {
		t.Fatalf("spill directory holds %d files (%v)", len(left), err)
	}
}
