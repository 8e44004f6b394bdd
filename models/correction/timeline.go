package correction

import (
	"fmt"
	"math"
	"strings"

	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
)

// TimelineSVG draws one simulated broadcast like the paper's Figure 5:
// time on x, ranks on y; tree sends blue, correction sends orange,
// receives green, an arrow from each send to its receive, failed ranks
// red. Self-contained SVG.
func TimelineSVG(res *logp.Result, failed core.RankSet, title string, L int64) []byte {
	const (
		left, top, rowH, unit = 60.0, 40.0, 22.0, 28.0
	)
	var tmax int64
	for _, e := range res.Log {
		tmax = max(tmax, e.End)
	}
	P := res.P
	w := left + float64(tmax+1)*unit + 20
	h := top + float64(P)*rowH + 50
	x := func(t int64) float64 { return left + float64(t)*unit }
	y := func(r core.Rank) float64 { return top + float64(r)*rowH }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	b.WriteString(`<defs><marker id="a" viewBox="0 0 6 6" refX="6" refY="3" markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0L6,3L0,6z" fill="#555"/></marker></defs>` + "\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="16" font-size="12">%s</text>`+"\n", left, xmlEscape(title))
	for t := int64(0); t <= tmax; t++ {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`, x(t), top-4, x(t), y(core.Rank(P)))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#777">%d</text>`+"\n", x(t), y(core.Rank(P))+14, t)
	}
	for r := 0; r < P; r++ {
		rk := core.Rank(r)
		col := "#000"
		if failed.Has(rk) {
			col = "#c00"
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fdd"/>`, left, y(rk)+2, float64(tmax)*unit, rowH-4)
		} else if res.DeliveredAt[r] < 0 {
			col = "#888"
		}
		label := fmt.Sprintf("p%d", r)
		if failed.Has(rk) {
			label += " ✗"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end" fill="%s">%s</text>`+"\n", left-6, y(rk)+rowH/2+4, col, label)
		if t := res.DeliveredAt[r]; t >= 0 {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#222"/>`+"\n", x(t), y(rk)+rowH/2)
		}
	}
	bar := func(e logp.Entry, fill string) {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#333" stroke-width="0.5"><title>%s</title></rect>`+"\n",
			x(e.Start), y(e.Proc)+5, math.Max(2, float64(e.End-e.Start)*unit), rowH-10, fill, xmlEscape(fmt.Sprintf("%v %v p%d↔p%d [%d,%d)", e.Op, e.Kind, e.Proc, e.Peer, e.Start, e.End)))
	}
	for _, e := range res.Log {
		switch e.Op {
		case logp.OpSend:
			fill := "#4a7fd6"
			stroke := "#4a7fd6"
			if e.Kind == corrsm.KindCorrection {
				fill, stroke = "#f29a2e", "#f29a2e"
			}
			bar(e, fill)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.6" marker-end="url(#a)"/>`+"\n",
				x(e.End), y(e.Proc)+rowH/2, x(e.End+L), y(e.Peer)+rowH/2, stroke)
		case logp.OpRecv:
			bar(e, "#5cb85c")
		case logp.OpDrop:
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#c00" font-size="13">✗</text>`+"\n", x(e.Start), y(e.Proc)+rowH/2+4)
		}
	}
	ly := y(core.Rank(P)) + 32
	for i, it := range []struct{ fill, text string }{{"#4a7fd6", "tree send"}, {"#f29a2e", "correction send"}, {"#5cb85c", "receive"}, {"#fdd", "failed process"}} {
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="14" height="10" fill="%s" stroke="#333" stroke-width="0.5"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			left+float64(i)*130, ly-9, it.fill, left+float64(i)*130+18, ly, it.text)
	}
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#222"/><text x="%.1f" y="%.1f">colored (delivered)</text>`+"\n", left+4*130+7, ly-4, left+4*130+18, ly)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
