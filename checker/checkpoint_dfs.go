package checker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"
)

// Checkpoints of DFS (Options.CheckpointDir, Options.Resume with
// Mode DepthFirst). A DFS checkpoint is the search between two steps: the
// visited set, the stack (each frame's state as its Codec encoding, the
// number of its actions to take — the persistent set, or all of them once
// re-expanded —, the index of the next one, its count of quiescent frames
// and its POR proviso flag), the path from the initial state to the bottom
// frame and the Init() index of the current tree, the states set aside by
// Options.Lassos with their paths, the counters (distinct and generated
// states, deepest path, POR pruned and re-expanded actions), the violated
// properties and the counterexamples found so far (their actions; the
// step texts are rebuilt from the model on resume). Each frame's actions
// are not stored: they are Model.Actions of its state (narrowed by the
// model's Persistent under POR), recomputed on resume, so the model and its
// options must be the same (the header, checkpoint_file.go, checks the
// model, the selected properties and the settings).
//
// DFS writes one at the first check (every dfsCheckEvery generated states)
// after CheckpointEvery has passed since the last, and when it is
// canceled; like BFS's, it goes to a temporary file, synced, then renamed
// over checkpointFile, with the wall time at that point. DFS is deterministic, so a resumed search takes
// exactly the steps the uninterrupted one would have taken after that
// point and ends with the same states, transitions, depth, stop reason and
// counterexamples. Eventually properties (the explicit-graph search) and
// models that are not a decoding Codec cannot checkpoint.

// dfsCheckpointBlocker says why this DFS cannot checkpoint, or returns ""
// (Eventually properties are refused by checkpointBlocker); what names
// checkpoints.
func (x *search[S]) dfsCheckpointBlocker(what string) string {
	switch {
	case x.opt.WholeStates:
		return what + " need the model's state encoding: drop --whole-states (Options.WholeStates)"
	case x.codec == nil:
		return fmt.Sprintf("%s need a model whose states decode from their encoding (a checker.Codec); %s does not", what, x.m.Name())
	}
	return ""
}

// pause publishes the counters and, between two steps, stops the search when
// it is canceled (writing a checkpoint first) or over its memory bound, and
// writes a checkpoint when one is due. It reports whether to stop.
func (d *dfs[S]) pause() bool {
	x := d.search
	x.generated.Add(d.gen)
	x.distinct.Store(d.n)
	x.depth.Store(int64(d.maxDepth))
	d.gen = 0
	dir := x.opt.CheckpointDir
	if ctx := x.opt.Context; ctx != nil && ctx.Err() != nil {
		d.stop, d.err = StopCanceled, ctx.Err()
		if dir != "" {
			if err := d.writeCheckpoint(); err != nil {
				d.stop, d.err = StopError, err
			}
		}
		return true
	}
	if x.mem.check(0) {
		d.stop = StopMaxMemory
		return true
	}
	if dir != "" && x.opt.CheckpointEvery > 0 && time.Since(x.lastCkpt) >= x.opt.CheckpointEvery {
		if err := d.writeCheckpoint(); err != nil {
			d.stop, d.err = StopError, err
			return true
		}
	}
	return false
}

func (d *dfs[S]) writeCheckpoint() error {
	return d.saveCheckpoint(d.elapsed(), d.encodeCheckpoint)
}

func (c *ckWriter) action(a Action) {
	c.uint(uint64(a.Kind))
	c.uint(uint64(uint32(a.P)))
	c.uint(uint64(uint32(a.Q)))
	c.uint(uint64(uint32(a.I)))
}

