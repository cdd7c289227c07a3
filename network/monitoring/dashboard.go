package monitoring

import (
	"encoding/json"
)

// Panel is one graph of the dashboard.
type Panel struct {
	Title   string
	Unit    string // Grafana unit: "short", "s", "ops", "percentunit", ...
	Queries []Query
	// Quiet marks a panel that is empty until something rare happens (a
	// refused ballot, a refused registration); every other panel shows data
	// on a network that has run an election.
	Quiet bool
}

// Query is one PromQL expression of a panel and its legend.
type Query struct {
	Expr   string
	Legend string
}

// Row is a titled group of panels.
type Row struct {
	Title  string
	Panels []Panel
}

// Rows is the dashboard: peers, orderers, the commit gate, the chaincode and
// the registration service, in the order an operator reads them.
var Rows = []Row{
	{"Network", []Panel{
		{Title: "Targets up", Unit: "short", Queries: []Query{{`up{job=~"fabvote-.*"}`, "{{job}} {{instance}}"}}},
		{Title: "Block height", Unit: "short", Queries: []Query{{`ledger_blockchain_height{job=~"fabvote-(peer-.*|orderers)"}`, "{{job}} {{instance}}"}}},
	}},
	{"Peers", []Panel{
		{Title: "Committed transactions by validation code", Unit: "ops", Queries: []Query{
			{`sum by (org, validation_code) (rate(ledger_transaction_count{job=~"fabvote-peer-.*"}[1m]))`, "{{org}} {{validation_code}}"}}},
		{Title: "Block processing time (p50, p99)", Unit: "s", Queries: []Query{
			{`histogram_quantile(0.5, sum by (le, org) (rate(ledger_block_processing_time_bucket{job=~"fabvote-peer-.*"}[1m])))`, "p50 {{org}}"},
			{`histogram_quantile(0.99, sum by (le, org) (rate(ledger_block_processing_time_bucket{job=~"fabvote-peer-.*"}[1m])))`, "p99 {{org}}"}}},
		{Title: "Proposals received and endorsed", Unit: "ops", Queries: []Query{
			{`sum by (org) (rate(endorser_proposals_received{job=~"fabvote-peer-.*"}[1m]))`, "received {{org}}"},
			{`sum by (org) (rate(endorser_successful_proposals{job=~"fabvote-peer-.*"}[1m]))`, "endorsed {{org}}"}}},
	}},
	{"Orderers", []Panel{
		{Title: "Raft leader", Unit: "short", Queries: []Query{{`consensus_etcdraft_is_leader{job="fabvote-orderers"}`, "{{instance}}"}}},
		{Title: "Broadcasts processed", Unit: "ops", Queries: []Query{
			{`sum by (instance, status) (rate(broadcast_processed_count{job="fabvote-orderers"}[1m]))`, "{{instance}} {{status}}"}}},
		{Title: "Time to fill a block (p50)", Unit: "s", Queries: []Query{
			{`histogram_quantile(0.5, sum by (le, instance) (rate(blockcutter_block_fill_duration_bucket{job="fabvote-orderers"}[1m])))`, "{{instance}}"}}},
	}},
	{"Commit gate", []Panel{
		{Title: "Lock-free sessions and commits", Unit: "ops", Queries: []Query{
			{`sum by (org) (rate(fabvote_commit_gate_sessions_total[1m]))`, "sessions {{org}}"},
			{`sum by (org) (rate(fabvote_commit_gate_commits_total[1m]))`, "commits {{org}}"}}},
		{Title: "Escalations and retries", Unit: "ops", Queries: []Query{
			{`sum by (org) (rate(fabvote_commit_gate_escalations_total[1m]))`, "escalations {{org}}"},
			{`sum by (org) (rate(fabvote_commit_gate_retries_total[1m]))`, "retries {{org}}"}}},
	}},
	{"Ballot chaincode", []Panel{
		{Title: "Ballots accepted at endorsement", Unit: "ops", Queries: []Query{
			{`sum by (org) (rate(fabvote_chaincode_ballots_accepted_total[1m]))`, "{{org}}"}}},
		{Title: "Ballots refused, by code", Unit: "ops", Quiet: true, Queries: []Query{
			{`sum by (code) (rate(fabvote_chaincode_ballots_rejected_total[1m]))`, "{{code}}"}}},
		{Title: "Proofs per batch", Unit: "short", Queries: []Query{
			{`sum by (org) (rate(fabvote_chaincode_batched_proofs_total[5m])) / sum by (org) (rate(fabvote_chaincode_proof_batches_total[5m]))`, "{{org}}"}}},
		{Title: "CPU (cores)", Unit: "short", Queries: []Query{
			{`sum by (job) (rate(process_cpu_seconds_total{job=~"fabvote-.*"}[1m]))`, "{{job}}"}}},
	}},
	{"Registration service", []Panel{
		{Title: "Tokens issued and voters on the roll", Unit: "short", Queries: []Query{
			{`fabvote_registrar_tokens_issued`, "issued {{instance}}"},
			{`fabvote_registrar_roll_voters`, "on the roll {{instance}}"}}},
		{Title: "Requests by HTTP status", Unit: "ops", Queries: []Query{
			{`sum by (code) (rate(fabvote_registrar_requests_total[1m]))`, "{{code}}"}}},
		{Title: "Registration time (p95)", Unit: "s", Queries: []Query{
			{`histogram_quantile(0.95, sum by (le) (rate(fabvote_registrar_request_duration_seconds_bucket[5m])))`, "p95"}}},
	}},
}

