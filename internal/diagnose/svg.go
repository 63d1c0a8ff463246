package diagnose

import (
	"fmt"
	"html"
	"slices"
	"strings"
)

// The picture's geometry, in pixels.
const (
	svgWidth    = 1160
	boxWidth    = 520
	lineHeight  = 16
	boxPad      = 10
	boxGap      = 26
	panelPad    = 16
	panelTitle  = 28
	wrapColumns = 72
	// boldWrapColumns fits a line of the bold fix sentence in a box.
	boldWrapColumns = 64
	leftX           = 30
	rightX          = svgWidth - 30 - boxWidth - 2*panelPad
	headerH         = 70
	// panelTitleColumns keeps a panel's title inside its panel.
	panelTitleColumns = 56
	// bandTitle is the height of an endpoint band's title line.
	bandTitle = 26
	// forkX is the left margin the arrows to later endpoint bands run down.
	forkX = leftX - 14
)

// svgStyle is per verdict: border, fill, text.
var svgStyle = map[Verdict][3]string{
	Pass:    {"#2e7d32", "#edf7ee", "#1b5e20"},
	Fail:    {"#c62828", "#fdecea", "#b71c1c"},
	Unknown: {"#757575", "#f4f4f4", "#424242"},
}

// placed is a hop's box in the picture.
type placed struct {
	hop     Hop
	x, y, h int
	lines   []svgLine
}

type svgLine struct {
	text, class string
}

// panel is one framed column section of the picture and the hops it holds.
type panel struct {
	title string
	match func(Hop) bool
	x     int
}

// pathPanels are the panels of one path, in path order.
func pathPanels(r Report) []panel {
	kube := func(h Hop) bool { return h.Side == SideKubernetes && h.Name != HopExternalNames }
	return []panel{
		{"Management cluster (Kubernetes)", kube, leftX},
		{"Management " + orNone(r.Management), func(h Hop) bool { return h.Side == SideManagement }, leftX},
		{"Customer " + orNone(r.Customer), func(h Hop) bool { return h.Side == SideCustomer }, rightX},
		// Last on the path: what external-dns publishes from the records.
		{"Management cluster (for external-dns)", func(h Hop) bool { return h.Name == HopExternalNames }, leftX},
	}
}

// band is a horizontal slice of the picture: the hops every path shares,
// or one endpoint's path (title names it; "" when the report has one path).
type band struct {
	title string
	hops  []int // indexes into Report.Hops
}

// bands splits the report: one band when it walks at most one endpoint (the
// picture is then as it always was), else the shared hops and then one band
// per endpoint, each with its own panels.
func bands(r Report) []band {
	all := make([]int, len(r.Hops))
	for i := range all {
		all[i] = i
	}
	endpoints := r.Endpoints()
	if len(endpoints) < 2 {
		return []band{{hops: all}}
	}
	out := []band{{}}
	for _, e := range endpoints {
		out = append(out, band{title: "Private endpoint " + e})
	}
	for i, h := range r.Hops {
		at := slices.Index(endpoints, h.Endpoint) + 1 // 0: shared
		out[at].hops = append(out[at].hops, i)
	}
	return out
}

