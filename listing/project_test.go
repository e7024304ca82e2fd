package listing

import "testing"

// TestProjectOf: only a directory named --key-- (or _no-cwd) is a dsh
// project directory; its key is decoded, escapes included.
func TestProjectOf(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/s/--home-me-app--/id/session.v4.jsonl", "home-me-app"},
		{"/s/--home-me-caf~00E9--/id/session.v4.jsonl", "home-me-café"},
		{"/s/_no-cwd/id/session.v4.jsonl", ""},
		{"/s/home-me-app--/id/session.v4.jsonl", ""},
		{"/s/--home-me-app/id/session.v4.jsonl", ""},
		{"/s/----/id/session.v4.jsonl", ""},
		{"/s/snapshots/id/session.v4.jsonl", ""},
	}
	for _, tt := range tests {
		if got := ProjectOf(tt.path); got != tt.want {
			t.Errorf("ProjectOf(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
