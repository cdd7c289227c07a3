// Package loadgen is the load generator behind `fabvote bench`: it drives a
// workload (pre-generated ballots, or transactions endorsed earlier) through
// the Fabric gateway at a fixed rate (open loop) or as fast as a fixed number
// of workers can (closed loop), and measures every transaction from the
// moment its proposal is built to the moment its block's commit event
// arrives.
//
// It exists beside Caliper because on a 2-core machine Caliper's own CPU use
// distorts the result; a Go client costs a few hundred microseconds per
// transaction. It supports the thesis's two Caliper additions (Paneru 2021,
// ch. 6): skip-commit (endorse only: Mode EndorseOnly) and skip-endorsement
// (endorse once in a setup phase, keep the endorsed transactions in a
// LevelDB Store, then replay only ordering and commit: Mode Replay).
//
// BoxTarget sends the same ballots through a ballot box (`fabvote box
// serve`) instead, so that what the box adds to a ballot's latency can be
// measured against the direct submission.
//
// Nothing is retried: a benchmark counts failures (by reason, see
// ErrorReason) instead of hiding them. The steady window (see Window)
// excludes ramp-up and ramp-down from the headline throughput.
package loadgen