func (c *ckWriter) actions(p []Action) {
	c.uint(uint64(len(p)))
	for _, a := range p {
		c.action(a)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// encodeCheckpoint writes the search as it stands between two steps, with
// every generated state published to x.generated.
func (d *dfs[S]) encodeCheckpoint(c *ckWriter) error {
	x := d.search
	c.uint(uint64(d.init))
	c.uint(uint64(x.generated.Load()))
	c.uint(uint64(d.n))
	c.uint(uint64(d.maxDepth))
	c.uint(b2u(d.open))
	c.uint(b2u(d.lasso))
	c.uint(uint64(d.pruned))
	c.uint(uint64(x.res.Reexpanded))
	c.uint(uint64(len(x.violated)))
	for _, v := range x.violated {
		c.uint(b2u(v))
	}
	c.fingerprints(&x.visited)
	c.actions(d.prefix)
	c.uint(uint64(len(d.stack)))
	for i := range d.stack {
		f := &d.stack[i]
		d.buf = x.codec.Encode(d.buf[:0], f.s)
		c.bytes(d.buf)
		c.uint(uint64(f.hi - f.lo))
		c.uint(uint64(f.next))
		c.uint(uint64(f.quiet))
		c.uint(b2u(f.proviso))
	}
	c.uint(uint64(len(d.asides)))
	for _, a := range d.asides {
		d.buf = x.codec.Encode(d.buf[:0], a.s)
		c.bytes(d.buf)
		c.uint(uint64(a.init))
		c.actions(a.path)
	}
	c.uint(uint64(len(x.res.Violations)))
	for _, tr := range x.res.Violations {
		c.uint(uint64(tr.Init))
		c.uint(uint64(tr.Loop))
		c.uint(uint64(len(tr.Steps)))
		for _, st := range tr.Steps {
			c.action(st.Action)
		}
		v := tr.Violation
		if v == nil {
			v = &Violation{}
		}
		c.bytes([]byte(v.Property))
		c.bytes([]byte(v.Kind))
		c.bytes([]byte(v.Message))
		c.uint(uint64(v.Steps))
	}
	return nil
}

// ckReader reads the fields ckWriter writes; the first error sticks and
// every later read returns zero.
type ckReader struct {
	r   *bufio.Reader
	err error
}

func (c *ckReader) uint() uint64 {
	if c.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(c.r)
	c.err = err
	return v
}

// small reads a count or index that must be below limit.
func (c *ckReader) small(limit uint64, what string) int {
	v := c.uint()
	if c.err == nil && v >= limit {
		c.err = fmt.Errorf("%s %d out of range", what, v)
	}
	if c.err != nil {
		return 0
	}
	return int(v)
}

func (c *ckReader) bytes(limit uint64) []byte {
	n := c.uint()
	if c.err == nil && n > limit {
		c.err = fmt.Errorf("a record of %d bytes", n)
	}
	if c.err != nil {
		return nil
	}
	b := make([]byte, n)
	_, c.err = io.ReadFull(c.r, b)
	return b
}

func (c *ckReader) flag() bool { return c.small(2, "flag") == 1 }

func (c *ckReader) action() Action {
	k := c.small(1<<8, "action kind")
	p, q, i := c.small(1<<32, "action field"), c.small(1<<32, "action field"), c.small(1<<32, "action field")
	return Action{Kind: uint8(k), P: int32(uint32(p)), Q: int32(uint32(q)), I: int32(uint32(i))}
}

func (c *ckReader) actions() []Action {
	n := c.small(1<<31, "path length")
	var p []Action
	for ; n > 0 && c.err == nil; n-- {
		p = append(p, c.action())
	}
	return p
}

// resume loads the body of the verified DFS checkpoint of Options.Resume
// (openCheckpoints read its header): the visited set, the stack, the
// asides, the counters and the counterexamples, and returns the Init()
// index of the tree to go on with.
func (d *dfs[S]) resume() (int, error) {
	x := d.search
	c := x.ck.rest
	init := c.small(uint64(len(x.inits)), "initial state")
	x.generated.Store(int64(c.uint()))
	d.n = int64(c.uint())
	d.maxDepth = c.small(1<<31, "depth")
	d.open, d.lasso = c.flag(), c.flag()
	pruned := int64(c.uint()) // set after the frames: reduce adds to it
	x.res.Reexpanded = int64(c.uint())
	if n := c.uint(); c.err == nil && n != uint64(len(x.violated)) {
		c.err = fmt.Errorf("%d properties, the model selects %d", n, len(x.violated))
	}
	for i := range x.violated {
		x.violated[i] = c.flag()
	}
	c.fingerprintsInto(&x.visited, x.ck.body)
	if c.err == nil && x.visited.len() != d.n {
		c.err = fmt.Errorf("%d distinct states, %d fingerprints", d.n, x.visited.len())
	}
	d.init, d.prefix = init, c.actions()
	for n := c.small(1<<31, "stack size"); n > 0 && c.err == nil; n-- {
		b := c.bytes(1 << 30)
		hi, next, quiet, proviso := c.small(1<<31, "frame width"), c.small(1<<31, "frame index"), c.small(1<<31, "quiescent count"), c.flag()
		if c.err == nil {
			c.err = d.restoreFrame(b, hi, next, quiet, proviso)
		}
	}
	for n := c.small(1<<31, "asides"); n > 0 && c.err == nil; n-- {
		b := c.bytes(1 << 30)
		ai, path := c.small(uint64(len(x.inits)), "initial state"), c.actions()
		if c.err != nil {
			break
		}
		s, err := x.codec.Decode(b)
		if err != nil {
			c.err = err
			break
		}
		d.asides = append(d.asides, aside[S]{s: s, fp: x.fingerprint(&d.buf, s), init: ai, path: path})
	}
	for n := c.small(1<<31, "violations"); n > 0 && c.err == nil; n-- {
		ti, loop, acts := c.small(uint64(len(x.inits)), "initial state"), c.small(1<<31, "loop"), c.actions()
		v := &Violation{Property: string(c.bytes(1 << 20)), Kind: string(c.bytes(1 << 20)), Message: string(c.bytes(1 << 30)), Steps: c.small(1<<31, "steps")}
		if c.err != nil {
			break
		}
		steps, err := describe(x.m, x.inits[ti], acts)
		if err != nil {
			c.err = fmt.Errorf("a counterexample does not replay: %w", err)
			break
		}
		x.res.Violations = append(x.res.Violations, &Trace{Model: x.res.Model, Init: ti, Steps: steps, Violation: v, Loop: loop})
	}
	c.endOfBody()
	if c.err == nil && len(d.stack) == 0 {
		c.err = errors.New("an empty stack")
	}
	if c.err != nil {
		return 0, x.resumeError(c.err)
	}
	d.pruned = pruned
	x.distinct.Store(d.n)
	x.res.Resumed = true
	return init, nil
}

// restoreFrame pushes the state encoded in b with the saved iterator: hi
// actions to take (its persistent set, or all its actions), next of them
// taken.
func (d *dfs[S]) restoreFrame(b []byte, hi, next, quiet int, proviso bool) error {
	x := d.search
	s, err := x.codec.Decode(b)
	if err != nil {
		return err
	}
	fp := x.fingerprint(&d.buf, s)
	if !x.visited.shards[shardOf(fp)].contains(fp) {
		return errors.New("a stack state not in the visited set")
	}
	lo := d.actsLen()
	d.acts = x.m.Actions(s, d.acts[:lo])
	end, reduced := len(d.acts), len(d.acts)
	if d.pers != nil {
		reduced = d.reduce(s, lo)
		if d.stop != "" {
			return d.err
		}
	}
	if lo+hi != end && lo+hi != reduced || next > hi {
		return fmt.Errorf("a frame with %d of %d actions to take (%d enabled), the next %d", hi, reduced-lo, end-lo, next)
	}
	if d.onStack != nil {
		d.onStack[fp] = int32(len(d.stack))
	}
	d.stack = append(d.stack, frame[S]{s: s, fp: fp, lo: int32(lo), hi: int32(lo + hi), end: int32(end),
		next: int32(next), quiet: int32(quiet), proviso: proviso})
	d.queue.Store(int64(len(d.stack)))
	return nil
}
