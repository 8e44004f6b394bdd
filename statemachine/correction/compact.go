package correction

// compact forgets what no later step reads (Config.Compact).
func (n *Node) compact() {
	if n.via == Uncolored {
		return
	}
	if n.flags&fParticipant == 0 || n.cfg.Correction == NoCorrection {
		// Non-participants never send correction messages.
		n.turn, n.nextL, n.nextR, n.limL, n.limR, n.recvL, n.recvR = Left, 1, 1, 0, 0, 0, 0
		return
	}
	switch n.cfg.Correction {
	case Opportunistic, OptimizedOpportunistic:
		n.recvL, n.recvR = 0, 0
	case Delayed:
		n.recvL = 0
		return // the right direction may open later: keep it as is
	}
	// A direction that is over stays over (Checked: the stopping condition
	// is monotone; Optimized: limits only shrink).
	for _, d := range [...]Dir{Left, Right} {
		next, lim, recv := &n.nextL, &n.limL, &n.recvL
		if d == Right {
			next, lim, recv = &n.nextR, &n.limR, &n.recvR
		}
		if !n.active(d) {
			*lim = *next - 1
			*recv = 0
		}
	}
	if !n.active(Left) || !n.active(Right) {
		n.turn = Left
	}
}
