package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dshlog/dshlog/codec/v2"
	"github.com/dshlog/dshlog/migrate"
	"github.com/dshlog/dshlog/verify/batch"
)

// corpusRoot is the directory of all the shared corpora.
const corpusRoot = "../testdata/corpus"

// TestSearchListsAsReference: on the directory of all the shared corpora,
// search -l lists exactly the sessions whose decoded messages hold the
// phrase, for phrases holding a quote, a character outside ASCII and a line
// break inside a message, as a reference finds them: it decodes every
// message with encoding/json, a v4 row as stored and an older format's
// events as migrate gives them.
func TestSearchListsAsReference(t *testing.T) {
	phrases := []string{
		`directory: "/workspace/demo"`,
		`"hello world"`,
		"权限",
		"—",
		"：\n\nCurrent",
		"</path>\n<type>file",
	}
	targets, _ := batch.Expand([]string{corpusRoot}, batch.Selection{})
	texts := make([][]string, len(targets))
	for i, target := range targets {
		texts[i] = referenceTexts(t, target.Path)
	}
	for _, phrase := range phrases {
		var want []string
		for i, target := range targets {
			if slices.ContainsFunc(texts[i], func(text string) bool { return strings.Contains(text, phrase) }) {
				want = append(want, target.Path)
			}
		}
		if len(want) == 0 || len(want) == len(targets) {
			t.Fatalf("%q is in %d of %d sessions: it tells none apart", phrase, len(want), len(targets))
		}
		var stdout, stderr bytes.Buffer
		code := Run([]string{"search", "-l", "-F", phrase, corpusRoot}, nil, &stdout, &stderr)
		if code != ExitInput { // the corpus holds logs dsh refuses
			t.Fatalf("%q: exit code %d, want %d (some corpus logs are refused)\n%s", phrase, code, ExitInput, stderr.Bytes())
		}
		got := strings.Fields(stdout.String())
		if !slices.Equal(got, want) {
			t.Errorf("search -l -F %q lists %d sessions, the reference %d:\n got %q\nwant %q", phrase, len(got), len(want), got, want)
		}
	}
}

// referenceTexts returns every searched text of the session file at path:
// for each message the text of its text blocks (or its content string),
// each tool call's name and arguments, and each session title. A v4 file
// is read row by row, its torn last line and rows that are not JSON left
// out; an older one is read through migrate up to where dsh refuses it.
func referenceTexts(t *testing.T, path string) []string {
	t.Helper()
	var rows []map[string]any
	if isV4(t, path) {
		rows = v4Rows(t, path)
	} else {
		rows = migratedRows(path)
	}
	var texts []string
	for _, row := range rows {
		data, _ := row["data"].(map[string]any)
		switch row["type"] {
		case "session/title":
			if title, ok := data["title"].(string); ok {
				texts = append(texts, title)
			}
			continue
		case "user/message":
		case "system/message", "developer/message", "assistant/message", "tool/result":
			data, _ = data["message"].(map[string]any)
		default:
			continue
		}
		switch content := data["content"].(type) {
		case string:
			texts = append(texts, content)
		case []any:
			for _, b := range content {
				block, _ := b.(map[string]any)
				switch block["type"] {
				case "reasoning":
				case "tool-call":
					for _, key := range []string{"name", "arguments"} {
						if s, ok := block[key].(string); ok {
							texts = append(texts, s)
						}
					}
				default:
					if s, ok := block["text"].(string); ok {
						texts = append(texts, s)
					}
				}
			}
		}
	}
	return texts
}

// isV4 reports whether the file's header line says format 4.
func isV4(t *testing.T, path string) bool {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer text.Close()
	line, _ := bufio.NewReader(text).ReadBytes('\n')
	var header struct {
		Type    string
		Version any
	}
	return json.Unmarshal(line, &header) == nil && header.Type == "session" && header.Version == float64(4)
}

// v4Rows decodes the rows of a v4 file.
func v4Rows(t *testing.T, path string) []map[string]any {
	text, err := migrate.OpenText(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer text.Close()
	all, err := io.ReadAll(text)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(all), "\n")
	var rows []map[string]any
	for _, line := range lines[1 : len(lines)-1] { // the header; a torn or empty last line
		var row map[string]any
		if json.Unmarshal([]byte(line), &row) == nil {
			rows = append(rows, row)
		}
	}
	return rows
}

// migratedRows decodes the events migrate reads from an older file, up to
// where dsh refuses it.
func migratedRows(path string) []map[string]any {
	src, err := migrate.Open(path, nil, migrate.OpenOptions{Options: migrate.Options{Recovery: v2.Recoverable}, AnyZstdFraming: true})
	if err != nil {
		return nil
	}
	defer src.Close()
	var rows []map[string]any
	for {
		ev, err := src.Next()
		if err != nil {
			return rows
		}
		var row map[string]any
		if json.Unmarshal(ev.Row.Encode(), &row) == nil {
			rows = append(rows, row)
		}
	}
}

// TestSearchOrder: hits come in the same order whatever -j.
func TestSearchOrder(t *testing.T) {
	var outputs []string
	for _, jobs := range []string{"1", "4"} {
		var stdout, stderr bytes.Buffer
		Run([]string{"search", "-j", jobs, "--color", "never", "-i", "the", corpusRoot}, nil, &stdout, &stderr)
		outputs = append(outputs, stdout.String())
	}
	if outputs[0] != outputs[1] {
		t.Errorf("-j 1 and -j 4 differ")
	}
	if n := strings.Count(outputs[0], "\n"); n < 1000 {
		t.Errorf("%d hits of \"the\"; the corpus should give thousands", n)
	}
}

// TestUseColor: colors on a terminal unless NO_COLOR is set (and not
// empty), or as --color says.
func TestUseColor(t *testing.T) {
	tests := []struct {
		when     string
		terminal bool
		noColor  string
		want     bool
	}{
		{"auto", true, "", true},
		{"auto", true, "1", false},
		{"auto", false, "", false},
		{"always", false, "1", true},
		{"never", true, "", false},
	}
	for _, tt := range tests {
		if got, err := useColor(tt.when, tt.terminal, tt.noColor); err != nil || got != tt.want {
			t.Errorf("useColor(%q, %v, %q) = %v, %v; want %v", tt.when, tt.terminal, tt.noColor, got, err, tt.want)
		}
	}
	if _, err := useColor("sometimes", true, ""); ExitCode(err) != ExitUsage {
		t.Errorf("--color sometimes: %v, want a usage error", err)
	}
}

// TestParseSearchTime reads the forms of --since and --until.
func TestParseSearchTime(t *testing.T) {
	now := time.Date(2026, 7, 13, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Time
	}{
		{"2026-07-01", time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-07-01T08:30", time.Date(2026, 7, 1, 8, 30, 0, 0, time.UTC)},
		{"2026-07-01T08:30:15+02:00", time.Date(2026, 7, 1, 6, 30, 15, 0, time.UTC)},
		{"36h", now.Add(-36 * time.Hour)},
		{"7d", now.Add(-7 * 24 * time.Hour)},
	}
	for _, tt := range tests {
		got, err := parseSearchTime("--since", tt.value, now)
		if err != nil || got != tt.want.UnixMilli() {
			t.Errorf("%q: %d, %v; want %d", tt.value, got, err, tt.want.UnixMilli())
		}
	}
	for _, bad := range []string{"yesterday", "-3h", "2026-13-01"} {
		if _, err := parseSearchTime("--since", bad, now); ExitCode(err) != ExitUsage {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}
