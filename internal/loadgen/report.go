package loadgen

import (
	"encoding/json"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fabvote/fabvote/internal/atomicfile"
)

// ReportVersion is the version of the JSON report format.
const ReportVersion = 1

// Report is the JSON output of a run (`fabvote bench --json`), read by
// bench/report to build docs/bench/end-to-end.md and the plots.
type Report struct {
	Version     int     `json:"version"`
	Tool        string  `json:"tool"`
	Label       string  `json:"label,omitempty"` // configuration name from the caller (stock, fork-all, …)
	Trial       int     `json:"trial,omitempty"`
	Mode        string  `json:"mode"` // full, skip-commit, skip-endorsement
	Loop        string  `json:"loop"` // open (fixed rate) or closed (max rate)
	Rate        float64 `json:"rate,omitempty"`
	Concurrency int     `json:"concurrency"`
	Workload    string  `json:"workload"` // ballot file or store
	// Target is where the transactions went: "gateway HOST:PORT" (the
	// peer's) or "box https://HOST:PORT/v1/ballots" (a ballot box's).
	Target    string         `json:"target,omitempty"`
	Started   time.Time      `json:"started"`
	Seconds   float64        `json:"seconds"` // first send to last completion
	Sent      int            `json:"sent"`
	Succeeded int            `json:"succeeded"`
	Failed    int            `json:"failed"`
	Failures  map[string]int `json:"failures"`
	CapWaits  int            `json:"capWaits"`
	TimedOut  bool           `json:"timedOut"`
	// TPS is successes / Seconds (Caliper's definition); Steady is the
	// steady window's (see Window).
	TPS     float64     `json:"tps"`
	Steady  Window      `json:"steady"`
	Latency Percentiles `json:"latencyMs"` // start → done, all successes
	// EndorseLatency is start → endorsement, all endorsed transactions.
	EndorseLatency Percentiles       `json:"endorseLatencyMs"`
	Timeline       []int             `json:"timeline"` // successes per second
	Env            map[string]string `json:"env"`      // FABVOTE_* and GOMAXPROCS of this process
	Host           Host              `json:"host"`
	// ClientCPUSeconds is this process's CPU time (user + system) when the
	// report was made: the load generator's own cost.
	ClientCPUSeconds float64 `json:"clientCPUSeconds"`
	// Network describes the system under test (set by the caller).
	Network map[string]string `json:"network,omitempty"`
	// Setup is the skip-endorsement setup phase (endorse and store), if it ran in this invocation.
	Setup *Report `json:"setup,omitempty"`
	// Blocks is how the orderer cut the blocks that committed the run's
	// transactions (set by the caller; none in skip-commit mode).
	Blocks *BlockStats `json:"blocks,omitempty"`
}

// Host describes the machine.
type Host struct {
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go"`
	Model     string `json:"cpuModel,omitempty"`
}

// NewReport summarizes a run; trim is the steady window's cut at each end.
func NewReport(r *Run, mode Mode, cfg Config, workload string, trim float64) *Report {
	rep := &Report{
		Version: ReportVersion, Tool: "fabvote bench", Mode: mode.String(), Loop: "closed",
		Rate: cfg.Rate, Concurrency: cfg.Concurrency, Workload: workload,
		Started: r.Start.UTC(), Sent: r.Sent, Failures: map[string]int{},
		CapWaits: r.CapWaits, TimedOut: r.TimedOut,
		Env: map[string]string{}, Host: Host{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), Model: cpuModel()},
	}
	if cfg.Rate > 0 {
		rep.Loop = "open"
	}
	var lat, end []time.Duration
	last := r.Start
	for _, s := range r.Samples {
		if s.OK {
			rep.Succeeded++
			lat = append(lat, s.Latency())
		} else {
			rep.Failed++
			rep.Failures[s.Reason]++
		}
		if !s.Endorsed.IsZero() {
			end = append(end, s.Endorsed.Sub(s.Start))
		}
		if s.Done.After(last) {
			last = s.Done
		}
	}
	rep.Seconds = round3(last.Sub(r.Start).Seconds())
	if rep.Seconds > 0 {
		rep.TPS = round3(float64(rep.Succeeded) / rep.Seconds)
	}
	rep.Latency = Summarize(lat)
	rep.EndorseLatency = Summarize(end)
	rep.Steady = SteadyWindow(r.Samples, r.Start, trim)
	rep.Timeline = Timeline(r.Samples, r.Start)
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		rep.ClientCPUSeconds = round3(time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds())
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "FABVOTE_") || k == "GOMAXPROCS" {
			rep.Env[k] = v
		}
	}
	return rep
}

// FailureReasons lists the failure reasons, most frequent first.
func (r *Report) FailureReasons() []string {
	var ks []string
	for k := range r.Failures {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if r.Failures[ks[i]] != r.Failures[ks[j]] {
			return r.Failures[ks[i]] > r.Failures[ks[j]]
		}
		return ks[i] < ks[j]
	})
	return ks
}

// WriteJSON writes the report atomically.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
