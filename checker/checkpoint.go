package checker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Checkpoints of BFS (Options.CheckpointDir, Options.Resume). A checkpoint
// is the search as it stands at the start of a level: the visited set,
// every level's parent links, the level's queued states (their encodings:
// the model must be a Codec, so the compact frontier is in use), the
// number of states generated so far and the queue statistics. A level's
// expand phase changes none of these but the generated count, which is
// kept as it was at the level's start (and so is the wall time), so a
// checkpoint can be written at any moment of the level: every
// CheckpointEvery at a level's start, and when the search is canceled (the
// level then runs again on resume). The file's format, checksum and header
// are in checkpoint_file.go, the directory's lock in checkpoint_lock.go. A
// resumed search ends with exactly the counts and the counterexamples of
// an uninterrupted one (BFS is deterministic level by level, whatever the
// number of workers), except that violations reported before the
// checkpoint under ContinueAfterViolation are not carried over.

// checkpointBlocker says, in terms of both Options and ftcheck's flags,
// why this search cannot checkpoint or resume, or returns "".
func (x *search[S]) checkpointBlocker() string {
	const what = "checkpoints (--checkpoint, --resume; Options.CheckpointDir, Options.Resume)"
	switch {
	case x.opt.CheckpointDir == "" && x.opt.Resume == "":
		return ""
	case x.ps != nil && len(x.ps.ev) > 0:
		return what + " are not written when an eventually property is checked (its search keeps the whole state graph): select other properties with --property (Options.Properties)"
	case x.opt.Mode == DepthFirst:
		return x.dfsCheckpointBlocker(what)
	case x.opt.WholeStates:
		return what + " need the compact queue: drop --whole-states (Options.WholeStates)"
	case x.por != nil:
		return what + " work with BFS without --por, and with --dfs (also with --por): drop --por, or add --dfs (Options.POR, Options.Mode DepthFirst)"
	case x.codec == nil:
		return fmt.Sprintf("%s need a model whose states decode from their encoding (a checker.Codec); %s does not", what, x.m.Name())
	}
	return ""
}

// levelStart notes the start of level d and writes a checkpoint when one
// is due.
func (x *search[S]) levelStart(d int) error {
	x.levelGen = x.generated.Load()
	x.ck.levelAt = x.elapsed()
	if x.opt.CheckpointDir == "" || x.opt.CheckpointEvery <= 0 || time.Since(x.lastCkpt) < x.opt.CheckpointEvery {
		return nil
	}
	return x.writeCheckpoint(d)
}

// writeCheckpoint writes the search at the start of level d.
func (x *search[S]) writeCheckpoint(d int) error {
	return x.saveCheckpoint(x.ck.levelAt, func(c *ckWriter) error { return x.encodeCheckpoint(c, d) })
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

// fingerprintsInto reads what ckWriter.fingerprints wrote into v. Every
// shard first gets room for its share of the count and a margin
// (fpShard.reserve): the fingerprints come in slot order, which a growing
// table would load in quadratic time. A shard that holds more than the
// margin still grows, and loads correctly. A count above body, the
// checkpoint's length in bytes (each fingerprint takes one at least), is
// an error, not a reservation.
func (c *ckReader) fingerprintsInto(v *fpSet, body int64) {
	n := c.uint()
	if c.err == nil && n > uint64(body) {
		c.err = fmt.Errorf("%d fingerprints in a checkpoint of %d bytes", n, body)
	}
	if c.err != nil {
		return
	}
	v.reserve(n)
	for ; n > 0 && c.err == nil; n-- {
		fp := c.uint()
		if c.err == nil && !v.shards[shardOf(fp)].insert(fp) {
			c.err = errors.New("a fingerprint listed twice")
		}
	}
}

func (c *ckWriter) bytes(b []byte) {
	c.uint(uint64(len(b)))
	c.w.Write(b)
}

func (x *search[S]) encodeCheckpoint(c *ckWriter, d int) error {
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

// resume loads the body of the verified checkpoint of Options.Resume
// (openCheckpoints read its header) and returns the depth of the level to
// run next.
func (x *search[S]) resume() (int, error) {
	c := x.ck.rest
	d := c.small(1<<31, "depth")
	x.generated.Store(int64(c.uint()))
	x.qStates, x.res.QueueBytes, x.res.MaxQueue, x.res.Spilled = int64(c.uint()), int64(c.uint()), int64(c.uint()), int64(c.uint())
	c.fingerprintsInto(&x.visited, x.ck.body)
	levels := c.uint()
	if c.err == nil && levels != uint64(d)+1 {
		c.err = fmt.Errorf("%d levels of links at depth %d", levels, d)
	}
	for l := uint64(0); l < levels && c.err == nil; l++ {
		n := c.uint()
		links := make([]uint64, 0, min(n, 1<<20))
		for ; n > 0 && c.err == nil; n-- {
			links = append(links, c.uint())
		}
		x.links = append(x.links, links)
	}
	for n := c.uint(); n > 0 && c.err == nil; n-- {
		b := c.bytes(1 << 30)
		if c.err == nil {
			c.err = x.q.push(b)
		}
	}
	c.endOfBody()
	if c.err == nil && x.q.n != int64(len(x.links[d])) {
		c.err = fmt.Errorf("%d queued states, %d links", x.q.n, len(x.links[d]))
	}
	if c.err != nil {
		return 0, x.resumeError(c.err)
	}
	x.distinct.Store(x.visited.len())
	x.res.Resumed = true
	return d, nil
}
