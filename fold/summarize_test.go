package fold_test

import (
	"slices"
	"testing"

	"github.com/dshlog/dshlog/fold"
	"github.com/dshlog/dshlog/jsonv"
)

// TestSummarizeAgrees: a fold that summarizes refuses what a fold keeping
// every message refuses, with the same words, and otherwise has the same
// nodes and roles, each node's summary made from the message the other
// fold keeps (projections included), and the messages an image/offload
// may rewrite. The summary here is the message's JSON text, so any
// difference in what summarize was given shows.
func TestSummarizeAgrees(t *testing.T) {
	tests := []struct {
		name string
		rows []string
	}{
		{"base", nil},
		{"offload one image", []string{offload8 + `{"targets":[{"seq":3,"imageIndexes":[0]}]}}`}},
		{"offload twice", []string{
			offload8 + `{"targets":[{"seq":3,"imageIndexes":[0]}]}}`,
			`{"type":"image/offload","seq":9,"time":108,"data":{"targets":[{"seq":3,"imageIndexes":[0]}]}}`,
		}},
		{"offload an offloaded image", []string{offload8 + `{"targets":[{"seq":3,"imageIndexes":[1]}]}}`}},
		{"offload a missing image", []string{offload8 + `{"targets":[{"seq":3,"imageIndexes":[0,2]}]}}`}},
		{"offload a result without images", []string{offload8 + `{"targets":[{"seq":7,"imageIndexes":[0]}]}}`}},
		{"offload a text-only user message", []string{
			user8 + `,"surfaceOp":"append"}`,
			`{"type":"image/offload","seq":9,"time":108,"data":{"targets":[{"seq":8,"imageIndexes":[0]}]}}`,
		}},
		{"tool result rewrite", []string{result8}},
		{"tool result rewrite changing more", []string{`{"type":"tool/result","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"tool","source":{"kind":"tool","callId":"c1"},"toolCallId":"c1","content":[],"isError":true,"id":"r1"}},"sourceEventSeqs":[7],"surfaceOp":{"op":"replace","startSeq":7,"endSeq":7}}`}},
		{"compaction", []string{user8 + `,"sourceEventSeqs":[[3,7]],"surfaceOp":{"op":"replace","startSeq":3,"endSeq":7}}`}},
		{"empty assistant", []string{`{"type":"assistant/message","seq":8,"time":1,"data":{"turn":1,"step":1,"message":{"role":"assistant","content":[],"source":{"kind":"model","provider":"p","model":"m"},"id":"a8"},"stream":[]},"surfaceOp":"append"}`}},
		{"odd role", []string{`{"type":"user/message","seq":8,"time":107,"data":{"content":[],"source":{"kind":"user"},"role":"narrator","id":"u8"},"surfaceOp":"append"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, summarizing := fold.New(), fold.New()
			summarizing.Summarize(func(_ string, message jsonv.Value) string { return message.String() })
			for _, row := range append(slices.Clone(guardBase), tt.rows...) {
				errWhole, errSummarizing := whole.Apply(event(t, row)), summarizing.Apply(event(t, row))
				if (errWhole == nil) != (errSummarizing == nil) || errWhole != nil && errWhole.Error() != errSummarizing.Error() {
					t.Fatalf("row %s: refusals %v and %v", row, errWhole, errSummarizing)
				}
			}
			if !slices.Equal(whole.Nodes(), summarizing.Nodes()) || whole.ContentGeneration() != summarizing.ContentGeneration() ||
				whole.MessageCount() != summarizing.MessageCount() {
				t.Fatalf("nodes %v and %v", whole.Nodes(), summarizing.Nodes())
			}
			if got, want := summarizing.Roles(), roles(whole.Messages()); !slices.Equal(got, want) {
				t.Errorf("roles %v, want %v", got, want)
			}
			if got := whole.Roles(); !slices.Equal(got, roles(whole.Messages())) {
				t.Errorf("roles of the whole fold %v", got)
			}
			for i, n := range summarizing.Surface() {
				kept := whole.Surface()[i]
				if n.Summary() != kept.Message.String() {
					t.Errorf("node %d: summary %s, want %s", n.Seq, n.Summary(), kept.Message)
				}
				if n.Message.Kind() != jsonv.Null && n.Message.String() != kept.Message.String() {
					t.Errorf("node %d: kept message %s, want %s", n.Seq, n.Message, kept.Message)
				}
			}
		})
	}
}
