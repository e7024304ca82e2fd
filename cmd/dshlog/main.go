// Command dshlog reads, migrates, folds, repairs and forks the session logs
// of dsh (DeepSeek Harness); see the cli package for the verbs.
package main

import (
	"os"

	"github.com/dshlog/dshlog/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
