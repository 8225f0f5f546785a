package doccheck

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// guidePath is the mock server's user guide, relative to this package's
// directory (go test runs in it).
var guidePath = filepath.Join("..", "..", "..", "docs", "mockserver.md")

// guideURL is where the package comment says the guide is read on the web.
const guideURL = "https://github.com/voiceagent/voiceagent-go/blob/main/docs/mockserver.md"

// mdHeading is a heading of a markdown document.
type mdHeading struct {
	level int // 1 for "# ", 2 for "## ", ...
	text  string
	line  int // 1-based
}

// mdSection is a "## " section: its heading and the lines up to the next
// heading of level 1 or 2.
type mdSection struct {
	mdHeading
	body []string
}

// markdownDoc is a markdown document split at its headings. Lines inside
// fenced code blocks are never headings.
type markdownDoc struct {
	text     string
	headings []mdHeading
	sections []mdSection
}

var atxHeading = regexp.MustCompile(`^(#{1,6}) +(.*?)\s*$`)

func parseMarkdown(text string) *markdownDoc {
	d := &markdownDoc{text: text}
	fence := ""
	var cur *mdSection
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
		} else if fence != "" && strings.HasPrefix(trimmed, fence) {
			fence = ""
		} else if m := atxHeading.FindStringSubmatch(line); fence == "" && m != nil {
			h := mdHeading{level: len(m[1]), text: m[2], line: i + 1}
			d.headings = append(d.headings, h)
			if h.level <= 2 {
				if cur != nil {
					d.sections = append(d.sections, *cur)
					cur = nil
				}
				if h.level == 2 {
					cur = &mdSection{mdHeading: h}
				}
				continue
			}
		}
		if cur != nil {
			cur.body = append(cur.body, line)
		}
	}
	if cur != nil {
		d.sections = append(d.sections, *cur)
	}
	return d
}

// section returns the "## " section with that heading.
func (d *markdownDoc) section(t *testing.T, title string) mdSection {
	t.Helper()
	for _, s := range d.sections {
		if s.text == title {
			return s
		}
	}
	t.Fatalf("%s has no section %q", guidePath, title)
	return mdSection{}
}

// mdTable is a markdown table: its header cells and its rows of cells.
type mdTable struct {
	line   int // 1-based line of the header within the text it was read from
	header []string
	rows   [][]string
}

var delimiterRow = regexp.MustCompile(`^\|( *:?-+:? *\|)+$`)

// splitRow splits a table row into trimmed cells; \| is a pipe inside a cell.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	line = strings.ReplaceAll(line, `\|`, "\x00")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
	}
	return cells
}

// tables reads the tables of lines outside fenced code blocks. A table is
// a header row, a delimiter row and the "|" rows that follow. It reports
// rows whose number of cells differs from the header's.
func tables(t *testing.T, lines []string) []mdTable {
	t.Helper()
	var out []mdTable
	fence := false
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "|") {
			continue
		}
		if i+1 >= len(lines) || !delimiterRow.MatchString(strings.ReplaceAll(lines[i+1], " ", "")) {
			t.Errorf("line %d: a table row without a header and delimiter row: %s", i+1, line)
			continue
		}
		tb := mdTable{line: i + 1, header: splitRow(line)}
		if n := len(splitRow(lines[i+1])); n != len(tb.header) {
			t.Errorf("line %d: the delimiter row has %d cells, the header %d", i+2, n, len(tb.header))
		}
		i += 2
		for ; i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
			row := splitRow(lines[i])
			if len(row) != len(tb.header) {
				t.Errorf("line %d: %d cells, the table's header has %d: %s", i+1, len(row), len(tb.header), lines[i])
			}
			tb.rows = append(tb.rows, row)
		}
		i--
		out = append(out, tb)
	}
	return out
}

// readGuide reads and parses docs/mockserver.md.
func readGuide(t *testing.T) *markdownDoc {
	t.Helper()
	b, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatalf("the mock server's user guide: %v", err)
	}
	return parseMarkdown(string(b))
}

