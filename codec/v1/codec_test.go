package v1

import (
	"strings"
	"testing"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/jsonv"
	"github.com/dshlog/dshlog/session"
)

func TestHeader(t *testing.T) {
	tests := []struct {
		header string
		cut    int64
		err    string
	}{
		{`{"type":"session","version":1,"id":"s","createdAt":5,"delegationDepth":0,"cwd":"/p"}`, 0, ""},
		{`{"type":"session","version":1,"id":"s","createdAt":5,"delegationDepth":0,"seedLength":3}`, 3, ""},
		{`{"type":"session","version":0,"id":"s","createdAt":5,"delegationDepth":0}`, 0, "SessionFormatError: expected released v1 physical Session header"},
		{`{"type":"session","version":1,"id":7,"createdAt":5,"delegationDepth":0}`, 0, "SessionFormatError: released v1 header id must be a string"},
	}
	for _, tt := range tests {
		hv, err := jsonv.Parse([]byte(tt.header))
		if err != nil {
			t.Fatal(err)
		}
		h, cut, err := DecodeHeader(hv)
		if got := refusalText(err); got != tt.err {
			t.Errorf("%s: %q, want %q", tt.header, got, tt.err)
			continue
		}
		if err == nil && (h.Version != Version || cut != tt.cut) {
			t.Errorf("%s: version %d cut %d", tt.header, h.Version, cut)
		}
		if _, err := NewDecoder(hv, v2.Recoverable); refusalText(err) != tt.err {
			t.Errorf("NewDecoder %s: %v", tt.header, err)
		}
	}
}

func TestCheckHeader(t *testing.T) {
	for _, tt := range []struct {
		h   session.Header
		err string
	}{
		{session.Header{Version: 1, Cwd: session.Str("/p")}, ""},
		{session.Header{Version: 1, Cwd: session.Str("p")}, "format v1 header cwd must be absolute"},
		{session.Header{Version: 2}, "expected format v1 header"},
	} {
		if got := refusalText(CheckHeader(tt.h)); !strings.HasSuffix(got, tt.err) || (tt.err == "") != (got == "") {
			t.Errorf("%+v: %q, want %q", tt.h, got, tt.err)
		}
	}
}

func refusalText(err error) string {
	if err == nil {
		return ""
	}
	if r, ok := err.(*session.Refusal); ok {
		return r.Text()
	}
	return err.Error()
}
