//go:build linux

package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestRecipesMatchReadme checks each recipe against its row of
// bench/gen/README.md: the generator's arguments and both hashes.
func TestRecipesMatchReadme(t *testing.T) {
	readme, err := os.ReadFile("../gen/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recipes {
		args := r.template + " OUT " + strconv.Itoa(r.mb)
		if r.pad > 0 {
			args += " --pad " + strconv.Itoa(r.pad)
		}
		found := false
		for line := range strings.Lines(string(readme)) {
			if strings.Contains(line, args+"`") {
				found = true
				if !strings.Contains(line, r.inputSum) || !strings.Contains(line, r.dshSum) {
					t.Errorf("%s: the README row for %q has other hashes", r.name, args)
				}
			}
		}
		if !found {
			t.Errorf("%s: no README row runs the generator with %q", r.name, args)
		}
	}
}