// githubAnchor is the fragment GitHub gives a heading: lower case, spaces
// to hyphens, punctuation other than hyphens and underscores dropped.
func githubAnchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestMockGuideCoversEveryRouteAndMagicValue keeps the mock server's user
// guide complete: every route it serves is described, the magic values of
// the design are in the table of its Magic values section, and no heading
// appears twice (GitHub links headings by their text).
func TestMockGuideCoversEveryRouteAndMagicValue(t *testing.T) {
	guide := readGuide(t)
	srv := mockserver.New()
	defer srv.Close()
	for _, r := range srv.Routes() {
		path := strings.TrimPrefix(r.Path, apiPrefix)
		if !strings.Contains(guide.text, path) {
			t.Errorf("%s does not describe %s %s", guidePath, r.Method, r.Path)
		}
	}

	magic := guide.section(t, "Magic values")
	tbs := tables(t, magic.body)
	if len(tbs) != 1 {
		t.Fatalf("the Magic values section has %d tables, want 1", len(tbs))
	}
	if want := []string{"value", "effect"}; !slices.Equal(tbs[0].header, want) {
		t.Errorf("the Magic values table's header is %q, want %q", tbs[0].header, want)
	}
	var cells []string
	for _, row := range tbs[0].rows {
		cells = append(cells, row...)
	}
	table := strings.Join(cells, "\n")
	for _, v := range []string{
		"+15005550001", "+15005550002", "+15005550003", "+15005550010", "+15005550011",
		"+15005550012", "+15005550013", "@provisioning-fails.example", "X-PAYMENT",
		"no_answer", "busy", "call_failed", "number_on_dnc", "number_opted_out", "sms_send_failed",
		"tcpa_violation", "provisioning_failed", "payment_required",
	} {
		if !strings.Contains(table, v) {
			t.Errorf("the Magic values table lacks %s:\n%s", v, strings.Join(magic.body, "\n"))
		}
	}

	if len(guide.headings) == 0 || guide.headings[0].level != 1 || guide.headings[0].text != "The voiceagent mock server" {
		t.Errorf("%s does not start with the title # The voiceagent mock server", guidePath)
	}
	seen := map[string]int{}
	for _, h := range guide.headings {
		if h.level == 1 && h.line != guide.headings[0].line {
			t.Errorf("line %d: a second title %q: sections are ## headings", h.line, h.text)
		}
		if prev, ok := seen[h.text]; ok {
			t.Errorf("line %d: heading %q appears twice (first at line %d)", h.line, h.text, prev)
		}
		seen[h.text] = h.line
	}
	for _, h := range []string{"Magic values", "Admin API", "Limits and retention", "Events emitted", "Call states"} {
		guide.section(t, h)
	}
}

var fragmentLink = regexp.MustCompile(`\]\(#([^)]*)\)`)

// TestMockGuideContentsLinkEverySection keeps the table of contents whole:
// it links every ## section, and every #fragment link of the guide names a
// heading.
func TestMockGuideContentsLinkEverySection(t *testing.T) {
	checkContentsAndLinks(t, readGuide(t), guidePath)
}

// checkContentsAndLinks checks a markdown page: every #fragment link names
// one of its headings, and its "Contents" section links every ## section.
func checkContentsAndLinks(t *testing.T, doc *markdownDoc, path string) {
	t.Helper()
	anchors := map[string]bool{}
	for _, h := range doc.headings {
		anchors[githubAnchor(h.text)] = true
	}
	for _, m := range fragmentLink.FindAllStringSubmatch(doc.text, -1) {
		if !anchors[m[1]] {
			t.Errorf("%s links #%s, which is no heading", path, m[1])
		}
	}
	contents := doc.section(t, "Contents")
	linked := map[string]bool{}
	for _, m := range fragmentLink.FindAllStringSubmatch(strings.Join(contents.body, "\n"), -1) {
		linked[m[1]] = true
	}
	for _, s := range doc.sections {
		if s.text != "Contents" && !linked[githubAnchor(s.text)] {
			t.Errorf("the Contents of %s do not link the section %q (#%s)", path, s.text, githubAnchor(s.text))
		}
	}
}

// TestMockGuideTablesAreWellFormed checks that every table of the guide has
// a header, a delimiter row and as many cells in each row as in its header,
// so GitHub renders them as tables with nothing cut off.
func TestMockGuideTablesAreWellFormed(t *testing.T) {
	guide := readGuide(t)
	if n := len(tables(t, strings.Split(guide.text, "\n"))); n < 20 {
		t.Errorf("%s has %d tables; its state tables, routes and limits are tables", guidePath, n)
	}
}

