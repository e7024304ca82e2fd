package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/dshlog/dshlog/codec/v4"
)

func init() { addVerb(newVersionCommand) }

// newVersionCommand returns dshlog version, which names the build and the
// session format dshlog writes.
func newVersionCommand(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print dshlog's version and the session format it writes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVersion(s)
		},
	}
}

func runVersion(s *streams) error {
	_, err := fmt.Fprintf(s.out, "dshlog %s\nsession format: v%d\n%s\n", moduleVersion(), v4.Version, runtime.Version())
	return err
}

// moduleVersion returns the version of the dshlog module this binary was
// built from, "(devel)" for a build from a work tree.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" {
		return "(devel)"
	}
	return info.Main.Version
}
