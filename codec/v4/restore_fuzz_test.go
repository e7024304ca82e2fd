package v4

import (
	"bytes"
	"errors"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/internal/sessiontest"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

// FuzzV4Restore feeds arbitrary files through dsh's whole native v4 read
// (row admission, framing, artifact restore with its lifecycle
// relationships): it must never panic, every refusal must be one of dsh's,
// and an accepted file must read back to itself, accepted again.
func FuzzV4Restore(f *testing.F) {
	sessiontest.Seed(f, sessiontest.Glob(f,
		"../../testdata/corpus/restored/*/*.v4.jsonl",
		"../../testdata/corpus/bad-logs/*/*.v4.jsonl",
		"../../testdata/corpus/golden/edge*/*/*.v4.jsonl",
		"../../testdata/seed-vectors/*.v4.jsonl",
	), false)
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		recovery := v2.Recoverable
		if strict {
			recovery = v2.Strict
		}
		out, _, err := nativeRead(data, recovery)
		if err != nil {
			var r *session.Refusal
			if !errors.Is(err, errUnparsable) && !errors.As(err, &r) {
				t.Fatalf("error is not a dsh refusal: %v", err)
			}
			return
		}
		again, _, err := nativeRead(out, recovery)
		if err != nil {
			t.Fatalf("written file is refused: %v", err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("written file does not read back to itself")
		}
	})
}

// FuzzAdmitRow checks that row admission refuses any parsed row only with
// dsh's refusals and never panics.
func FuzzAdmitRow(f *testing.F) {
	for _, row := range []string{
		`{"type":"tool/result","seq":5,"data":{"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[],"id":"r"}}}`,
		`{"type":"tool/result","seq":7,"surfaceOp":"append","data":{"error":{"name":"ToolNotStartedError","code":"TOOL_NOT_STARTED"},"message":{"role":"tool","source":{"kind":"tool","callId":"c"},"toolCallId":"c","content":[{"type":"text","text":"t"}],"isError":true,"id":"forked-tool-result-c-7"}}}`,
		`{"type":"developer/message","data":{"turn":1,"step":1,"headerSeq":3,"message":{"id":"d","role":"developer","content":[{"type":"tool-addition","toolName":"t"}],"source":{"kind":"tools"}}}}`,
		`{"type":"system/message","data":{"turn":1,"step":1,"message":{"id":"s","role":"system","content":[{"type":"image","attachment":{"attachmentId":"a","mediaType":"image/png","bytes":0,"width":1,"height":1}}]}}}`,
		`{"type":"assistant/message","seq":4,"data":{"message":{"content":[]},"stream":[{"type":"chunk","chunk":{"type":"block-start","blockType":"tool-result"}}]}}`,
		`{"type":"request/header","data":{"header":{"tools":[{"name":"t","deferLoading":true}]}}}`,
	} {
		f.Add([]byte(row))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		row, err := jsonv.Parse(text)
		if err != nil {
			return
		}
		if err := AdmitRow(row); err != nil {
			var r *session.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("error is not a dsh refusal: %v", err)
			}
		}
	})
}
