package bboard

import (
	"bytes"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

//go:embed assets/style.css assets/search.js
var assetFS embed.FS

// templates are parsed once; a parse error is a bug caught by every test.
var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"pageSize": func() int { return pageSize },
	"statusOf": func(i int) status { return status(i) },
	// short abbreviates a hash for a caption; the table shows it whole.
	"short":   func(h string) string { return h[:min(len(h), 8)] + "…" },
	"tableOf": func(caption string, rows []row) tableData { return tableData{caption, rows} },
}).ParseFS(templateFS, "templates/*.tmpl"))

// tableData is the argument of the "ballot-table" template.
type tableData struct {
	Caption string
	Rows    []row
}

// navItem is one link of the site's navigation.
type navItem struct{ File, Text string }

var nav = []navItem{
	{"index.html", "Election and result"},
	{"ballots.html", "All ballots"},
	{"spoiled.html", "Audited ballots"},
	{"search.html", "Check your ballot"},
	{"verify.html", "Verify it yourself"},
}

// page is what one template renders.
type page struct {
	File, Title string
	Current     string // the navigation entry this page belongs to
	Nav         []navItem
	M           *model
	List        *pageRef // a page of the ballot list
	Prev, Next  *pageRef
}

// writeSite writes every file of the site into dir.
func writeSite(dir string, m *model) error {
	var err error
	if m.Downloads, err = writeDownloads(dir, m.in.dir); err != nil {
		return err
	}
	pages := []page{
		{File: "index.html", Title: m.Title, Current: "index.html"},
		{File: "ballots.html", Title: "All ballots", Current: "ballots.html"},
		{File: "spoiled.html", Title: "Audited ballots", Current: "spoiled.html"},
		{File: "search.html", Title: "Check your ballot", Current: "search.html"},
		{File: "verify.html", Title: "Verify the election yourself", Current: "verify.html"},
	}
	for i := range m.Pages {
		p := page{File: m.Pages[i].File, Title: fmt.Sprintf("Ballots, page %d of %d", i+1, len(m.Pages)),
			Current: "ballots.html", List: &m.Pages[i]}
		if i > 0 {
			p.Prev = &m.Pages[i-1]
		}
		if i+1 < len(m.Pages) {
			p.Next = &m.Pages[i+1]
		}
		pages = append(pages, p)
	}
	for _, p := range pages {
		p.Nav, p.M = nav, m
		if err := render(dir, p); err != nil {
			return err
		}
	}
	if err := copyAssets(dir); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), m.in.rawRep, 0o644); err != nil {
		return err
	}
	return writeShards(dir, m.Rows, m.Spoiled)
}

func render(dir string, p page) error {
	name := "ballot-page.tmpl"
	if p.List == nil {
		name = p.File[:len(p.File)-len(".html")] + ".tmpl"
	}
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, p); err != nil {
		return fmt.Errorf("%s: %w", p.File, err)
	}
	return os.WriteFile(filepath.Join(dir, p.File), buf.Bytes(), 0o644)
}

func copyAssets(dir string) error {
	for _, name := range []string{"style.css", "search.js"} {
		b, err := assetFS.ReadFile("assets/" + name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeShards writes the search data: data/XX.js holds the ballots whose
// hash or tracker starts with the two hex digits XX (a cast ballot under
// both), and the spoiled ballots whose tracker does, as a script that
// hands them to search.js. Scripts, not JSON files, because browsers refuse fetch() on
// file:// and the board must work from a copy on disk; 256 shards keep a
// lookup to about 1/256 of the data (≈ 25 kB for 40,000 ballots). Every
// shard exists, even when empty, so that a missing file is an error and
// never a silent "not found".
func writeShards(dir string, rows []row, spoiled []spoiledView) error {
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		return err
	}
	shards := make([][][]any, 256)
	add := func(keys []string, entry []any) error {
		done := map[byte]bool{}
		for _, k := range keys {
			if k == "" {
				continue
			}
			b, err := hex.DecodeString(k[:2]) // checkBallots and the tracker keys made them hex
			if err != nil {
				return err
			}
			if !done[b[0]] {
				done[b[0]] = true
				shards[b[0]] = append(shards[b[0]], entry)
			}
		}
		return nil
	}
	// An entry: hash, block, position, transaction, status code, reason,
	// tracker, and for a spoiled ballot (no hash) its revealed choice.
	for _, r := range rows {
		if err := add([]string{r.Hash, r.Tracker}, []any{r.Hash, r.Block, r.Index, r.TxID, r.Status.Code(), r.Reason, r.Tracker}); err != nil {
			return err
		}
	}
	for _, s := range spoiled {
		reason := ""
		if s.Bad {
			reason = s.Status
		}
		if err := add([]string{s.Tracker}, []any{"", s.Block, s.Index, s.TxID, "s", reason, s.Tracker, s.choiceText()}); err != nil {
			return err
		}
	}
	for i, entries := range shards {
		prefix := fmt.Sprintf("%02x", i)
		if entries == nil {
			entries = [][]any{}
		}
		j, err := json.Marshal(entries)
		if err != nil {
			return err
		}
		js := fmt.Sprintf("fabvoteShard(%q,%s);\n", prefix, j)
		if err := os.WriteFile(filepath.Join(dir, "data", prefix+".js"), []byte(js), 0o644); err != nil {
			return err
		}
	}
	return nil
}
