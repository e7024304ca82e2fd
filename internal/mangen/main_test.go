package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrite writes the man pages and checks a verb's page and the root's:
// the header, the verb's summary and the exit codes.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	page := func(name string) string {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	inspect := page("dshlog-inspect.1")
	for _, want := range []string{`.TH "DSHLOG" "1"`, "List the events of a session"} {
		if !strings.Contains(inspect, want) {
			t.Errorf("dshlog-inspect.1 lacks %q", want)
		}
	}
	if !strings.Contains(page("dshlog.1"), "Exit codes") {
		t.Error("dshlog.1 lacks the exit codes")
	}
	page("dshlog-version.1")
	if _, err := os.Stat(filepath.Join(dir, "dshlog-man.1")); err == nil {
		t.Error("a page for a man verb, which dshlog no longer has")
	}
}