// SVG draws the report: the management cluster and account on the left,
// the customer's account on the right, one box per hop in path order,
// arrows between them, the broken hop in red with its sentence. A report
// with two private endpoints gets one band per endpoint below the hops
// they share.
func SVG(r Report) string {
	var b strings.Builder
	boxes := make([]*placed, len(r.Hops))
	var body strings.Builder
	top := headerH
	var starts []*placed // each endpoint band's first box
	var shared *placed   // the last box of the shared band
	for _, bd := range bands(r) {
		if bd.title != "" {
			fmt.Fprintf(&body, `<text x="%d" y="%d" font-size="16px" font-weight="bold" fill="#1a237e">%s</text>`+"\n", leftX, top+16, esc(truncate(bd.title, 2*panelTitleColumns)))
			top += bandTitle
		}
		top = layoutBand(r, bd, top, boxes, &body)
		first, last := ends(boxes, bd.hops)
		switch {
		case bd.title == "":
			shared = last
		case first != nil:
			starts = append(starts, first)
		}
	}
	height := top + 10
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">`+"\n", svgWidth, height, svgWidth, height)
	b.WriteString(svgStyles())
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", svgWidth, height)
	fmt.Fprintf(&b, `<text x="%d" y="30" class="title">hcplink diagnose %s (%s)</text>`+"\n", leftX, esc(r.Cluster), esc(orNone(r.Platform)))
	fmt.Fprintf(&b, `<text x="%d" y="52" class="%s">%s</text>`+"\n", leftX, summaryClass(r), esc(summary(r)))
	b.WriteString(body.String())
	for _, bd := range bands(r) {
		b.WriteString(arrows(pick(boxes, bd.hops)))
	}
	b.WriteString(forks(shared, starts))
	for _, box := range boxes {
		if box != nil {
			b.WriteString(drawBox(box))
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// layoutBand places the band's hops in their panels from top down and
// returns where the next band starts.
func layoutBand(r Report, bd band, top int, boxes []*placed, body *strings.Builder) int {
	y := map[int]int{leftX: top, rightX: top}
	for _, p := range pathPanels(r) {
		panelTop := y[p.x]
		inner := panelTop + panelTitle
		count := 0
		for _, i := range bd.hops {
			if !p.match(r.Hops[i]) {
				continue
			}
			box := layoutBox(r.Hops[i], p.x+panelPad, inner)
			boxes[i] = box
			inner += box.h + boxGap
			count++
		}
		if count == 0 {
			continue
		}
		bottom := inner - boxGap + panelPad
		fmt.Fprintf(body, `<rect x="%d" y="%d" width="%d" height="%d" rx="10" class="panel"/>`+"\n", p.x, panelTop, boxWidth+2*panelPad, bottom-panelTop)
		fmt.Fprintf(body, `<text x="%d" y="%d" class="panelTitle">%s</text>`+"\n", p.x+panelPad, panelTop+20, esc(truncate(p.title, panelTitleColumns)))
		y[p.x] = bottom + 24
	}
	return max(y[leftX], y[rightX])
}

func pick(boxes []*placed, idx []int) []*placed {
	out := make([]*placed, 0, len(idx))
	for _, i := range idx {
		out = append(out, boxes[i])
	}
	return out
}

// ends are the first and last boxes placed of the given hops.
func ends(boxes []*placed, idx []int) (first, last *placed) {
	for _, box := range pick(boxes, idx) {
		if box == nil {
			continue
		}
		if first == nil {
			first = box
		}
		last = box
	}
	return first, last
}

// forks join the shared hops to each endpoint's first hop: straight down to
// the first band, along the left margin to the others (past the boxes of
// the bands between).
func forks(from *placed, to []*placed) string {
	if from == nil {
		return ""
	}
	var b strings.Builder
	for i, box := range to {
		if i == 0 {
			x1, y1, x2, y2 := joint(from, box)
			fmt.Fprintf(&b, `<path d="M%d %d L%d %d" class="arrow" marker-end="url(#head)"/>`+"\n", x1, y1, x2, y2)
			continue
		}
		y1, y2 := from.y+from.h/2, box.y+box.h/2
		fmt.Fprintf(&b, `<path d="M%d %d L%d %d L%d %d L%d %d" class="arrow" marker-end="url(#head)"/>`+"\n",
			from.x, y1, forkX, y1, forkX, y2, box.x-2, y2)
	}
	return b.String()
}

func summaryClass(r Report) string {
	if r.ExitCode() == ExitBroken {
		return "bad"
	}
	return "sub"
}

func layoutBox(h Hop, x, y int) *placed {
	box := &placed{hop: h, x: x, y: y}
	box.lines = append(box.lines, svgLine{h.Verdict.Mark() + "  " + h.Name, "name"})
	for _, l := range wrap(h.Seen, 3, wrapColumns) {
		box.lines = append(box.lines, svgLine{l, "seen"})
	}
	// Bold is wider; the sentence is the point, so it gets more lines.
	for _, l := range wrap(h.Fix, 5, boldWrapColumns) {
		box.lines = append(box.lines, svgLine{l, "fix"})
	}
	for _, l := range wrap(h.Why, 2, wrapColumns) {
		box.lines = append(box.lines, svgLine{l, "why"})
	}
	box.h = 2*boxPad + len(box.lines)*lineHeight
	return box
}

func drawBox(p *placed) string {
	st := svgStyle[p.hop.Verdict]
	var b strings.Builder
	dash := ""
	if p.hop.Verdict == Unknown {
		dash = ` stroke-dasharray="6 4"`
	}
	width := 1.5
	if p.hop.Verdict == Fail {
		width = 3
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="6" fill="%s" stroke="%s" stroke-width="%.1f"%s/>`+"\n",
		p.x, p.y, boxWidth, p.h, st[1], st[0], width, dash)
	for i, l := range p.lines {
		color := "#333333"
		if l.class == "name" || l.class == "fix" {
			color = st[2]
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="%s" fill="%s">%s</text>`+"\n", p.x+boxPad, p.y+boxPad+12+i*lineHeight, l.class, color, esc(l.text))
	}
	return b.String()
}

// arrows join consecutive hops: down a column, or across between the two
// sides.
func arrows(boxes []*placed) string {
	var b strings.Builder
	var prev *placed
	for _, box := range boxes {
		if box == nil {
			continue
		}
		if prev != nil {
			x1, y1, x2, y2 := joint(prev, box)
			fmt.Fprintf(&b, `<path d="M%d %d L%d %d" class="arrow" marker-end="url(#head)"/>`+"\n", x1, y1, x2, y2)
		}
		prev = box
	}
	return b.String()
}

func joint(from, to *placed) (x1, y1, x2, y2 int) {
	switch {
	case from.x == to.x && to.y > from.y:
		return from.x + boxWidth/2, from.y + from.h, to.x + boxWidth/2, to.y - 2
	case from.x == to.x:
		return from.x + boxWidth - 20, from.y, to.x + boxWidth - 20, to.y + to.h + 2
	case from.x < to.x:
		return from.x + boxWidth, from.y + from.h/2, to.x - 2, to.y + to.h/2
	}
	return from.x, from.y + from.h/2, to.x + boxWidth + 2, to.y + to.h/2
}

func svgStyles() string {
	return `<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto"><path d="M0 0 L10 5 L0 10 z" fill="#555555"/></marker></defs>
<style>
.title{font-size:20px;font-weight:bold;fill:#222222}
.sub{font-size:14px;fill:#2e7d32}
.bad{font-size:14px;font-weight:bold;fill:#c62828}
.panel{fill:#fafbfc;stroke:#b0b7c3;stroke-width:1}
.panelTitle{font-size:14px;font-weight:bold;fill:#37474f}
.name{font-size:14px;font-weight:bold}
.seen{font-size:12px}
.fix{font-size:12px;font-weight:bold}
.why{font-size:12px;font-style:italic}
.arrow{stroke:#555555;stroke-width:1.5;fill:none}
</style>
`
}

// wrap splits text into at most n lines of columns characters, the last
// one ending in "…" when text is longer.
func wrap(text string, n, columns int) []string {
	var lines []string
	var cur string
	for _, w := range strings.Fields(text) {
		w = truncate(w, columns)
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) <= columns:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
		if len(lines) == n {
			last := []rune(lines[n-1])
			if len(last) > columns-1 {
				last = last[:columns-1]
			}
			lines[n-1] = string(last) + "…"
			return lines
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
