package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dshlog/dshlog/verify"
)

// TestVerifyCIReadme checks that every dshlog verify command of README.md's
// "Use in CI" section is run, exactly, by the testscript that stands for
// it: a matrix's ${{ matrix.shard }} as each of 1..4.
func TestVerifyCIReadme(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/verify_ci_readme.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Use in CI\n")
	if !ok {
		t.Fatal("README.md has no Use in CI section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	scripted := map[string]bool{}
	for _, line := range strings.Split(string(script), "\n") {
		if command, ok := strings.CutPrefix(line, "exec "); ok {
			scripted[command] = true
		}
		if command, ok := strings.CutPrefix(line, "exitcode 1 "); ok {
			scripted[command] = true
		}
	}
	commands := regexp.MustCompile(`(?m)(?:- run: |- |^    )(dshlog verify --[^\n]*)$`).FindAllStringSubmatch(section, -1)
	if len(commands) < 4 {
		t.Fatalf("only %d dshlog verify commands in the Use in CI section", len(commands))
	}
	for _, m := range commands {
		command := m[1]
		if strings.Contains(command, "--explain") {
			continue // README's examples test runs it with its output
		}
		variants := []string{command}
		if strings.Contains(command, "${{ matrix.shard }}") {
			variants = nil
			for _, shard := range []string{"1", "2", "3", "4"} {
				variants = append(variants, strings.ReplaceAll(command, "${{ matrix.shard }}", shard))
			}
		}
		for _, v := range variants {
			if !scripted[v] {
				t.Errorf("README runs %q, verify_ci_readme.txtar does not", v)
			}
		}
	}
}

// TestVerifyReadmeCodes checks that README.md's table of finding codes has
// a row for every code, with its severity and the --explain command.
func TestVerifyReadmeCodes(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range verify.Explanations() {
		row := fmt.Sprintf("| `%s` | %s | %s | `dshlog verify --explain %s` |", e.Code, e.Severity, e.Meaning, e.Code)
		if !strings.Contains(string(readme), row+"\n") {
			t.Errorf("README.md has no row\n%s", row)
		}
	}
}
