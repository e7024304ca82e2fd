package snapshot

import (
	"bytes"
	"strings"
	"testing"
)

// TestCheck compares logs with the dsh snapshot of provider-cwd: the
// restored log matches whatever its clock, and each edit is reported at its
// row with the path of the first difference.
func TestCheck(t *testing.T) {
	const file = "dsh/provider-cwd/session.v4.jsonl"
	snapshot := readCorpus(t, file)
	restored := restoreBytes(t, snapshot, file, RestoreOptions{Values: Defaults()})
	slowClock := Defaults()
	slowClock.TimeStep = 1000
	lines := strings.SplitAfter(string(restored), "\n")
	edited := append([]string{}, lines...)
	edited[9] = strings.Replace(edited[9], "PONG", "PING", 1)

	tests := []struct {
		name string
		log  string
		want *Difference
	}{
		{name: "restored", log: string(restored)},
		{name: "another clock", log: string(restoreBytes(t, snapshot, file, RestoreOptions{Values: slowClock}))},
		{
			name: "edited text",
			log:  strings.Join(edited, ""),
			want: &Difference{Line: 10, Seq: 8, Type: "user/message", SnapshotLine: 10, Path: "data.content[0].text",
				Log:      `"Reply with exactly the word: PING. Do not use any tools."`,
				Snapshot: `"Reply with exactly the word: PONG. Do not use any tools."`},
		},
		{
			name: "row missing",
			log:  strings.Join(lines[:len(lines)-2], ""),
			want: &Difference{Seq: -1, Type: "turn/end", SnapshotLine: 17, Log: "(the log ends)",
				Snapshot: `{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}`},
		},
		{
			name: "row added",
			log:  string(restored) + `{"type":"turn/start","seq":16,"time":16,"data":{"turn":2}}` + "\n",
			want: &Difference{Line: 18, Seq: 16, Type: "turn/start", Log: `{"type":"turn/start","data":{"turn":2}}`,
				Snapshot: "(the snapshot ends)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(strings.NewReader(tt.log), "log", bytes.NewReader(snapshot), "snapshot", NormalizeOptions{IDFormats: Defaults().IDFormats})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case got == nil && tt.want == nil:
			case got == nil || tt.want == nil || *got != *tt.want:
				t.Errorf("Check = %+v, want %+v", got, tt.want)
			}
		})
	}
}
