package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manOptions are the inputs of dshlog man.
type manOptions struct {
	dir string
}

func init() { addVerb(newManCommand) }

// newManCommand returns the hidden dshlog man, which writes a man page for
// every command of the tree (make man uses it).
func newManCommand(s *streams) *cobra.Command {
	var opts manOptions
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write the man pages of dshlog and its verbs into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = args[0]
			return runMan(opts, cmd.Root())
		},
	}
}

func runMan(opts manOptions, root *cobra.Command) error {
	if err := os.MkdirAll(opts.dir, 0o755); err != nil {
		return err
	}
	root.DisableAutoGenTag = true    // keep pages reproducible: no generation tag
	root.Long += "\n" + exitCodeHelp // help shows them in the usage template, which man pages lack
	header := &doc.GenManHeader{Title: "DSHLOG", Section: "1", Source: "dshlog " + moduleVersion(), Manual: "dshlog manual"}
	return doc.GenManTree(root, header, opts.dir)
}
