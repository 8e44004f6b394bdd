package checker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Checkpoints of BFS (Options.Checkpoint, Options.Resume). A checkpoint is
// the search as it stands at the start of a level: the visited set, every
// level's parent links, the level's queued states (their encodings: the
// model must be a Codec, so the compact frontier is in use), the number of
// states generated so far and the queue statistics. A level's expand phase
// changes none of these but the generated count, which is kept as it was
// at the level's start, so a checkpoint can be written at any moment of
// the level: every CheckpointEvery at a level's start, and when the search
// is canceled (the level then runs again on resume). It goes to a
// temporary file in the directory, synced, then renamed over
// "checkpoint.bin": a reader sees the old checkpoint or the new one, never
// a part. A resumed search ends with exactly the counts and the
// counterexamples of an uninterrupted one (BFS is deterministic level by
// level), except that violations reported before the checkpoint under
// ContinueAfterViolation are not carried over.

const (
	checkpointFile  = "checkpoint.bin"
	checkpointMagic = "ftkernel-checkpoint-1\n"
	// dfsCheckpointMagic starts a DFS checkpoint (checkpoint_dfs.go); it has
	// the length of checkpointMagic so either reader can name the other.
	dfsCheckpointMagic = "ftkernel-checkpoint-D\n"
)

// checkpointBlocker reports why this run cannot checkpoint or resume, or "".
func (x *search[S]) checkpointBlocker() string {
	switch {
	case x.opt.CheckpointDir == "" && x.opt.Resume == "":
		return ""
	case x.opt.Mode == DepthFirst:
		return x.dfsCheckpointBlocker()
	case x.q == nil:
		return "checkpoints need the compact frontier: a model that is a checker.Codec, without Options.WholeStates or POR"
	}
	return ""
}

// levelStart notes the start of level d and writes a checkpoint when one
// is due.
func (x *search[S]) levelStart(d int) error {
	x.levelGen = x.generated.Load()
	if x.opt.CheckpointDir == "" || x.opt.CheckpointEvery <= 0 || time.Since(x.lastCkpt) < x.opt.CheckpointEvery {
		return nil
	}
	return x.writeCheckpoint(d)
}

// writeCheckpoint writes the search at the start of level d.
func (x *search[S]) writeCheckpoint(d int) error {
	return x.saveCheckpoint(func(w *bufio.Writer) error { return x.encodeCheckpoint(w, d) })
}

// saveCheckpoint writes a checkpoint with enc atomically: to a temporary
// file in Options.CheckpointDir, synced, then renamed over checkpointFile.
func (x *search[S]) saveCheckpoint(enc func(*bufio.Writer) error) error {
	dir := x.opt.CheckpointDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("checker: checkpoint: %w", err)
	}
	f, err := os.CreateTemp(dir, "checkpoint-*.tmp")
	if err != nil {
		return fmt.Errorf("checker: checkpoint: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename: nothing to remove
	w := bufio.NewWriterSize(f, 1<<20)
	err = enc(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, checkpointFile))
	}
	if err != nil {
		return fmt.Errorf("checker: checkpoint: %w", err)
	}
	x.lastCkpt = time.Now()
	x.res.Checkpoints++
	return nil
}

type ckWriter struct {
	w   *bufio.Writer
	tmp [binary.MaxVarintLen64]byte
}

func (c *ckWriter) uint(v uint64) { c.w.Write(binary.AppendUvarint(c.tmp[:0], v)) }

// fingerprints writes the visited set: its size, then every fingerprint
// (shard by shard, 0 first where held), as uvarints.
func (c *ckWriter) fingerprints(v *fpSet) {
	c.uint(uint64(v.len()))
	for i := range v.shards {
		sh := &v.shards[i]
		if sh.hasZero {
			c.uint(0)
		}
		for _, f := range sh.slots {
			if f != 0 {
				c.uint(f)
			}
		}
	}
}

func (c *ckWriter) bytes(b []byte) {
	c.uint(uint64(len(b)))
	c.w.Write(b)
}

func (x *search[S]) encodeCheckpoint(bw *bufio.Writer, d int) error {
	c := &ckWriter{w: bw}
	bw.WriteString(checkpointMagic)
	c.bytes([]byte(x.m.Name()))
	c.uint(uint64(d))
	c.uint(uint64(x.levelGen))
	for _, v := range []int64{x.qStates - x.q.n, x.res.QueueBytes - x.q.enc, x.res.MaxQueue, x.res.Spilled - x.q.spilled} {
		c.uint(uint64(v))
	}
	c.fingerprints(&x.visited)
	c.uint(uint64(len(x.links)))
	for _, l := range x.links {
		c.uint(uint64(len(l)))
		for _, k := range l {
			c.uint(k)
		}
	}
	c.uint(uint64(x.q.n))
	var buf []byte
	for i := range x.q.blocks {
		data, ends, err := x.q.read(i, &buf)
		if err != nil {
			return err
		}
		for j := range ends {
			c.bytes(at(data, ends, j))
		}
	}
	return nil
}

// resume loads the checkpoint in Options.Resume and returns the depth of
// the level to run next.
func (x *search[S]) resume() (int, error) {
	f, err := os.Open(filepath.Join(x.opt.Resume, checkpointFile))
	if err != nil {
		return 0, fmt.Errorf("checker: resume: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	fail := func(err error) (int, error) {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, fmt.Errorf("checker: resume from %s: %w", x.opt.Resume, err)
	}
	magic := make([]byte, len(checkpointMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != checkpointMagic {
		if string(magic) == dfsCheckpointMagic {
			return fail(errors.New("a DFS checkpoint: resume it with DFS"))
		}
		return fail(errors.New("not a checkpoint"))
	}
	rd := func() uint64 {
		if err != nil {
			return 0
		}
		var v uint64
		v, err = binary.ReadUvarint(r)
		return v
	}
	rb := func(limit uint64) []byte {
		n := rd()
		if err == nil && n > limit {
			err = fmt.Errorf("a record of %d bytes", n)
		}
		if err != nil {
			return nil
		}
		b := make([]byte, n)
		_, err = io.ReadFull(r, b)
		return b
	}
	if name := string(rb(1 << 16)); err == nil && name != x.m.Name() {
		return fail(fmt.Errorf("the checkpoint is of %q, not of %q", name, x.m.Name()))
	}
	d := int(rd())
	x.generated.Store(int64(rd()))
	x.qStates, x.res.QueueBytes, x.res.MaxQueue, x.res.Spilled = int64(rd()), int64(rd()), int64(rd()), int64(rd())
	for n := rd(); n > 0 && err == nil; n-- {
		fp := rd()
		if err == nil && !x.visited.shards[shardOf(fp)].insert(fp) {
			err = errors.New("a fingerprint listed twice")
		}
	}
	levels := rd()
	if err == nil && levels != uint64(d)+1 {
		err = fmt.Errorf("%d levels of links at depth %d", levels, d)
	}
	for l := uint64(0); l < levels && err == nil; l++ {
		n := rd()
		links := make([]uint64, 0, min(n, 1<<20))
		for ; n > 0 && err == nil; n-- {
			links = append(links, rd())
		}
		x.links = append(x.links, links)
	}
	for n := rd(); n > 0 && err == nil; n-- {
		b := rb(1 << 30)
		if err == nil {
			err = x.q.push(b)
		}
	}
	if err != nil {
		return fail(err)
	}
	if x.q.n != int64(len(x.links[d])) {
		return fail(fmt.Errorf("%d queued states, %d links", x.q.n, len(x.links[d])))
	}
	x.distinct.Store(x.visited.len())
	x.res.Resumed = true
	return d, nil
}
