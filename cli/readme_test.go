package cli

import (
	"bytes"
	"os"
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