// Grafana's dashboard JSON model, the fields this dashboard sets.
type (
	gDashboard struct {
		UID           string      `json:"uid"`
		Title         string      `json:"title"`
		Tags          []string    `json:"tags"`
		SchemaVersion int         `json:"schemaVersion"`
		Version       int         `json:"version"`
		Editable      bool        `json:"editable"`
		Refresh       string      `json:"refresh"`
		Time          gTime       `json:"time"`
		Templating    gTemplating `json:"templating"`
		Panels        []gPanel    `json:"panels"`
	}
	gTime struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	gTemplating struct {
		List []gVariable `json:"list"`
	}
	gVariable struct {
		Name  string `json:"name"`
		Label string `json:"label"`
		Type  string `json:"type"`
		Query string `json:"query"`
	}
	gPanel struct {
		ID          int           `json:"id"`
		Type        string        `json:"type"`
		Title       string        `json:"title"`
		GridPos     gGridPos      `json:"gridPos"`
		Datasource  *gDatasource  `json:"datasource,omitempty"`
		Targets     []gTarget     `json:"targets,omitempty"`
		FieldConfig *gFieldConfig `json:"fieldConfig,omitempty"`
	}
	gGridPos struct {
		H int `json:"h"`
		W int `json:"w"`
		X int `json:"x"`
		Y int `json:"y"`
	}
	gDatasource struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	}
	gTarget struct {
		RefID        string       `json:"refId"`
		Datasource   *gDatasource `json:"datasource"`
		Expr         string       `json:"expr"`
		LegendFormat string       `json:"legendFormat"`
	}
	gFieldConfig struct {
		Defaults  gDefaults `json:"defaults"`
		Overrides []any     `json:"overrides"`
	}
	gDefaults struct {
		Unit string `json:"unit"`
	}
)

// Dashboard returns the Grafana dashboard (JSON model). Its data source is
// the dashboard variable "datasource", any Prometheus data source of the
// Grafana it is imported into.
func Dashboard() ([]byte, error) {
	ds := &gDatasource{Type: "prometheus", UID: "${datasource}"}
	d := gDashboard{
		UID: "fabvote", Title: "fabvote election network", Tags: []string{"fabvote", "hyperledger-fabric"},
		SchemaVersion: 39, Version: 1, Editable: true, Refresh: "10s",
		Time:       gTime{From: "now-1h", To: "now"},
		Templating: gTemplating{List: []gVariable{{Name: "datasource", Label: "Prometheus", Type: "datasource", Query: "prometheus"}}},
	}
	id, y := 1, 0
	for _, row := range Rows {
		d.Panels = append(d.Panels, gPanel{ID: id, Type: "row", Title: row.Title, GridPos: gGridPos{H: 1, W: 24, Y: y}})
		id, y = id+1, y+1
		for i, p := range row.Panels {
			gp := gPanel{ID: id, Type: "timeseries", Title: p.Title, Datasource: ds,
				GridPos:     gGridPos{H: 8, W: 12, X: 12 * (i % 2), Y: y + 8*(i/2)},
				FieldConfig: &gFieldConfig{Defaults: gDefaults{Unit: p.Unit}, Overrides: []any{}}}
			for j, q := range p.Queries {
				gp.Targets = append(gp.Targets, gTarget{RefID: string(rune('A' + j)), Datasource: ds, Expr: q.Expr, LegendFormat: q.Legend})
			}
			d.Panels = append(d.Panels, gp)
			id++
		}
		y += 8 * ((len(row.Panels) + 1) / 2)
	}
	b, err := json.MarshalIndent(d, "", "  ")
	return append(b, '\n'), err
}