var eventSpan = regexp.MustCompile("`([a-z_]+\\.[a-z_]+)`")

// TestMockGuideEventsEmittedTable reads the table of the Events emitted
// section (action | events): every event it names is an event type, and
// every event type is either in the table or in the list of types that no
// action emits below it, never in both.
func TestMockGuideEventsEmittedTable(t *testing.T) {
	guide := readGuide(t)
	sec := guide.section(t, "Events emitted")
	tbs := tables(t, sec.body)
	if len(tbs) != 1 {
		t.Fatalf("the Events emitted section has %d tables, want 1", len(tbs))
	}
	tb := tbs[0]
	if want := []string{"action", "events (data)"}; !slices.Equal(tb.header, want) {
		t.Fatalf("the Events emitted table's header is %q, want %q", tb.header, want)
	}
	emitted := map[string]bool{}
	for _, row := range tb.rows {
		for _, m := range eventSpan.FindAllStringSubmatch(row[1], -1) {
			if !webhooks.IsEventType(m[1]) {
				t.Errorf("the Events emitted table names %s, which is no event type (row %q)", m[1], row[0])
			}
			emitted[m[1]] = true
		}
	}
	after := strings.Join(sec.body[tb.line-1+2+len(tb.rows):], "\n")
	start := strings.Index(after, "No action of the mock emits")
	if start < 0 {
		t.Fatal("the Events emitted section does not list the types no action emits (No action of the mock emits ...)")
	}
	never := map[string]bool{}
	for _, m := range eventSpan.FindAllStringSubmatch(after[start:strings.Index(after[start:], ":")+start], -1) {
		never[m[1]] = true
	}
	for _, et := range webhooks.EventTypes() {
		typ := string(et)
		switch {
		case emitted[typ] && never[typ]:
			t.Errorf("%s is both in the Events emitted table and among the types no action emits", typ)
		case !emitted[typ] && !never[typ]:
			t.Errorf("%s is neither in the Events emitted table nor among the types no action emits", typ)
		}
	}
	n := strconv.Itoa(len(webhooks.EventTypes()))
	if !strings.Contains(strings.Join(tb.rows[len(tb.rows)-1], " "), "any of the "+n+" types") {
		t.Errorf("the Events emitted table's last row (POST /_mock/events) does not say any of the %s types", n)
	}
}

// mockPackageDoc returns the mock server's package documentation, as go doc
// and pkg.go.dev assemble it from the package comments of its files.
func mockPackageDoc(t *testing.T) string {
	t.Helper()
	fset := token.NewFileSet()
	dir := filepath.Join("..", "..", "..", "mockserver")
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, ok := pkgs["mockserver"]
	if !ok {
		t.Fatal("no package mockserver")
	}
	files := make([]*ast.File, 0, len(pkg.Files))
	for _, f := range pkg.Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/voiceagent/voiceagent-go/mockserver")
	if err != nil {
		t.Fatal(err)
	}
	return p.Doc
}

// TestMockPackageCommentPointsToTheGuide keeps the package comment short
// (the guide lives in docs/mockserver.md, not in go doc) and in step with
// the guide: it gives the guide's path and URL and lists every section.
func TestMockPackageCommentPointsToTheGuide(t *testing.T) {
	pkgDoc := mockPackageDoc(t)
	const maxLines = 100
	if n := strings.Count(pkgDoc, "\n"); n > maxLines {
		t.Errorf("the mockserver package comment has %d lines, at most %d: the user guide belongs in docs/mockserver.md", n, maxLines)
	}
	for _, s := range []string{"docs/mockserver.md", guideURL, "mockserver.Start(t)", "srv.NewAccount(", "client.New(acct.APIKey"} {
		if !strings.Contains(pkgDoc, s) {
			t.Errorf("the mockserver package comment lacks %q", s)
		}
	}
	flat := strings.Join(strings.Fields(pkgDoc), " ")
	for _, s := range readGuide(t).sections {
		if s.text != "Contents" && !strings.Contains(flat, s.text) {
			t.Errorf("the mockserver package comment's list of the guide's sections lacks %q", s.text)
		}
	}
}
