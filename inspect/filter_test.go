package inspect

import "testing"

func TestFilterMatch(t *testing.T) {
	tests := []struct {
		name   string
		filter Filter
		seq    int64
		typ    string
		want   bool
	}{
		{"everything", Filter{}, 7, "turn/start", true},
		{"before from", Filter{From: 8}, 7, "turn/start", false},
		{"at from", Filter{From: 7}, 7, "turn/start", true},
		{"at to", Filter{To: 7, ToSet: true}, 7, "turn/start", true},
		{"after to", Filter{To: 7, ToSet: true}, 8, "turn/start", false},
		{"to zero is a bound", Filter{ToSet: true}, 1, "turn/start", false},
		{"glob", Filter{Types: []string{"tool/*"}}, 1, "tool/call", true},
		{"glob does not cross slash", Filter{Types: []string{"tool/*"}}, 1, "tool-workflow/run-end", false},
		{"any of several", Filter{Types: []string{"turn/end", "step/*"}}, 1, "step/end", true},
		{"none of several", Filter{Types: []string{"turn/end", "step/*"}}, 1, "turn/start", false},
	}
	for _, tt := range tests {
		if got := tt.filter.Match(tt.seq, tt.typ); got != tt.want {
			t.Errorf("%s: Match(%d, %q) = %v, want %v", tt.name, tt.seq, tt.typ, got, tt.want)
		}
	}
}

func TestFilterCheck(t *testing.T) {
	if err := (Filter{Types: []string{"tool/*", "turn/end"}}).Check(); err != nil {
		t.Errorf("good patterns refused: %v", err)
	}
	if err := (Filter{Types: []string{"tool/["}}).Check(); err == nil {
		t.Error("malformed pattern accepted")
	}
}
