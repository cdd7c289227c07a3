package loadgen

import (
	"reflect"
	"testing"
)

func TestSummarizeBlocks(t *testing.T) {
	tests := []struct {
		name     string
		blocks   []BlockCut
		intended int
		want     *BlockStats
	}{
		{"none", nil, 500, nil},
		{"full blocks and a tail cut by the timeout", []BlockCut{{5, 500}, {6, 500}, {7, 500}, {8, 37}}, 500,
			&BlockStats{Count: 4, Txs: 1537, Mean: 384.25, Median: 500, Min: 37, Max: 500, Intended: 500, Full: 3}},
		{"batch size unknown", []BlockCut{{1, 3}, {2, 1}}, 0,
			&BlockStats{Count: 2, Txs: 4, Mean: 2, Median: 1, Min: 1, Max: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SummarizeBlocks(tt.blocks, tt.intended); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SummarizeBlocks = %+v, want %+v", got, tt.want)
			}
		})
	}
}
