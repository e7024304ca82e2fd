// Command mangen writes the man pages of dshlog and its verbs into a
// directory: go run ./internal/mangen DIR (make man). It lives outside the
// dshlog binary so that the binary does not carry, and initialize at every
// start, the Markdown and roff libraries the pages are made with.
package main

import (
	"fmt"
	"os"

	"github.com/dshlog/dshlog/cli"
	"github.com/spf13/cobra/doc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./internal/mangen DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
}

// write writes a man page for every command of dshlog's tree into dir,
// reproducibly (no generation date).
func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := cli.CommandTree()
	root.DisableAutoGenTag = true
	header := &doc.GenManHeader{Title: "DSHLOG", Section: "1", Source: "dshlog " + root.Version, Manual: "dshlog manual"}
	return doc.GenManTree(root, header, dir)
}
