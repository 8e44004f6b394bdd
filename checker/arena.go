package checker

// arena holds the encodings of one worker's candidates of a level
// (compact frontier: see filter) in fixed-size blocks that are kept from
// one level to the next. A candidate's bytes never move: appending to a
// full block starts the next one instead of reallocating and copying the
// whole arena, and a new level reuses the blocks of the last one, so
// after the first levels encoding a candidate allocates nothing. (A
// single doubling []byte spends most of filter's Encode time growing and
// clearing fresh memory.)
type arena struct {
	blocks [][]byte // blocks[:used] hold this level's encodings
	used   int
	last   int // size of the last encoding appended, in bytes
}

const (
	arenaBlock = 1 << 20  // bytes per block
	arenaKeep  = 64 << 20 // bytes of blocks kept from one level to the next
	arenaSlack = 4 << 10  // a block with less room than this (or than 2 × last) is full
)

// room returns the current block, to append one encoding to, starting a
// new block when the current one is nearly full. Give the result to done.
func (a *arena) room() []byte {
	if a.used == 0 || cap(a.blocks[a.used-1])-len(a.blocks[a.used-1]) < max(arenaSlack, 2*a.last) {
		a.next()
	}
	return a.blocks[a.used-1]
}

// done takes back the current block b, as returned by room with one
// encoding appended (append may have grown it for an encoding longer than
// the room left: the prefix is copied), and returns the encoding's
// location: block index and offset packed into off (block<<32 | offset),
// its length n.
func (a *arena) done(b []byte) (off int64, n int32) {
	bi := a.used - 1
	start := len(a.blocks[bi])
	a.blocks[bi] = b
	a.last = len(b) - start
	return int64(bi)<<32 | int64(start), int32(a.last)
}

// next makes a fresh or reused block current.
func (a *arena) next() {
	if a.used < len(a.blocks) {
		a.blocks[a.used] = a.blocks[a.used][:0]
	} else {
		a.blocks = append(a.blocks, make([]byte, 0, max(arenaBlock, 4*a.last)))
	}
	a.used++
}

// at returns the encoding at (off, n), as done returned them.
func (a *arena) at(off int64, n int32) []byte {
	b := a.blocks[off>>32]
	lo := off & (1<<32 - 1)
	return b[lo : lo+int64(n)]
}

// reset empties the arena for the next level, keeping up to arenaKeep
// bytes of blocks.
func (a *arena) reset() {
	kept := 0
	for i, b := range a.blocks {
		if kept+cap(b) > arenaKeep {
			clear(a.blocks[i:])
			a.blocks = a.blocks[:i]
			break
		}
		kept += cap(b)
	}
	a.used, a.last = 0, 0
}
