package bboard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fabvote/fabvote/election"
	"github.com/fabvote/fabvote/election/electiontest"
	"github.com/fabvote/fabvote/internal/audit"
	"github.com/fabvote/fabvote/internal/record"
)

// fixture40k is the thesis's election size: 40,000 ballots, of which the
// last 10 (by index) are late.
func fixture40k(b *testing.B) *fixture {
	fx := electiontest.Load()
	m := fx.Manifest("e-40k")
	m.MaxVoters, m.EncodingBits = 40000, 16
	f := &fixture{id: m.ElectionID, manifest: mustMarshal(m.Marshal()), result: singleResult(fx, m, 39990, oneContest(16000, 12000, 8000, 3990))}
	f.record = map[string]any{"format": record.Format, "version": record.Version, "electionID": f.id,
		"channel": m.Channel, "chaincode": "ballot", "lastBlock": 410}
	var late []any
	for n := range 40000 {
		e := ballotN(n)
		f.ballots = append(f.ballots, e)
		if n >= 39990 {
			late = append(late, map[string]any{"pseudonym": e.Pseudonym, "txID": e.TxID, "block": e.Block})
		}
	}
	sortBallots(f.ballots)
	f.report = map[string]any{
		"format": audit.ReportFormat, "version": 1, "electionID": f.id, "source": "record", "ok": true,
		"genesisHash": genesis, "steps": stepList(),
		"ballots":     map[string]any{"recorded": 40000, "valid": 40000, "counted": 39990, "late": 10},
		"lateBallots": late, "failures": []any{},
	}
	r, err := election.ParseResult(f.result)
	if err != nil {
		b.Fatal(err)
	}
	f.report["result"] = reportResultOf(m, r)
	return f
}

// BenchmarkBuild40k builds the board of a 40,000-ballot election and
// reports the site's size: in all, its HTML, its largest page and its
// largest search shard (what one receipt search downloads).
func BenchmarkBuild40k(b *testing.B) {
	rec, rep := fixture40k(b).write(b)
	parent := b.TempDir()
	var out string
	for i := 0; b.Loop(); i++ {
		out = filepath.Join(parent, strconv.Itoa(i)) // Build wants a fresh outDir
		if err := Build(rec, rep, out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var total, html, maxPage, maxShard int64
	files := 0
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		n := fi.Size()
		total += n
		files++
		switch {
		case strings.HasSuffix(p, ".html"):
			html += n
			maxPage = max(maxPage, n)
		case strings.Contains(p, "/data/"):
			maxShard = max(maxShard, n)
		}
		return nil
	})
	b.ReportMetric(float64(total)/1e6, "MB-site")
	b.ReportMetric(float64(html)/1e6, "MB-html")
	b.ReportMetric(float64(maxPage)/1e3, "kB-largest-page")
	b.ReportMetric(float64(maxShard)/1e3, "kB-largest-shard")
	b.ReportMetric(float64(files), "files")
}
