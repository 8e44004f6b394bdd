package env

import (
	"sync"
	"sync/atomic"
)

// Recycling the worlds a search drops. Most worlds Apply builds live for
// one check: a depth-first search drops the two successors in three that
// are already visited (ERA N=4 with 3 crashes: 12,793,999 generated for
// 4,365,061 distinct), and a breadth-first search on the compact frontier
// drops every successor once it is fingerprinted and, when new, encoded.
// On a one-leaf tree (N ≤ 32) each of those worlds is one block (the
// world, its leaf, the first nSpare procs Apply copied and their bytes:
// newWorld), so giving the block back for the next Apply saves the
// allocation and the collector's work for it.
//
// Safety: a block holds only what the one world reaches through it: the
// World itself, its leaf (the tree's root), the leaf's array of proc
// pointers, the procs Apply copied into it (the spares) and their bytes.
// Nothing else points into a block: the leaf and the spare are made by the
// world's own Apply (edit ids are unique per Apply), a world derived from
// it by Apply copies its proc pointers into a block of its own (so its
// descendants may share the spares: a world may be recycled only when none
// of them is still in use), Encode copies bytes out, Fingerprint reads hashes, the
// memos (nodes.go, proccache.go) hold node states, steps, messages and
// procs that Decode made, never an Apply's. The checker (checker.Recycler)
// recycles successors it dropped without expanding them, and DFS also
// the states it pops, whose descendants are all gone by then; never a
// world on which a property failed (DFS: none after any failure); properties are functions of the
// worlds they are given and keep none (the contract of
// checker.Property); what a property copies out (histories, effects, the
// crashed set, nodes) lives outside the block.

// block is the one allocation of an Apply on a one-leaf tree.
type block interface {
	// release gives the block back to its pool (reuse) or clears it
	// (recyclePoison). A pooled block is not cleared: its next Apply
	// overwrites the world, the leaf, the first n proc pointers (newWorld
	// clears the others), each spare proc it copies a proc into, and the
	// bytes it writes; until then the block keeps its last world's objects
	// alive, as the pool itself is emptied by the collector.
	release(reuse bool)
}

type block4 struct {
	w     World
	l     tnode
	spare [nSpare]proc
	ps    [4]*proc
	enc   [encRoom]byte
}

type block8 struct {
	w     World
	l     tnode
	spare [nSpare]proc
	ps    [8]*proc
	enc   [encRoom]byte
}

type block16 struct {
	w     World
	l     tnode
	spare [nSpare]proc
	ps    [16]*proc
	enc   [encRoom]byte
}

type block32 struct {
	w     World
	l     tnode
	spare [nSpare]proc
	ps    [twidth]*proc
	enc   [encRoom]byte
}

// The pools of released blocks, one per size, shared by every Model (a
// block holds no model state once cleared).
var (
	pool4  = sync.Pool{New: func() any { return new(block4) }}
	pool8  = sync.Pool{New: func() any { return new(block8) }}
	pool16 = sync.Pool{New: func() any { return new(block16) }}
	pool32 = sync.Pool{New: func() any { return new(block32) }}
)

func (b *block4) release(reuse bool) {
	if reuse {
		pool4.Put(b)
	} else {
		*b = block4{}
	}
}

func (b *block8) release(reuse bool) {
	if reuse {
		pool8.Put(b)
	} else {
		*b = block8{}
	}
}

func (b *block16) release(reuse bool) {
	if reuse {
		pool16.Put(b)
	} else {
		*b = block16{}
	}
}

func (b *block32) release(reuse bool) {
	if reuse {
		pool32.Put(b)
	} else {
		*b = block32{}
	}
}

// recycler is what Model.Recycle does (mode) and, for tests, how many
// blocks it cleared in recyclePoison mode.
type recycler struct {
	mode     recycleMode
	released atomic.Int64
}

// recycleMode is what Model.Recycle does: pool the block (the default),
// nothing, or (tests) clear the block without reusing it, so that any
// later use of the world fails at once (Apply errors, Fingerprint and
// Encode panic on the cleared world) and a second Recycle panics.
type recycleMode uint8

const (
	recyclePool recycleMode = iota
	recycleOff
	recyclePoison
)

// Recycle gives back the memory of w, a world returned by Apply that the
// caller will never use again, nor anything it gave w to, nor any world
// Apply derived from w, directly or not (they may share its procs). It makes Model a
// checker.Recycler. Other worlds (initial, decoded, or on a tree taller
// than one leaf) are left to the garbage collector. Recycling is only an
// optimisation: counts and encodings are the same without it.
func (m *Model) Recycle(w *World) {
	mode := m.recycle.mode
	if w == nil || mode == recycleOff {
		return
	}
	if mode == recyclePoison && w.m == nil {
		panic("env: a world recycled twice")
	}
	if w.m != m || w.blk == nil {
		return
	}
	w.blk.release(mode == recyclePool)
	if mode == recyclePoison {
		m.recycle.released.Add(1)
	}
}
