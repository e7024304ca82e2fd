package store

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
		want Log
	}{
		{"session.jsonl", true, Log{}},
		{"session.v4.jsonl", true, Log{Version: 4}},
		{"session.v4.jsonl.zstd", true, Log{Version: 4, Compression: ".zstd"}},
		{"session.v3.jsonl.zst", true, Log{Version: 3, Compression: ".zst"}},
		{"session.jsonl.gz", true, Log{Compression: ".gz"}},
		{"session.2.jsonl", true, Log{Session: 2}},
		{"session.1.v4.jsonl", true, Log{Session: 1, Version: 4}},
		{"session.0.v2.jsonl.zstd", true, Log{Version: 2, Compression: ".zstd"}},
		{"session.v9007199254740991.jsonl", true, Log{Version: 9007199254740991}},
		{"session.v9007199254740992.jsonl", false, Log{}},
		{"session.v0.jsonl", false, Log{}},
		{"session.v01.jsonl", false, Log{}},
		{"session.V1.jsonl", false, Log{}},
		{"session.01.jsonl", false, Log{}},
		{"session.v1.backup.jsonl", false, Log{}},
		{"session.migration.deadbeefdeadbeef.jsonl.zstd.tmp", false, Log{}},
		{"session.migration.deadbeef.tmp.jsonl", false, Log{}},
		{"session.lock", false, Log{}},
		{"session.jsonl.bz2", false, Log{}},
		{"other.jsonl", false, Log{}},
	}
	for _, tt := range tests {
		got, ok := ParseName(tt.name)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWalkAndCurrent(t *testing.T) {
	root := t.TempDir()
	files := []string{
		"--home-me-proj--/s1/session.jsonl",
		"--home-me-proj--/s1/session.v4.jsonl",
		"--home-me-proj--/s1/session.lock",
		"--home-me-proj--/s1/session.migration.0123456789abcdef.jsonl.tmp",
		"--home-me-proj--/a~002Fb/session.v3.jsonl.zstd",
		"--home-me-proj--/a~002Fb/session.v3.jsonl",
		"snapshots/ralph/session.v4.jsonl",
		"snapshots/ralph/session.1.v4.jsonl",
		"snapshots/ralph/session.2.jsonl",
		"snapshots/ralph/session.2.v4.jsonl",
		"snapshots/ralph/notes.md",
		"empty/readme.txt",
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type found struct {
		dir     string
		logs    []string
		current []string
	}
	var got []found
	err := Walk(root, func(d Dir) error {
		rel, _ := filepath.Rel(root, d.Path)
		f := found{dir: rel}
		for _, l := range d.Logs {
			f.logs = append(f.logs, filepath.Base(l.Path))
		}
		for _, l := range d.Current() {
			f.current = append(f.current, filepath.Base(l.Path))
		}
		got = append(got, f)
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []found{
		{"--home-me-proj--/a~002Fb", []string{"session.v3.jsonl", "session.v3.jsonl.zstd"}, []string{"session.v3.jsonl"}},
		{"--home-me-proj--/s1", []string{"session.jsonl", "session.v4.jsonl"}, []string{"session.v4.jsonl"}},
		{"snapshots/ralph", []string{"session.v4.jsonl", "session.1.v4.jsonl", "session.2.jsonl", "session.2.v4.jsonl"}, []string{"session.v4.jsonl", "session.1.v4.jsonl", "session.2.v4.jsonl"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk found\n%+v\nwant\n%+v", got, want)
	}
}

func TestWalkUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		// root reads any directory whatever its mode; the error path is
		// then exercised by a root that does not exist.
		err := Walk(filepath.Join(t.TempDir(), "missing"), func(Dir) error { return nil }, nil)
		if !os.IsNotExist(err) {
			t.Fatalf("Walk(missing) = %v, want a not-exist error", err)
		}
		return
	}
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	if err := os.Mkdir(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	var reported []string
	err := Walk(root, func(Dir) error { return nil }, func(path string, err error) { reported = append(reported, path) })
	if err != nil || len(reported) != 1 || reported[0] != locked {
		t.Fatalf("Walk = %v, reported %v; want nil and [%s]", err, reported, locked)
	}
}

func TestDecodeSegment(t *testing.T) {
	tests := []struct {
		seg, id string
		ok      bool
	}{
		{"abc-1.2_3", "abc-1.2_3", true},
		{"a~002Fb", "a/b", true},
		{"~002E", ".", true},
		{"~002E~002E", "..", true},
		{"~007E", "~", true},
		{"~00E9t~00E9", "été", true},
		{"~D83D~DE00", "😀", true},
		{"~00e9", "", false},
		{"~00E", "", false},
		{"a b", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		id, ok := DecodeSegment(tt.seg)
		if id != tt.id || ok != tt.ok {
			t.Errorf("DecodeSegment(%q) = %q, %v; want %q, %v", tt.seg, id, ok, tt.id, tt.ok)
		}
	}
}
