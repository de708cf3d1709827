package flamegraph

import (
	"bytes"
	"encoding/xml"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lnbench/lnbench/internal/testsupport"
)

func readFolded(t *testing.T, name string) Folded {
	t.Helper()
	f, err := ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func parseFolded(t *testing.T, text string) Folded {
	t.Helper()
	f, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// frame is one drawn frame read back from the SVG.
type frame struct {
	Name, Title, Fill, Label string
	X, W                     float64
	Depth                    int
}

type xmlFrame struct {
	Title string `xml:"title"`
	Depth int    `xml:"data-d,attr"`
	Rect  struct {
		X     float64 `xml:"x,attr"`
		Width float64 `xml:"width,attr"`
		Fill  string  `xml:"fill,attr"`
	} `xml:"rect"`
	Text string `xml:"text"`
}

type xmlSVG struct {
	Texts []struct {
		ID   string `xml:"id,attr"`
		Text string `xml:",chardata"`
	} `xml:"text"`
	Groups []struct {
		ID     string     `xml:"id,attr"`
		Frames []xmlFrame `xml:"g"`
	} `xml:"g"`
}

// frames parses the SVG as XML (checking it is well formed) and returns
// its frames by name; names drawn more than once map to their first.
func frames(t *testing.T, svg []byte) (list []frame, byName map[string]frame) {
	t.Helper()
	var doc xmlSVG
	if err := xml.Unmarshal(svg, &doc); err != nil {
		t.Fatalf("SVG is not well-formed XML: %v", err)
	}
	byName = map[string]frame{}
	for _, g := range doc.Groups {
		if g.ID != "frames" {
			continue
		}
		for _, x := range g.Frames {
			f := frame{Name: x.Title[:strings.LastIndex(x.Title, " (")], Title: x.Title, Fill: x.Rect.Fill,
				Label: x.Text, X: x.Rect.X, W: x.Rect.Width, Depth: x.Depth}
			list = append(list, f)
			if _, ok := byName[f.Name]; !ok {
				byName[f.Name] = f
			}
		}
	}
	if len(list) == 0 {
		t.Fatal("SVG has no frames")
	}
	return list, byName
}

func render(t *testing.T, f Folded, o Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, f, o); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGoldenBasic(t *testing.T) {
	svg := render(t, readFolded(t, "basic.folded"), Options{Title: "basic", Subtitle: "golden test"})
	testsupport.Golden(t, "testdata/basic.svg", svg)
	frames(t, svg)
}

func TestGoldenDiff(t *testing.T) {
	d := Diff(readFolded(t, "before.folded"), readFolded(t, "after.folded"))
	var b bytes.Buffer
	if err := RenderDiff(&b, d, Options{}); err != nil {
		t.Fatal(err)
	}
	testsupport.Golden(t, "testdata/diff.svg", b.Bytes())
	var txt bytes.Buffer
	if err := d.Write(&txt); err != nil {
		t.Fatal(err)
	}
	testsupport.Golden(t, "testdata/diff.folded", txt.Bytes())
}

func TestMergesIdenticalPrefixes(t *testing.T) {
	in := "a;b;c 1\nx;y 4\na;b;d 2\na;b;c 3\na 1\n"
	list, byName := frames(t, render(t, parseFolded(t, in), Options{}))
	count := map[string]int{}
	for _, f := range list {
		count[f.Name]++
	}
	for name, want := range map[string]int{"all": 1, "a": 1, "b": 1, "c": 1, "d": 1, "x": 1, "y": 1} {
		if count[name] != want {
			t.Errorf("frame %q drawn %d times, want %d", name, count[name], want)
		}
	}
	if len(list) != 7 {
		t.Errorf("%d frames, want 7", len(list))
	}
	for name, want := range map[string]string{
		"a": "a (7 samples, 63.64%)", "b": "b (6 samples, 54.55%)", "c": "c (4 samples, 36.36%)",
		"d": "d (2 samples, 18.18%)", "all": "all (11 samples, 100.00%)",
	} {
		if got := byName[name].Title; got != want {
			t.Errorf("title %q, want %q", got, want)
		}
	}
	// Alphabetical within a level, whatever the input order: a before x,
	// c before d; children start at their parent's left edge.
	if !(byName["a"].X < byName["x"].X && byName["c"].X < byName["d"].X) {
		t.Errorf("frames not sorted by name: %+v", byName)
	}
	if byName["b"].X != byName["a"].X || byName["c"].X != byName["b"].X {
		t.Errorf("children not aligned with parents: %+v", byName)
	}
	if byName["a"].Depth != 1 || byName["c"].Depth != 3 {
		t.Errorf("depths: a %d, c %d", byName["a"].Depth, byName["c"].Depth)
	}
	// Input order does not change the output.
	again := render(t, parseFolded(t, "a;b;c 3\na 1\na;b;d 2\nx;y 4\na;b;c 1\n"), Options{})
	if !bytes.Equal(again, render(t, parseFolded(t, in), Options{})) {
		t.Error("the same stacks in another order render differently")
	}
}

func TestWidthsProportional(t *testing.T) {
	f := readFolded(t, "basic.folded")
	total := f.Total()
	for _, width := range []int{1200, 800} {
		list, byName := frames(t, render(t, f, Options{Width: width}))
		perSample := float64(width-2*xpad) / float64(total)
		for _, fr := range list {
			n, err := strconv.ParseInt(regexp.MustCompile(`\((\d+) samples`).FindStringSubmatch(fr.Title)[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(fr.W-float64(n)*perSample) > 0.006 {
				t.Errorf("width %d: %q is %.2fpx for %d samples, want %.2f", width, fr.Name, fr.W, n, float64(n)*perSample)
			}
		}
		if all := byName["all"]; all.X != xpad || math.Abs(all.W-float64(width-2*xpad)) > 1e-9 {
			t.Errorf("root spans %.2f+%.2f", all.X, all.W)
		}
	}
}

func TestMinWidthDropsNarrowFrames(t *testing.T) {
	// 1 sample of 100000 is 0.0118px wide at 1200px: below the 0.1px default.
	in := "main;big;bigger 99998\nmain;tiny;tinier 1\nmain;small 1\n"
	f := parseFolded(t, in)
	_, byName := frames(t, render(t, f, Options{}))
	for _, name := range []string{"tiny", "tinier", "small"} {
		if _, ok := byName[name]; ok {
			t.Errorf("%q (1 sample of 100000) drawn at the default minimum width", name)
		}
	}
	if _, ok := byName["bigger"]; !ok {
		t.Error("wide frame dropped")
	}
	_, byName = frames(t, render(t, f, Options{MinWidthPx: -1}))
	for _, name := range []string{"tiny", "tinier", "small"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("%q missing with MinWidthPx < 0", name)
		}
	}
	// At 300px minimum, only frames over a quarter of the 1180px remain.
	list, _ := frames(t, render(t, parseFolded(t, "a;b 3\na;c 1\nd 1\n"), Options{MinWidthPx: 300}))
	var names []string
	for _, fr := range list {
		names = append(names, fr.Name)
	}
	if got := strings.Join(names, ","); got != "all,a,b" {
		t.Errorf("frames at 300px minimum: %s, want all,a,b", got)
	}
}

func TestTruncatedLabels(t *testing.T) {
	for _, c := range []struct {
		name string
		w    float64
		want string
	}{
		{"runtime.mallocgc", 1000, "runtime.mallocgc"},
		{"runtime.mallocgc", 16.01 * 7.08, "runtime.mallocgc"}, // just fits
		{"runtime.mallocgc", 15.99 * 7.08, "runtime.mallo.."},
		{"runtime.mallocgc", 3.01 * 7.08, "r.."},
		{"runtime.mallocgc", 2.99 * 7.08, ""},
		{"abc", 3.01 * 7.08, "abc"},
		{"ünïcödé.fünc", 6.01 * 7.08, "ünïc.."},
		// Too long: first drop the package's directory, then cut.
		{"github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC", 30.01 * 7.08, "htlcswitch.(*Switch).SendHTLC"},
		{"github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC", 16.01 * 7.08, "htlcswitch.(*S.."},
		{"github.com/x/y.Map[go.shape.string,github.com/z/w.T].Get", 40.01 * 7.08, "y.Map[go.shape.string,github.com/z/w.T.."},
	} {
		if got := fitLabel(c.name, c.w, 12*fontWidth); got != c.want {
			t.Errorf("fitLabel(%q, %.2f) = %q, want %q", c.name, c.w, got, c.want)
		}
	}
	long := "github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC"
	list, _ := frames(t, render(t, parseFolded(t, "main;"+long+" 1\nmain;other 9\n"), Options{}))
	for _, fr := range list {
		if fr.Name != long {
			continue
		}
		short := "htlcswitch.(*Switch).SendHTLC"
		chars := int(fr.W / (12 * fontWidth)) // 118px: 16 characters
		if want := short[:chars-2] + ".."; fr.Label != want {
			t.Errorf("label %q in %.1fpx, want %q", fr.Label, fr.W, want)
		}
		if !strings.HasPrefix(fr.Title, long+" (") {
			t.Errorf("tooltip %q lacks the full name", fr.Title)
		}
		return
	}
	t.Fatal("long frame not drawn")
}

func TestStableColoursPerPackage(t *testing.T) {
	const sw = "github.com/lightningnetwork/lnd/htlcswitch"
	_, g1 := frames(t, render(t, readFolded(t, "basic.folded"), Options{}))
	_, g2 := frames(t, render(t, parseFolded(t,
		"foo.bar;"+sw+".(*Switch).route;"+sw+".(*Switch).handlePacketForward 7\nruntime.goexit;runtime.gcDrain 3\n"), Options{Width: 600}))
	send, route1, route2, fwd := g1[sw+".(*Switch).SendHTLC"], g1[sw+".(*Switch).route"], g2[sw+".(*Switch).route"], g2[sw+".(*Switch).handlePacketForward"]
	if send.Fill == "" || send.Fill != route1.Fill || route1.Fill != route2.Fill || route2.Fill != fwd.Fill {
		t.Errorf("htlcswitch frames differ in colour: %s %s %s %s", send.Fill, route1.Fill, route2.Fill, fwd.Fill)
	}
	if g1["runtime.mallocgc"].Fill != g2["runtime.gcDrain"].Fill {
		t.Errorf("runtime frames differ in colour across graphs")
	}
	if g1["runtime.mallocgc"].Fill == send.Fill || g1["main.main"].Fill == send.Fill {
		t.Errorf("different packages share a colour: %s", send.Fill)
	}
	hot := regexp.MustCompile(`^rgb\((\d+),(\d+),(\d+)\)$`)
	for name, f := range g1 {
		m := hot.FindStringSubmatch(f.Fill)
		r, _ := strconv.Atoi(m[1])
		g, _ := strconv.Atoi(m[2])
		b, _ := strconv.Atoi(m[3])
		if r < 205 || g > 230 || b > 55 {
			t.Errorf("%s: %s is not in the warm palette", name, f.Fill)
		}
	}
}

func TestPackage(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/lightningnetwork/lnd/htlcswitch.(*Switch).SendHTLC": "github.com/lightningnetwork/lnd/htlcswitch",
		"github.com/btcsuite/btcd/btcec/v2/ecdsa.Sign":                  "github.com/btcsuite/btcd/btcec/v2/ecdsa",
		"runtime.mallocgc":                   "runtime",
		"main.main.func1":                    "main",
		"gopkg.in/yaml%2ev3.(*parser).parse": "gopkg.in/yaml%2ev3",
		"github.com/x/y.Map[go.shape.string,github.com/z/w.T].Get": "github.com/x/y",
		"google.golang.org/grpc.(*Server).handleStream":            "google.golang.org/grpc",
		"__libc_start_main":             "__libc_start_main",
		"[unknown]":                     "[unknown]",
		"go.etcd.io/bbolt.(*Tx).Commit": "go.etcd.io/bbolt",
		"github.com/lightningnetwork/lnd/channeldb.(*DB).Update.func1.deferwrap1": "github.com/lightningnetwork/lnd/channeldb",
	} {
		if got := Package(in); got != want {
			t.Errorf("Package(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDiffColours(t *testing.T) {
	d := Diff(readFolded(t, "before.folded"), readFolded(t, "after.folded"))
	var b bytes.Buffer
	if err := RenderDiff(&b, d, Options{}); err != nil {
		t.Fatal(err)
	}
	_, byName := frames(t, b.Bytes())
	rgb := func(name string) (r, g, bl int) {
		f, ok := byName[name]
		if !ok {
			t.Fatalf("%q not drawn", name)
		}
		m := regexp.MustCompile(`^rgb\((\d+),(\d+),(\d+)\)$`).FindStringSubmatch(f.Fill)
		r, _ = strconv.Atoi(m[1])
		g, _ = strconv.Atoi(m[2])
		bl, _ = strconv.Atoi(m[3])
		return
	}
	red := func(name string) int { // >0 grew, <0 shrank, 0 unchanged
		r, g, b := rgb(name)
		switch {
		case r == 255 && g == b && g < 255:
			return 255 - g
		case b == 255 && r == g && r < 255:
			return r - 255
		case r == 255 && g == 255 && b == 255:
			return 0
		}
		t.Fatalf("%s: %d,%d,%d is neither red, blue nor white", name, r, g, b)
		return 0
	}
	// Before 100 samples, after 250: shares are compared.
	commit := red("go.etcd.io/bbolt.(*Tx).Commit")                                                 // 40% -> 64%
	notify := red("github.com/lightningnetwork/lnd/invoices.(*InvoiceRegistry).NotifyExitHopHtlc") // new: 0% -> 4%
	sign := red("github.com/btcsuite/btcd/btcec/v2/ecdsa.Sign")                                    // 30% -> 8%
	route := red("github.com/lightningnetwork/lnd/htlcswitch.(*Switch).route")                     // 20% -> 16%
	if !(commit > notify && notify > 0) {
		t.Errorf("grown frames not red in proportion: Commit %d, NotifyExitHopHtlc %d", commit, notify)
	}
	if commit != 255 {
		t.Errorf("the largest change is not fully saturated: %d", commit)
	}
	if !(sign < route && route < 0) {
		t.Errorf("shrunk frames not blue in proportion: Sign %d, route %d", sign, route)
	}
	if all := red("all"); all != 0 {
		t.Errorf("root not white: %d", all)
	}
	want := "go.etcd.io/bbolt.(*Tx).Commit (160 samples, 64.00%; before 40 samples, 40.00%; +24.00%)"
	if got := byName["go.etcd.io/bbolt.(*Tx).Commit"].Title; got != want {
		t.Errorf("tooltip %q, want %q", got, want)
	}
	// The same shares at other totals are no change at all.
	var same bytes.Buffer
	if err := RenderDiff(&same, Diff(parseFolded(t, "a;b 10\na;c 30\n"), parseFolded(t, "a;b 20\na;c 60\n")), Options{}); err != nil {
		t.Fatal(err)
	}
	list, _ := frames(t, same.Bytes())
	for _, f := range list {
		if f.Fill != "rgb(255,255,255)" {
			t.Errorf("%s: %s for an unchanged share", f.Name, f.Fill)
		}
	}
}

func TestParseWrite(t *testing.T) {
	in := "a;b;c 3\n\na;b 2\r\nframe with spaces;x 10\na;b;c 4\n"
	f := parseFolded(t, in)
	if len(f) != 4 || f.Total() != 19 || f[2].Frames[0] != "frame with spaces" {
		t.Fatalf("parsed %+v", f)
	}
	var b bytes.Buffer
	if err := f.Merge().Write(&b); err != nil {
		t.Fatal(err)
	}
	if want := "a;b 2\na;b;c 7\nframe with spaces;x 10\n"; b.String() != want {
		t.Errorf("merged:\n%s\nwant:\n%s", b.String(), want)
	}
	for _, bad := range []string{"a;b\n", "a;b x\n", "a;b -1\n", " 5\n", "a;b 1.5\n"} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if err := Render(&b, nil, Options{}); err == nil {
		t.Error("rendered an empty profile")
	}
}

func TestTop(t *testing.T) {
	f := parseFolded(t, "main;work;hash 6\nmain;work 2\nmain;rec;rec;rec 2\n")
	self := TopSelf(f, 2)
	if len(self) != 2 || self[0] != (FrameShare{"hash", 6, 60}) || self[1] != (FrameShare{"rec", 2, 20}) {
		t.Errorf("TopSelf = %+v", self)
	}
	incl := TopInclusive(f, 0)
	want := []FrameShare{{"main", 10, 100}, {"work", 8, 80}, {"hash", 6, 60}, {"rec", 2, 20}}
	if len(incl) != len(want) {
		t.Fatalf("TopInclusive = %+v", incl)
	}
	for i := range want {
		if incl[i] != want[i] {
			t.Errorf("TopInclusive[%d] = %+v, want %+v", i, incl[i], want[i])
		}
	}
}

func TestScriptStaysSmall(t *testing.T) {
	if n := strings.Count(script, "\n"); n > 150 {
		t.Errorf("embedded script is %d lines; keep it under 150", n)
	}
	if strings.Contains(script, "]]>") {
		t.Error("script would end its CDATA section")
	}
}
