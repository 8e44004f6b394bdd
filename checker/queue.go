package checker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// A compact BFS level (Codec models): the canonical encodings of its states,
// in level order, in blocks of chunkSize consecutive states, which are also
// the units of work of the expand phase. A block costs its encodings plus
// 4 bytes per state (the end offsets). When the bytes held in memory pass
// the queue's budget, full blocks are written to a spill file in sequential
// order and read back (one block per read) when their chunk is expanded:
// TLC's disk queue, with the level as the unit, so a level's file is
// deleted once the level is expanded.

// block holds up to chunkSize encoded states.
type block struct {
	data []byte   // the encodings, back to back; nil once spilled
	ends []uint32 // ends[i] is the end of state i in data
	off  int64    // spilled: offset in the spill file
	size int      // spilled: bytes on disk (data and ends)
}

// queue is one BFS level held compactly.
type queue struct {
	blocks  []*block
	n       int64 // states
	mem     int64 // bytes held in memory (data and ends of blocks not spilled)
	enc     int64 // bytes of all encodings and ends, spilled or not
	spilled int64 // bytes written to the spill file
	budget  int64 // mem above which full blocks are spilled; 0: never
	dir     string
	file    *os.File
}

func newQueue(budget int64, dir string) *queue {
	if dir == "" {
		budget = 0
	}
	return &queue{budget: budget, dir: dir}
}

// push appends the encoding of the next state of the level.
func (q *queue) push(enc []byte) error {
	var b *block
	if len(q.blocks) > 0 {
		b = q.blocks[len(q.blocks)-1]
	}
	if b == nil || len(b.ends) == chunkSize {
		if b != nil {
			if err := q.sealed(b); err != nil {
				return err
			}
		}
		b = &block{}
		if q.n > 0 {
			// Room for a block of states of the mean size so far, so that
			// sealed blocks rarely hold more capacity than bytes.
			b.data = make([]byte, 0, (q.enc/q.n-4)*chunkSize*9/8)
		}
		q.blocks = append(q.blocks, b)
	}
	if uint64(len(b.data))+uint64(len(enc)) > 1<<32-1 {
		return errors.New("checker: a block of encoded states passed 4 GiB")
	}
	b.data = append(b.data, enc...)
	b.ends = append(b.ends, uint32(len(b.data)))
	q.n++
	q.mem += int64(len(enc)) + 4
	q.enc += int64(len(enc)) + 4
	return nil
}

// sealed is called when b is full: it spills b when the queue is over its
// budget.
func (q *queue) sealed(b *block) error {
	if q.budget <= 0 || q.mem <= q.budget {
		return nil
	}
	return q.spill(b)
}

// spill writes b to the level's spill file and frees its memory.
func (q *queue) spill(b *block) error {
	if q.file == nil {
		f, err := os.CreateTemp(q.dir, "ftcheck-queue-*.bin")
		if err != nil {
			return fmt.Errorf("checker: spill: %w", err)
		}
		q.file = f
	}
	rec := make([]byte, 0, 4+4*len(b.ends)+len(b.data))
	rec = binary.LittleEndian.AppendUint32(rec, uint32(len(b.ends)))
	for _, e := range b.ends {
		rec = binary.LittleEndian.AppendUint32(rec, e)
	}
	rec = append(rec, b.data...)
	if _, err := q.file.WriteAt(rec, q.spilled); err != nil {
		return fmt.Errorf("checker: spill: %w", err)
	}
	b.off, b.size = q.spilled, len(rec)
	q.spilled += int64(len(rec))
	q.mem -= int64(len(b.data)) + 4*int64(len(b.ends))
	b.data, b.ends = nil, nil
	return nil
}

// read returns block c's encodings and ends, reading a spilled block into
// buf (reused). Safe for concurrent use.
func (q *queue) read(c int, buf *[]byte) ([]byte, []uint32, error) {
	b := q.blocks[c]
	if b.data != nil || b.size == 0 {
		return b.data, b.ends, nil
	}
	if cap(*buf) < b.size {
		*buf = make([]byte, b.size)
	}
	rec := (*buf)[:b.size]
	if _, err := q.file.ReadAt(rec, b.off); err != nil {
		return nil, nil, fmt.Errorf("checker: reading the spilled queue: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(rec))
	if n > chunkSize || 4+4*n > len(rec) {
		return nil, nil, errors.New("checker: corrupt spill block")
	}
	ends := make([]uint32, n)
	for i := range ends {
		ends[i] = binary.LittleEndian.Uint32(rec[4+4*i:])
	}
	data := rec[4+4*n:]
	if n > 0 && int(ends[n-1]) != len(data) {
		return nil, nil, errors.New("checker: corrupt spill block")
	}
	return data, ends, nil
}

// at returns state i of block data/ends.
func at(data []byte, ends []uint32, i int) []byte {
	lo := uint32(0)
	if i > 0 {
		lo = ends[i-1]
	}
	return data[lo:ends[i]]
}

// close deletes the level's spill file.
func (q *queue) close() {
	if q == nil || q.file == nil {
		return
	}
	name := q.file.Name()
	q.file.Close()
	os.Remove(name)
	q.file = nil
}
