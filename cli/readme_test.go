package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeExamples runs every "$ dshlog ..." example of README.md from the
// repository root and checks the output printed under it, so the front page
// cannot drift from the program.
func TestReadmeExamples(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := readmeExamples(string(readme))
	if len(examples) == 0 {
		t.Fatal("README.md has no $ dshlog examples")
	}
	t.Chdir("..")
	for _, ex := range examples {
		t.Run(strings.Join(ex.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Run(ex.args, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if got := stdout.String(); got != ex.output {
				t.Errorf("README shows:\n%s\nthe command prints:\n%s", ex.output, got)
			}
		})
	}
}

type readmeExample struct {
	args   []string
	output string
}

// readmeExamples finds indented "$ dshlog ARGS" lines and the indented
// output lines that follow them.
func readmeExamples(readme string) []readmeExample {
	const indent = "    "
	var examples []readmeExample
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		command, ok := strings.CutPrefix(lines[i], indent+"$ dshlog ")
		if !ok {
			continue
		}
		ex := readmeExample{args: strings.Fields(command)}
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], indent) && !strings.HasPrefix(lines[i+1], indent+"$ ") {
			i++
			ex.output += strings.TrimPrefix(lines[i], indent) + "\n"
		}
		examples = append(examples, ex)
	}
	return examples
}

// TestExampleMigratesToGolden runs the README's publish example: migrating a
// copy of examples/bash-tool-turn gives the bytes dsh's own migrator wrote.
func TestExampleMigratesToGolden(t *testing.T) {
	source, err := os.ReadFile("../examples/bash-tool-turn/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../testdata/corpus/golden/bash-tool-turn/session.jsonl.v4.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, source, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"migrate", path}, nil, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "session.v4.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the published session.v4.jsonl differs from dsh's golden")
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, source) {
		t.Error("the source changed")
	}
}
