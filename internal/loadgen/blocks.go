package loadgen

import (
	"slices"
)

// BlockCut is one block that committed transactions of the run: its
// number and how many transactions the orderer cut into it.
type BlockCut struct {
	Number uint64
	Txs    int
}

// BlockStats is how the orderer cut the run's blocks, against the batch
// size the channel asks for: with a closed loop that keeps the orderer
// busy every block should be full; a low mean says blocks were cut by
// the batch timeout or by size in bytes.
type BlockStats struct {
	Count    int     `json:"count"`
	Txs      int     `json:"txs"`
	Mean     float64 `json:"meanTxs"`
	Median   float64 `json:"medianTxs"`
	Min      int     `json:"minTxs"`
	Max      int     `json:"maxTxs"`
	Intended int     `json:"intendedTxs,omitempty"` // the channel's maxMessageCount, when known
	// Full counts the blocks cut at the intended size.
	Full int `json:"full,omitempty"`
}

// SummarizeBlocks summarizes the blocks; intended is the channel's batch
// size (0: unknown). No blocks: nil.
func SummarizeBlocks(blocks []BlockCut, intended int) *BlockStats {
	if len(blocks) == 0 {
		return nil
	}
	st := &BlockStats{Count: len(blocks), Intended: intended, Min: blocks[0].Txs}
	sizes := make([]float64, 0, len(blocks))
	for _, b := range blocks {
		st.Txs += b.Txs
		st.Min, st.Max = min(st.Min, b.Txs), max(st.Max, b.Txs)
		if intended > 0 && b.Txs >= intended {
			st.Full++
		}
		sizes = append(sizes, float64(b.Txs))
	}
	slices.Sort(sizes)
	st.Mean = round3(float64(st.Txs) / float64(st.Count))
	st.Median = round3(percentile(sizes, 0.5))
	return st
}
